/* adamw: decoupled weight decay with the old w, then adam, i in [0, n):
 *   w -= weight_decay * w  (the w before this step)
 *   lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
 *   m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
 *   w -= lr_t * m / (sqrt(v) + eps) */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_adamw(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);
    const float lr_t = lr * sqrt(1.0f - beta2_power) / (1.0f - beta1_power);

    w += w_off;
    g += g_off;
    m += m_off;
    v += v_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 gi = load4(g, q, n);
        const float4 mi = beta1 * load4(m, q, n) + (1.0f - beta1) * gi;
        const float4 vi = beta2 * load4(v, q, n) + (1.0f - beta2) * gi * gi;
        const float4 wi = load4(w, q, n);
        const float4 decayed = wi - weight_decay * wi;

        store4(mi, m, q, n);
        store4(vi, v, q, n);
        store4(decayed - lr_t * mi / (sqrt(vi) + eps), w, q, n);
    }
}
