/* Internal: copies between devices that cannot reach each other, through host memory. */
#ifndef TDM_CORE_STAGED_COPY_H
#define TDM_CORE_STAGED_COPY_H

#include "device/device_impl.h"

/* Copies src to dst (same size, different devices) in chunks through two pooled
 * host chunks: src's copy worker reads chunk k + 1 while this thread writes chunk k
 * to dst's device. Blocking reads and writes keep the ordering that
 * tdm_buffer_copy promises on both devices. Must not run on src's copy worker. */
tdm_status tdm_staged_copy(const tdm_buffer_view *dst, const tdm_buffer_view *src);

#endif
