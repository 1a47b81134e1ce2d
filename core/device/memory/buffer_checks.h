/* Internal: argument checks shared by the buffer operations. */
#ifndef TDM_CORE_BUFFER_CHECKS_H
#define TDM_CORE_BUFFER_CHECKS_H

#include "device/device_impl.h"

/* TDM_ERR_INVALID_ARGUMENT unless [offset, offset + size) lies within buf. */
tdm_status tdm_check_range(const tdm_buffer *buf, size_t offset, size_t size, const char *func,
                           const char *what);

/* Checks a view: non-NULL buffer and an in-range byte range. */
tdm_status tdm_check_view(const tdm_buffer_view *view, const char *func, const char *what);

#endif
