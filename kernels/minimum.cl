/* minimum: z[i] = min(x[i], y[i]), NaN if either is NaN; for equal values (and zeros of
 * both signs) x's, as the reference's "y < x ? y : x". Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_minimum(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    z += z_off;
    x += x_off;
    y += y_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 a = load4(x, q, n), b = load4(y, q, n);
        const float4 r = select(a, b, b < a);
        store4(select(r, (float4)(NAN), isnan(a) | isnan(b)), z, q, n);
    }
}
