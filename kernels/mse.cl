/* mse: with d = pred[i] - target[i], i in [0, n):
 *   loss[i] = d * d;  dpred[i] = grad_scale * 2 * d */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_mse(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    loss += loss_off;
    dpred += dpred_off;
    pred += pred_off;
    target += target_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 d = load4(pred, q, n) - load4(target, q, n);
        store4(d * d, loss, q, n);
        store4(grad_scale * 2.0f * d, dpred, q, n);
    }
}
