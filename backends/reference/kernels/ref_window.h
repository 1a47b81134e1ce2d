/* Internal to the reference backend: the windows of convolution and pooling. Output
 * position i (a row or a column) sees input positions i * stride - pad + p for p in
 * [0, k); those outside [0, size) are padding. */
#ifndef TDM_REF_WINDOW_H
#define TDM_REF_WINDOW_H

#include <stdint.h>

/* The input position output i sees at offset p; -1 for padding. */
static inline int64_t ref_window_pos(uint32_t i, uint32_t stride, uint32_t pad, uint32_t p,
                                     uint32_t size)
{
    int64_t r = (int64_t)i * stride - pad + p;
    return r >= 0 && r < size ? r : -1;
}

/* The output position whose window holds input position r at offset p; -1 for none
 * (outputs is how many there are). */
static inline int64_t ref_output_pos(uint32_t r, uint32_t stride, uint32_t pad, uint32_t p,
                                     uint32_t outputs)
{
    int64_t num = (int64_t)r + pad - p;
    if (num < 0 || num % stride != 0 || num / stride >= outputs)
        return -1;
    return num / stride;
}

#endif
