/* sgd: w[i] -= lr * g[i], i in [0, n), rounded once (fma), as the reference does it:
 * with two roundings, w - lr * g can be several ulps off where the terms cancel. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_sgd(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    w += w_off;
    g += g_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        store4(fma((float4)(-lr), load4(g, q, n), load4(w, q, n)), w, q, n);
    }
}
