/* Internal: reading and filling a caller's struct whose first field is its size. */
#ifndef TDM_CORE_OPTIONS_H
#define TDM_CORE_OPTIONS_H

#include <stddef.h>

#include "tandem/status.h"

/* Copies the caller's options over the defaults already in *dst (dst_size bytes).
 * A caller built against an older header passes a smaller size: the newer fields
 * keep their defaults. A size smaller than the size field itself, or larger than
 * this library knows, is rejected: silently ignoring a field the caller set would
 * be worse. src may be NULL (all defaults). */
tdm_status tdm_options_read(void *dst, size_t dst_size, const void *src, const char *what);

/* The other way: fills the caller's struct *dst from the library's *src (src_size
 * bytes, whose size field is unused) as far as dst's size field says, keeping that
 * size. A caller built against an older header gets the fields it knows; a size the
 * library does not know is rejected as tdm_options_read rejects it. */
tdm_status tdm_options_write(void *dst, const void *src, size_t src_size, const char *what);

#endif
