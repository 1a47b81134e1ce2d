/* What the merges share: their inputs' shapes and the sum's passes. */
#include <stdio.h>

#include "base/error.h"
#include "model/layers/merges.h"
#include "tandem/ops.h"

/* "layer 3" or "the model's input", for messages. */
static const char *input_name(const tdm_layer_plan *p, size_t k, char *buf, size_t size)
{
    if (p->inputs[k] == TDM_MODEL_INPUT)
        return "the model's input";
    if (p->inputs[k] < 0)
        snprintf(buf, size, "the model's input %d", -1 - p->inputs[k]);
    else
        snprintf(buf, size, "layer %d", p->inputs[k]);
    return buf;
}

tdm_status tdm_merge_plan_same_shape(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                                     const char *f)
{
    tdm_layer_plan *p = &plans[l];
    size_t first[3];
    tdm_model_input_image(o, plans, p, 0, first);
    for (size_t k = 1; k < p->input_count; k++) {
        size_t other[3];
        tdm_model_input_image(o, plans, p, k, other);
        if (other[0] == first[0] && other[1] == first[1] && other[2] == first[2])
            continue;
        char a[32], b[32];
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) merges %s, %zu x %zu x %zu, with %s, %zu x %zu x "
                        "%zu: its inputs have one shape",
                        f, l, tdm_layer_kind_name(o->layers[l].kind),
                        input_name(p, 0, a, sizeof a), first[0], first[1], first[2],
                        input_name(p, k, b, sizeof b), other[0], other[1], other[2]);
    }
    p->out_h = p->in_h, p->out_w = p->in_w, p->out_c = p->in_c;
    if (o->activation_dtype == TDM_F16 && p->input_count > 2)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: layer %zu (%s) merges %zu inputs; with activation_dtype f16 a "
                        "merge takes two",
                        f, l, tdm_layer_kind_name(o->layers[l].kind), p->input_count);
    return TDM_OK;
}

tdm_status tdm_merge_needs_f32(const tdm_model_options *o, size_t l, const char *f)
{
    if (o->activation_dtype != TDM_F16)
        return TDM_OK;
    return tdm_fail(TDM_ERR_UNSUPPORTED,
                    "%s: layer %zu (%s) with activation_dtype f16: its kernels take f32 "
                    "activations; use add, or f32 activations",
                    f, l, tdm_layer_kind_name(o->layers[l].kind));
}

/* z is stored as the first input; a second stored otherwise (the model's f32 input
 * beside f16 activations) is converted into z first. */
tdm_status tdm_merge_add_forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                                 const tdm_tensor *x, const tdm_forward_args *fa)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *z = v->b.z[l];
    const tdm_tensor *second = tdm_model_input_of(v, p, 1, fa->x);
    tdm_status s = TDM_OK;
    if (tdm_tensor_dtype(second) != tdm_tensor_dtype(z)) {
        s = tdm_op_cast(z, second);
        second = z;
    }
    if (s == TDM_OK)
        s = tdm_op_add(z, x, second);
    for (size_t k = 2; k < p->input_count && s == TDM_OK; k++)
        s = tdm_op_add(z, z, tdm_model_input_of(v, p, k, fa->x));
    return s;
}

/* d(x0 + x1 + ...) / d(xk) = 1 */
tdm_status tdm_merge_add_backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                                  const tdm_loss_args *a, const tdm_tensor *x)
{
    (void)a, (void)x;
    tdm_status s = TDM_OK;
    for (size_t k = 0; k < m->plans[l].input_count && s == TDM_OK; k++) {
        tdm_tensor *dx = tdm_model_input_grad(m, v, l, k);
        if (dx)
            s = tdm_tensor_copy(dx, v->b.g[l]);
    }
    return s;
}

tdm_status tdm_merge_onnx_chain(const tdm_model *m, size_t l, tdm_onnx_graph *g, const char *op,
                                const tdm_onnx_value *in, tdm_onnx_value *out)
{
    *out = tdm_onnx_op2(g, op, in[0], in[1]);
    for (size_t k = 2; k < m->plans[l].input_count; k++)
        *out = tdm_onnx_op2(g, op, *out, in[k]);
    return TDM_OK;
}

tdm_status tdm_merge_add_onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g,
                              const tdm_onnx_value *in, tdm_onnx_value *out)
{
    return tdm_merge_onnx_chain(m, l, g, "Add", in, out);
}
