/* bias_act: z[r, c] = x[r, c] + b[c] as bias_add computes it, then y[r, c] = act(z[r, c])
 * with z read back as stored (rounded to float16 in the twin), act as its own kernel
 * computes it (activations.clh): bitwise the two launches. Tolerance: act's. */
#include "activations.clh"

/* Four cells per item and iteration (the last quad may be partial), the activation f
 * of each. One loop per activation, the choice outside: a loop of the activation
 * kernel's shape, whose built-ins (erfc, exp, tanh) PoCL vectorizes alike, bit for
 * bit, where a choice inside each iteration gets other code. */
#define BIAS_ACT(f)                                                                                \
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {                       \
        STORE4(LOAD4(x, q, cells) + load4_cols(b, q, cols), z, q, cells);                          \
        STORE4(f(LOAD4(z, q, cells)), y, q, cells);                                                \
    }
#define IDENTITY4(v) (v)

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_bias_act(TDM_SIGNATURE)
{
    const size_t cells = (size_t)rows * cols;
    const size_t quads = cells / 4 + (cells % 4 != 0);

    y += y_off;
    z += z_off;
    x += x_off;
    b += b_off;
    switch (activation) {
    case TDM_ACT_RELU: BIAS_ACT(tdm_relu4) break;
    case TDM_ACT_TANH: BIAS_ACT(tdm_tanh4) break;
    case TDM_ACT_SIGMOID: BIAS_ACT(tdm_sigmoid4) break;
    case TDM_ACT_GELU: BIAS_ACT(tdm_gelu4) break;
    default: BIAS_ACT(IDENTITY4)
    }
}
