/* fill: y[i] = value, i in [0, n). Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_fill(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    y += y_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        store4((float4)(value), y, q, n);
    }
}
