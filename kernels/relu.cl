/* relu: y[i] = max(x[i], 0), NaN stays NaN, i in [0, n). Written as the reference
 * writes it, so that even the sign of a zero result matches. Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_relu(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    y += y_off;
    x += x_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 v = LOAD4(x, q, n);
        STORE4(isnan(v) || v > 0.0f ? v : 0.0f, y, q, n); /* a vector condition selects per lane */
    }
}
