/* multiply: y = the elementwise product of two or more inputs of one shape (Keras'
 * Multiply). f32 activations: mul has no f16 twin. */
#include "model/layers/merges.h"
#include "tandem/ops.h"

static tdm_status plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l, const char *f)
{
    tdm_status s = tdm_merge_needs_f32(o, l, f);
    return s == TDM_OK ? tdm_merge_plan_same_shape(o, plans, l, f) : s;
}

static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *z = v->b.z[l];
    tdm_status s = tdm_op_mul(z, x, tdm_model_input_of(v, p, 1, fa->x));
    for (size_t k = 2; k < p->input_count && s == TDM_OK; k++)
        s = tdm_op_mul(z, z, tdm_model_input_of(v, p, k, fa->x));
    return s;
}

/* d(x0 * x1 * ...) / d(xk) = the product of the others, times g in the inputs'
 * order. */
static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    (void)x;
    const tdm_layer_plan *p = &m->plans[l];
    tdm_status s = TDM_OK;
    for (size_t k = 0; k < p->input_count && s == TDM_OK; k++) {
        tdm_tensor *dx = tdm_model_input_grad(m, v, l, k);
        const tdm_tensor *from = v->b.g[l];
        for (size_t j = 0; j < p->input_count && dx && s == TDM_OK; j++)
            if (j != k) {
                s = tdm_op_mul(dx, from, tdm_model_input_of(v, p, j, a->features));
                from = dx;
            }
    }
    return s;
}

/* Mul, the inputs in their order. */
static tdm_status onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out)
{
    return tdm_merge_onnx_chain(m, l, g, "Mul", in, out);
}

const tdm_layer_type tdm_layer_multiply = {
    .plan = plan,
    .forward = forward,
    .backward = backward,
    .onnx = onnx,
};
