/* The embedding layer: the model's input values are ids, each looked up as a row of
 * the table; its gradient sums the rows of d(loss) / d(output) that each id took, in
 * order, so that it is the same bits on every device and replica count. */
#include "base/error.h"
#include "tandem/ops.h"
#include "model/model_impl.h"

/* t [rows, positions * units] as [rows * positions, units]: a row per id. */
static tdm_status per_id(const tdm_model *m, tdm_tensor *t, tdm_tensor **out)
{
    size_t units = m->layers[0].units;
    tdm_shape shape = tdm_tensor_shape(t);
    size_t ids = shape.dims[0] * (shape.dims[1] / units);
    return tdm_tensor_slice(t, 0, &TDM_SHAPE(ids, units), out);
}

/* The rows are gathered as the table's f32 words; with f16 activations into the
 * layer's gradient buffer, free until the backward pass, and then rounded into z. */
tdm_status tdm_model_embedding_forward(const tdm_model *m, const tdm_model_views *v,
                                       const tdm_tensor *x, size_t copy)
{
    tdm_tensor *y = NULL;
    int half = tdm_tensor_dtype(v->b.z[0]) == TDM_F16;
    tdm_status s = tdm_op_cast(v->b.ids, x);
    if (s == TDM_OK)
        s = per_id(m, half ? v->b.g[0] : v->b.z[0], &y);
    if (s == TDM_OK)
        s = tdm_op_embedding_lookup(y, tdm_variable_copy(m->vars[0], copy), v->b.ids);
    if (s == TDM_OK && half)
        s = tdm_op_cast(v->b.z[0], v->b.g[0]);
    tdm_tensor_destroy(y);
    return s;
}

tdm_status tdm_model_embedding_backward(const tdm_model *m, const tdm_model_views *v,
                                        const tdm_loss_args *a)
{
    tdm_tensor *dy = NULL;
    tdm_status s = per_id(m, v->b.g[0], &dy);
    if (s == TDM_OK)
        s = tdm_op_embedding_grad(a->grads[0], dy, v->b.ids);
    tdm_tensor_destroy(dy);
    return s == TDM_OK ? tdm_loss_args_gradient_ready(a, 0) : s;
}
