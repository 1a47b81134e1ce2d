/* dense: y = dropout(act(x W + b)), its input flattened: a kernel [in, units] and a
 * bias [units]. */
#include "base/error.h"
#include "model/layers/layer_type.h"
#include "tandem/ops.h"
#include "model/onnx/onnx_weights.h"

const char *const tdm_kernel_and_bias[] = {"kernel", "bias", NULL};

tdm_status tdm_layer_check_units(const tdm_layer *d, size_t l, const char *f)
{
    if (!d->units || (unsigned)d->activation > TDM_ACT_GELU ||
        !(d->dropout >= 0.0f && d->dropout < 1.0f))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu needs units > 0, a known activation and a dropout "
                        "rate in [0, 1)",
                        f, l);
    return TDM_OK;
}

static tdm_status plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l, const char *f)
{
    (void)f;
    plans[l].out_h = plans[l].out_w = 1;
    plans[l].out_c = o->layers[l].units;
    return TDM_OK;
}

static tdm_shape variable_shape(const tdm_layer *d, const tdm_layer_plan *p, size_t k)
{
    return k ? TDM_SHAPE(d->units) : TDM_SHAPE(tdm_plan_in_features(p), d->units);
}

static void initial(const tdm_model *m, size_t l, size_t k, float *value, size_t count)
{
    if (k == 0)
        tdm_layer_glorot(m, l, tdm_plan_in_features(&m->plans[l]), m->layers[l].units, value,
                         count);
}

static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    size_t first = m->plans[l].first_var;
    tdm_tensor *w = tdm_variable_copy(m->vars[first], fa->copy);
    tdm_tensor *b = tdm_variable_copy(m->vars[first + 1], fa->copy);
    tdm_tensor *product = NULL;
    tdm_status s = tdm_model_product(m, v, l, &TDM_SHAPE(v->rows, m->layers[l].units), &product);
    if (s == TDM_OK)
        s = tdm_matmul_mixed(tdm_model_layer_halves(v, l), product, x, 0, w, 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_op_bias_activation(m->layers[l].activation, v->b.a[l], v->b.z[l], product, b);
    tdm_tensor_destroy(product);
    return s;
}

static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *dk = a->grads[p->first_var]; /* the bias's: with the activation's */
    tdm_status s =
        tdm_matmul_mixed(tdm_model_layer_halves(v, l), dk, x, 1, v->b.g[l], 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_layer_grads_ready(m, l, a);
    tdm_tensor *dx = tdm_model_input_grad(m, v, l, 0);
    if (s != TDM_OK || !dx)
        return s;
    tdm_tensor *kernel = tdm_variable_local(m->vars[p->first_var], a->rc);
    return tdm_matmul_mixed(tdm_model_layer_halves(v, l), dx, v->b.g[l], 0, kernel, 1, 1.0f, 0.0f);
}

static void from_kernel(tdm_layer *d, const uint64_t *dims)
{
    d->units = (size_t)dims[1];
}

/* MatMul and Add: the kernel [in, units] multiplies as it does here. */
static tdm_status onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out)
{
    tdm_onnx_value kernel, bias;
    tdm_status s = tdm_onnx_variable(g, m, l, 0, &kernel);
    if (s == TDM_OK)
        s = tdm_onnx_variable(g, m, l, 1, &bias);
    if (s == TDM_OK)
        *out = tdm_onnx_op2(g, "Add", tdm_onnx_op2(g, "MatMul", in[0], kernel), bias);
    return s;
}

const tdm_layer_type tdm_layer_dense = {
    .variables = tdm_kernel_and_bias,
    .takes = TDM_TAKES_UNITS | TDM_TAKES_ACTIVATION,
    .flattens = 1,
    .sizes_input = 1,
    .bias_grad_with_activation = 1,
    .storage = TDM_STORE_HALF,
    .kernel_rank = 2,
    .check = tdm_layer_check_units,
    .plan = plan,
    .variable_shape = variable_shape,
    .product_columns = tdm_plan_in_features,
    .initial = initial,
    .forward = forward,
    .backward = backward,
    .from_kernel = from_kernel,
    .onnx = onnx,
};
