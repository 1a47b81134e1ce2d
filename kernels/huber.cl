/* huber: with d = pred[i] - target[i], i in [0, n):
 *   loss[i] = |d| <= delta ? (0.5 * d) * d : delta * (|d| - 0.5 * delta)
 *   dpred[i] = grad_scale * clamp(d, -delta, delta)
 * the clamp as t = d < -delta ? -delta : d; t > delta ? delta : t, so that NaN stays
 * NaN (fmin and fmax would drop it) and a zero keeps its sign. Every operation is a
 * correctly rounded +, - or x (the halvings exact), never fused: tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_huber(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    loss += loss_off;
    dpred += dpred_off;
    pred += pred_off;
    target += target_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 d = load4(pred, q, n) - load4(target, q, n), a = fabs(d);
        const float4 square = (0.5f * d) * d, line = delta * (a - 0.5f * delta);
        const float4 t = select(d, (float4)(-delta), d < -delta); /* per lane */
        store4(select(line, square, a <= delta), loss, q, n);
        store4(grad_scale * select(t, (float4)(delta), t > delta), dpred, q, n);
    }
}
