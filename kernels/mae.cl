/* mae: with d = pred[i] - target[i], i in [0, n):
 *   loss[i] = |d|;  dpred[i] = grad_scale * sign(d)
 * sign(d) is 1, -1, +0 for either zero, and d itself (NaN) where d is NaN: selects,
 * not OpenCL's sign(), so that every backend gives the same zero. Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_mae(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    loss += loss_off;
    dpred += dpred_off;
    pred += pred_off;
    target += target_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 d = load4(pred, q, n) - load4(target, q, n);
        float4 s = select(d, (float4)(0.0f), d == 0.0f); /* a vector condition selects per lane */
        s = select(s, (float4)(-1.0f), d < 0.0f);
        s = select(s, (float4)(1.0f), d > 0.0f);
        store4(fabs(d), loss, q, n);
        store4(grad_scale * s, dpred, q, n);
    }
}
