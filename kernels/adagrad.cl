/* adagrad (TensorFlow's ApplyAdagradV2: eps outside the square root), i in [0, n):
 *   acc += g * g;  w -= lr * g / (sqrt(acc) + eps) */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_adagrad(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    w += w_off;
    g += g_off;
    acc += acc_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 gi = load4(g, q, n);
        const float4 a = load4(acc, q, n) + gi * gi;

        store4(a, acc, q, n);
        store4(load4(w, q, n) - lr * gi / (sqrt(a) + eps), w, q, n);
    }
}
