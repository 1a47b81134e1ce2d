/* clip: y[i] = min(max(x[i], lo), hi), i in [0, n), as t = x < lo ? lo : x;
 * y = t > hi ? hi : t. A NaN fails both comparisons and passes through (fmin and fmax
 * would drop it); a zero keeps its sign unless a bound replaces it. Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_clip(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    y += y_off;
    x += x_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 v = load4(x, q, n);
        const float4 t = select(v, (float4)(lo), v < lo); /* a vector condition selects per lane */
        store4(select(t, (float4)(hi), t > hi), y, q, n);
    }
}
