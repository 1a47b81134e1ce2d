/* sigmoid_xent: binary cross-entropy on logits x = logits[i] against targets
 * z = targets[i] in [0, 1], i in [0, n):
 *   loss[i] = (max(x, 0) - x * z) + log1p(exp(-|x|))
 *   dlogits[i] = grad_scale * (sigmoid(x) - z)
 * TensorFlow's form without overflow: exp never sees a positive argument, and
 * max(x, 0) - x * z is x * (1 - z) or -x * z, never past |x|. max(x, 0) is a select
 * (x > 0 ? x : 0; a NaN x still gives NaN through x * z); sigmoid is the sigmoid
 * kernel's formula (activations.clh). */
#include "activations.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_sigmoid_xent(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    loss += loss_off;
    dlogits += dlogits_off;
    logits += logits_off;
    targets += targets_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 x = load4(logits, q, n), z = load4(targets, q, n);
        const float4 positive = select((float4)(0.0f), x, x > 0.0f); /* per lane */
        store4((positive - x * z) + log1p(exp(-fabs(x))), loss, q, n);
        store4(grad_scale * (tdm_sigmoid4(x) - z), dlogits, q, n);
    }
}
