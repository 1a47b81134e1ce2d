/* cast_f32_i32: y[i] = x[i] truncated toward zero as an int32 (its bits), for x[i] in
 * (-2^31, 2^31); NaN and values outside give INT32_MIN (0x80000000). convert_int leaves
 * those undefined, so the range is tested first (NaN fails every comparison). One item
 * per element. Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_cast_f32_i32(TDM_SIGNATURE)
{
    y += y_off;
    x += x_off;
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {
        const float v = x[i];
        y[i] = v > -2147483648.0f && v < 2147483648.0f ? (uint)convert_int_rtz(v) : 0x80000000u;
    }
}
