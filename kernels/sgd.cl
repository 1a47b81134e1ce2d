/* sgd: w[i] -= lr * g[i], i in [0, n): the product and the difference each rounded
 * (the prelude turns contraction off), as the reference and the shader round them. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_sgd(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    w += w_off;
    g += g_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        store4(load4(w, q, n) - lr * load4(g, q, n), w, q, n);
    }
}
