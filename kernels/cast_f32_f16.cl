/* cast_f32_f16: y[i] = half(x[i]), round to nearest even, overflow to infinity,
 * i in [0, n). y is float16 stored as 16-bit words, written with vstore_half*_rte so
 * that cl_khr_fp16 is not needed (both need only 16-bit alignment, any offset works).
 * Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_cast_f32_f16(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    y += y_off;
    x += x_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const size_t i = 4 * q;
        if (i + 4 <= n) {
            vstore_half4_rte(vload4(q, x), q, y);
        } else {
            for (size_t k = i; k < n; k++)
                vstore_half_rte(x[k], k, y);
        }
    }
}
