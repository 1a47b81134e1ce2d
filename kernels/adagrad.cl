/* adagrad (TensorFlow's ApplyAdagradV2: eps outside the square root), i in [0, n):
 *   acc += g * g;  w -= lr * g / (sqrt(acc) + eps) */

__attribute__((reqd_work_group_size(64, 1, 1)))
kernel void tdm_adagrad(global float *w, global const float *g, global float *acc, uint w_off,
                        uint g_off, uint acc_off, uint n, float lr, float eps)
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
