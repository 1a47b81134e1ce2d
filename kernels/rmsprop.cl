/* rmsprop (TensorFlow's ApplyRMSProp / ApplyCenteredRMSProp: eps inside the square
 * root), i in [0, n):
 *   ms = rho * ms + (1 - rho) * g * g;
 *   centered: mg = rho * mg + (1 - rho) * g, denom = ms - mg * mg;  else denom = ms
 *   mom = momentum * mom + lr * g / sqrt(denom + eps);  w -= mom
 * mg is neither read nor written unless centered. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_rmsprop(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    w += w_off;
    g += g_off;
    ms += ms_off;
    mom += mom_off;
    mg += mg_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 gi = load4(g, q, n);
        const float4 msi = rho * load4(ms, q, n) + (1.0f - rho) * gi * gi;
        float4 denom = msi;

        store4(msi, ms, q, n);
        if (centered) {
            const float4 mgi = rho * load4(mg, q, n) + (1.0f - rho) * gi;
            store4(mgi, mg, q, n);
            denom = msi - mgi * mgi;
        }
        const float4 momi = momentum * load4(mom, q, n) + lr * gi / sqrt(denom + eps);
        store4(momi, mom, q, n);
        store4(load4(w, q, n) - momi, w, q, n);
    }
}
