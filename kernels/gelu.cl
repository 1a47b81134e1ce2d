/* gelu: y[i] = x / 2 * (1 + erf(x / sqrt(2))) = x * Phi(x), x = x[i] (exact GELU,
 * TensorFlow's default), i in [0, n). Phi(x) = erfc(-x / sqrt(2)) / 2 keeps its
 * accuracy in the left tail, where 1 + erf(...) would cancel. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_gelu(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    y += y_off;
    x += x_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 v = LOAD4(x, q, n);
        STORE4(v * (0.5f * erfc(-v * M_SQRT1_2_F)), y, q, n);
    }
}
