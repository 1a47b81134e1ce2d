/* Internal: copies between devices that cannot reach each other, through host memory. */
#ifndef TDM_CORE_STAGED_COPY_H
#define TDM_CORE_STAGED_COPY_H

#include "device_impl.h"

/* Copies src to dst (same size, different devices) in chunks through two host
 * buffers: a helper thread reads chunk k + 1 from src's device while this thread
 * writes chunk k to dst's device. Blocking reads and writes keep the ordering that
 * tdm_buffer_copy promises on both devices. */
tdm_status tdm_staged_copy(const tdm_buffer_view *dst, const tdm_buffer_view *src);

#endif
