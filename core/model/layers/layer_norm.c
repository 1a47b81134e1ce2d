/* layer_norm: each example's position normalised over its channels with its own
 * statistics, then scaled by gamma and shifted by beta; no cross-replica part. */
#include "base/error.h"
#include "kernel/kernel_args.h"
#include "device/memory/tensor_impl.h"
#include "model/layers/images.h"
#include "model/layers/normalise.h"
#include "tandem/ops.h"
#include "model/onnx/onnx_ops.h"
#include "model/onnx/onnx_weights.h"

/* A layer norm's per-position means and inv_stds: the first and second halves of
 * its row_stats view. */
static tdm_status row_statistics(const tdm_model_views *v, size_t l, size_t positions,
                                 tdm_tensor **mean, tdm_tensor **inv_std)
{
    size_t n = v->rows * positions;
    tdm_status s = tdm_tensor_slice(v->b.row_stats[l], 0, &TDM_SHAPE(n), mean);
    return s == TDM_OK ? tdm_tensor_slice(v->b.row_stats[l], n, &TDM_SHAPE(n), inv_std) : s;
}

static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    const tdm_layer_plan *p = &m->plans[l];
    size_t positions = p->in_h * p->in_w;
    if (!v->rows)
        return TDM_OK;
    tdm_tensor *xs = NULL, *ys = NULL, *mean = NULL, *inv_std = NULL;
    tdm_status s = tdm_norm_channels_view(x, v->rows, p, &xs);
    if (s == TDM_OK)
        s = tdm_norm_channels_view(v->b.z[l], v->rows, p, &ys);
    if (s == TDM_OK)
        s = row_statistics(v, l, positions, &mean, &inv_std);
    if (s == TDM_OK) {
        const tdm_layer_norm_args a = {
            .y = tdm_tensor_view(ys),
            .mean = tdm_tensor_view(mean),
            .inv_std = tdm_tensor_view(inv_std),
            .x = tdm_tensor_view(xs),
            .gamma = tdm_tensor_view(tdm_variable_copy(m->vars[p->first_var], fa->copy)),
            .beta = tdm_tensor_view(tdm_variable_copy(m->vars[p->first_var + 1], fa->copy)),
            .rows = (uint32_t)(v->rows * positions),
            .cols = (uint32_t)p->in_c,
            .inv_cols = (float)(1.0 / (double)p->in_c),
            .epsilon = tdm_layer_epsilon(&m->layers[l])};
        s = tdm_kernel_run_as(ys->device, tdm_layer_norm_call(&a), tdm_tensor_dtype(xs));
    }
    tdm_tensor_destroy(inv_std);
    tdm_tensor_destroy(mean);
    tdm_tensor_destroy(ys);
    tdm_tensor_destroy(xs);
    return s;
}

static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    const tdm_layer_plan *p = &m->plans[l];
    size_t positions = p->in_h * p->in_w;
    tdm_tensor *dgamma = a->grads[p->first_var], *dbeta = a->grads[p->first_var + 1];
    tdm_tensor *xs = NULL, *dys = NULL, *dxs = NULL, *xds = NULL, *mean = NULL, *inv_std = NULL;
    tdm_status s = tdm_norm_channels_view(x, v->rows, p, &xs);
    if (s == TDM_OK)
        s = tdm_norm_channels_view(v->b.g[l], v->rows, p, &dys);
    /* dx is the input's gradient; where the input is the model's, z is scratch */
    tdm_tensor *dx = tdm_model_input_grad(m, v, l, 0);
    if (s == TDM_OK)
        s = tdm_norm_channels_view(dx ? dx : v->b.z[l], v->rows, p, &dxs);
    if (s == TDM_OK)
        s = tdm_norm_channels_view(v->b.col[l], v->rows, p, &xds);
    if (s == TDM_OK)
        s = row_statistics(v, l, positions, &mean, &inv_std);
    if (s == TDM_OK && v->rows) {
        const tdm_layer_norm_grad_args g = {
            .dx = tdm_tensor_view(dxs),
            .xhat_dy = tdm_tensor_view(xds),
            .dy = tdm_tensor_view(dys),
            .x = tdm_tensor_view(xs),
            .mean = tdm_tensor_view(mean),
            .inv_std = tdm_tensor_view(inv_std),
            .gamma = tdm_tensor_view(tdm_variable_local(m->vars[p->first_var], a->rc)),
            .rows = (uint32_t)(v->rows * positions),
            .cols = (uint32_t)p->in_c,
            .inv_cols = (float)(1.0 / (double)p->in_c)};
        s = tdm_kernel_run_as(dxs->device, tdm_layer_norm_grad_call(&g), tdm_tensor_dtype(xs));
    }
    if (s == TDM_OK)
        s = tdm_layer_channel_sums(v, l, dgamma, v->b.col[l]);
    if (s == TDM_OK)
        s = tdm_layer_channel_sums(v, l, dbeta, v->b.g[l]);
    if (s == TDM_OK)
        s = tdm_layer_grads_ready(m, l, a);
    tdm_tensor *all[] = {inv_std, mean, xds, dxs, dys, xs};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        tdm_tensor_destroy(all[i]);
    return s;
}

/* The partial sums, each position's mean and inv_std [rows, 2 * positions], and dy *
 * x_hat [rows, features]. */
static tdm_status reserve(const tdm_model *m, size_t l, tdm_model_scratch *sc, size_t rows)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_model_buffers *b = &sc->b;
    tdm_status s = tdm_layer_reserve_partial(m, l, sc);
    if (s == TDM_OK)
        s = tdm_tensor_create(sc->device, TDM_F32, &TDM_SHAPE(rows, 2 * p->out_h * p->out_w),
                              &b->row_stats[l]);
    if (s == TDM_OK)
        s = tdm_tensor_create(sc->device, TDM_F32, &TDM_SHAPE(rows, tdm_plan_out_features(p)),
                              &b->col[l]);
    return s;
}

/* LayerNormalization over each position's channels. */
static tdm_status onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_onnx_value norm_in[3];
    tdm_status s = tdm_onnx_variable(g, m, l, 0, &norm_in[1]);
    if (s == TDM_OK)
        s = tdm_onnx_variable(g, m, l, 1, &norm_in[2]);
    if (s != TDM_OK)
        return s;
    norm_in[0] = tdm_onnx_positions(g, in[0], p->in_h * p->in_w, p->in_c);
    tdm_onnx_value y = tdm_onnx_node_begin(g, "LayerNormalization", norm_in, 3);
    tdm_onnx_attr_int(g, "axis", -1);
    tdm_onnx_attr_float(g, "epsilon", tdm_layer_epsilon(&m->layers[l]));
    tdm_onnx_node_end(g);
    *out = tdm_onnx_flatten(g, y);
    return TDM_OK;
}

const tdm_layer_type tdm_layer_layer_norm = {
    .variables = tdm_gamma_and_beta,
    .takes = TDM_TAKES_EPSILON,
    .check = tdm_norm_check,
    .plan = tdm_norm_plan,
    .variable_shape = tdm_norm_variable_shape,
    .initial = tdm_norm_initial, /* gamma 1, beta 0: the identity, as Keras starts */
    .reserve = reserve,
    .forward = forward,
    .backward = backward,
    .onnx = onnx,
};
