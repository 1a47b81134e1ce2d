/* Internal: size arithmetic that cannot wrap. Sizes that come from a caller or a file
 * (shapes, batch sizes, row counts) are multiplied with these, so that a huge value
 * is refused instead of allocating a small buffer that is then overrun. */
#ifndef TDM_CORE_CHECKED_SIZE_H
#define TDM_CORE_CHECKED_SIZE_H

#include <stddef.h>

/* *out = a * b; 1 when the product does not fit in a size_t (*out is then unusable). */
static inline int tdm_mul_overflows(size_t a, size_t b, size_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

/* *out = a * b * c; 1 when it does not fit. */
static inline int tdm_mul3_overflows(size_t a, size_t b, size_t c, size_t *out)
{
    return __builtin_mul_overflow(a, b, out) || __builtin_mul_overflow(*out, c, out);
}

#endif
