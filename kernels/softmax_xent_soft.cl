/* softmax_xent_soft: categorical cross-entropy against soft or one-hot targets, per
 * row r of rows x cols, with l = logits[r, :] and t = targets[r, :] in [0, 1]:
 *   mx = max(l);  s = sum over c of exp(l[c] - mx);  lse = mx + log(s)
 *   T = sum over c of t[c]
 *   loss[r] = sum over c of t[c] * (lse - l[c])
 *   dlogits[r, c] = grad_scale * ((exp(l[c] - mx) / s) * T - t[c])
 * The maximum is subtracted before exp so that no logit overflows; s, T and the loss
 * are summed with Kahan compensation, the loss's reset where its sum turns infinite
 * (a term past FLT_MAX), which would otherwise make inf - inf. One item per row. A
 * NaN logit makes the row NaN. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_softmax_xent_soft(TDM_SIGNATURE)
{
    loss += loss_off;
    dlogits += dlogits_off;
    logits += logits_off;
    targets += targets_off;
    for (size_t r = get_global_id(0); r < rows; r += get_global_size(0)) {
        global const float *l = logits + r * cols, *t = targets + r * cols;
        global float *d = dlogits + r * cols;
        float mx = -INFINITY, s = 0.0f, lost = 0.0f, mass = 0.0f, mass_lost = 0.0f;

        for (uint c = 0; c < cols; c++)
            mx = fmax(mx, l[c]); /* a NaN is skipped here but poisons s below */
        for (uint c = 0; c < cols; c++) {
            const float y = exp(l[c] - mx) - lost;
            const float u = s + y;
            lost = (u - s) - y;
            s = u;
            const float ym = t[c] - mass_lost;
            const float um = mass + ym;
            mass_lost = (um - mass) - ym;
            mass = um;
        }
        s = s - lost;
        mass = mass - mass_lost;
        const float lse = mx + log(s);
        float sum = 0.0f, sum_lost = 0.0f;
        for (uint c = 0; c < cols; c++) {
            const float y = t[c] * (lse - l[c]) - sum_lost;
            const float u = sum + y;
            sum_lost = isinf(u) ? 0.0f : (u - sum) - y;
            sum = u;
        }
        loss[r] = sum - sum_lost;
        for (uint c = 0; c < cols; c++)
            d[c] = grad_scale * ((exp(l[c] - mx) / s) * mass - t[c]);
    }
}
