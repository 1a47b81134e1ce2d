/* cast_f16_f32: y[i] = float(x[i]) (exact), i in [0, n). x is float16 stored as 16-bit
 * words, read with vload_half* so that cl_khr_fp16 is not needed (16-bit alignment,
 * any offset works). Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_cast_f16_f32(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    y += y_off;
    x += x_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const size_t i = 4 * q;
        if (i + 4 <= n) {
            vstore4(vload_half4(q, x), q, y);
        } else {
            for (size_t k = i; k < n; k++)
                y[k] = vload_half(k, x);
        }
    }
}
