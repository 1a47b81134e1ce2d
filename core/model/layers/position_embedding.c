/* position_embedding: y = x + P, a learned vector per position of a sequence: the
 * table P [positions, channels] is a bias over every feature of an example, and its
 * gradient the sum over the batch. */
#include "base/error.h"
#include "model/layers/layer_type.h"
#include "model/onnx/onnx_ops.h"
#include "model/onnx/onnx_weights.h"
#include "tandem/ops.h"

/* P as one row of positions * channels, the bias kernels' shape. */
static tdm_status table_row(const tdm_layer_plan *p, tdm_tensor *table, tdm_tensor **out)
{
    return tdm_tensor_slice(table, 0, &TDM_SHAPE(tdm_plan_in_features(p)), out);
}

static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *row = NULL;
    tdm_status s = table_row(p, tdm_variable_copy(m->vars[p->first_var], fa->copy), &row);
    if (s == TDM_OK)
        s = tdm_op_bias_add(v->b.z[l], x, row);
    tdm_tensor_destroy(row);
    return s;
}

/* dP = the sum of dy over the examples; dx = dy. */
static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    (void)x;
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *row = NULL;
    tdm_status s = table_row(p, a->grads[p->first_var], &row);
    if (s == TDM_OK)
        s = tdm_op_sum_rows(row, v->b.g[l]);
    tdm_tensor_destroy(row);
    if (s == TDM_OK)
        s = tdm_layer_grads_ready(m, l, a);
    tdm_tensor *dx = tdm_model_input_grad(m, v, l, 0);
    return s == TDM_OK && dx ? tdm_tensor_copy(dx, v->b.g[l]) : s;
}

static tdm_shape variable_shape(const tdm_layer *d, const tdm_layer_plan *p, size_t k)
{
    (void)d, (void)k;
    return TDM_SHAPE(p->in_h * p->in_w, p->in_c);
}

/* Keras' uniform in [-0.05, 0.05], as the token embedding starts. */
static void initial(const tdm_model *m, size_t l, size_t k, float *value, size_t count)
{
    (void)k;
    tdm_layer_uniform(m, l, 0.05, value, count);
}

static const char *const variables[] = {"positions", NULL};

/* Add of the table [positions, channels] to [N, positions, channels]. */
static tdm_status onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_onnx_value table;
    tdm_status s = tdm_onnx_variable(g, m, l, 0, &table);
    if (s != TDM_OK)
        return s;
    tdm_onnx_value x = tdm_onnx_positions(g, in[0], p->in_h * p->in_w, p->in_c);
    *out = tdm_onnx_flatten(g, tdm_onnx_op2(g, "Add", x, table));
    return TDM_OK;
}

const tdm_layer_type tdm_layer_position_embedding = {
    .variables = variables,
    .plan = tdm_layer_sequence_plan,
    .variable_shape = variable_shape,
    .initial = initial,
    .forward = forward,
    .backward = backward,
    .onnx = onnx,
};
