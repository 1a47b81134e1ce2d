/* momentum (TensorFlow's ApplyMomentum), i in [0, n):
 *   m = momentum * m + g;
 *   w -= lr * m                              (nesterov == 0)
 *   w -= lr * g + lr * momentum * m          (nesterov != 0, with the new m) */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_momentum(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    w += w_off;
    g += g_off;
    m += m_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 gi = load4(g, q, n);
        const float4 mi = momentum * load4(m, q, n) + gi;
        const float4 wi = load4(w, q, n);

        store4(mi, m, q, n);
        store4(nesterov ? wi - (lr * gi + lr * momentum * mi) : wi - lr * mi, w, q, n);
    }
}
