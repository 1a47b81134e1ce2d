/* softmax_xent: softmax cross-entropy with its gradient, per row r of rows x cols:
 *   mx = max(logits[r, :]);  s = sum over c of exp(logits[r, c] - mx)
 *   loss[r] = logsumexp(logits[r, :]) - logits[r, label] = (mx - logits[r, label]) + log(s)
 *   dlogits[r, c] = grad_scale * (exp(logits[r, c] - mx) / s - (c == label))
 * with label = labels[r]. The maximum is subtracted before exp so that no logit
 * overflows; s is summed with Kahan compensation. One item per row. A NaN logit makes
 * the row NaN. A negative label (as int32) masks the row, a sequence's padding: loss
 * 0, dlogits 0; another label outside [0, cols) gives a NaN loss. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_softmax_xent(TDM_SIGNATURE)
{
    loss += loss_off;
    dlogits += dlogits_off;
    logits += logits_off;
    labels += labels_off;
    for (size_t r = get_global_id(0); r < rows; r += get_global_size(0)) {
        global const float *l = logits + r * cols;
        global float *d = dlogits + r * cols;
        const uint label = labels[r];
        if (label >= 0x80000000u) { /* masked */
            loss[r] = 0.0f;
            for (uint c = 0; c < cols; c++)
                d[c] = 0.0f;
            continue;
        }
        float mx = -INFINITY, s = 0.0f, lost = 0.0f;

        for (uint c = 0; c < cols; c++)
            mx = fmax(mx, l[c]); /* a NaN is skipped here but poisons s below */
        for (uint c = 0; c < cols; c++) {
            const float y = exp(l[c] - mx) - lost;
            const float t = s + y;
            lost = (t - s) - y;
            s = t;
        }
        s = s - lost;
        loss[r] = label < cols ? (mx - l[label]) + log(s) : NAN;
        for (uint c = 0; c < cols; c++) {
            const float p = exp(l[c] - mx) / s;
            d[c] = grad_scale * (c == label ? p - 1.0f : p);
        }
    }
}
