/* batch_norm: TensorFlow's SyncBatchNormalization: in training each
 * replica sums x and x * x per channel over its rows and positions, one all-reduce
 * gives every replica the sums of the global batch, and all normalise with the same
 * statistics, so N replicas train as one device would on the global batch. The
 * backward pass all-reduces the sums of dy and dy * x_hat the same way. Every replica
 * writes the same global statistics into its copy of the moving mean and variance,
 * so their copies stay equal. */
#include <float.h>

#include "base/error.h"
#include "kernel/kernel_args.h"
#include "device/memory/tensor_impl.h"
#include "tandem/ops.h"
#include "model/layers/images.h"
#include "model/layers/normalise.h"
#include "model/onnx/onnx_ops.h"
#include "model/onnx/onnx_weights.h"

/* The rows of a layer's `norm` buffer [6, channels]. */
typedef struct norm_views {
    tdm_tensor *sums;     /* rows 0-1: what the all-reduce sums */
    tdm_tensor *sum, *sq; /* row 0: of x (of dy); row 1: of x * x (of dy * x_hat) */
    tdm_tensor *mean, *inv_std;
    tdm_tensor *tmp, *var; /* rows 4, 5: scratch */
} norm_views;

static void norm_views_free(norm_views *n)
{
    tdm_tensor *all[] = {n->sums, n->sum, n->sq, n->mean, n->inv_std, n->tmp, n->var};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        tdm_tensor_destroy(all[i]);
    *n = (norm_views){0};
}

static tdm_status norm_views_make(tdm_tensor *norm, size_t c, norm_views *n)
{
    *n = (norm_views){0};
    tdm_tensor **rows[] = {&n->sum, &n->sq, &n->mean, &n->inv_std, &n->tmp, &n->var};
    tdm_status s = tdm_tensor_slice(norm, 0, &TDM_SHAPE(2 * c), &n->sums);
    for (size_t r = 0; r < 6 && s == TDM_OK; r++)
        s = tdm_tensor_slice(norm, r * c, &TDM_SHAPE(c), rows[r]);
    if (s != TDM_OK)
        norm_views_free(n);
    return s;
}

/* 1 / (the global batch's rows times the positions of an example). */
static float inv_count(const tdm_layer_plan *p, size_t global_rows)
{
    return (float)(1.0 / ((double)global_rows * (double)(p->in_h * p->in_w)));
}

/* The moving statistics after a training step: m * moving + (1 - m) * the batch's
 * (its mean, and its variance sq * inv_count - mean^2, never below 0). */
static tdm_status update_moving(const tdm_model *m, size_t l, tdm_replica_context *rc,
                                const norm_views *n, float inv)
{
    const tdm_layer_plan *p = &m->plans[l];
    float momentum = tdm_layer_momentum(&m->layers[l]);
    tdm_tensor *mean = tdm_variable_local(m->states[p->first_state], rc);
    tdm_tensor *var = tdm_variable_local(m->states[p->first_state + 1], rc);
    tdm_status s = tdm_op_mul(n->tmp, n->mean, n->mean);
    if (s == TDM_OK)
        s = tdm_op_scale(n->var, n->sq, inv);
    if (s == TDM_OK)
        s = tdm_op_sub(n->var, n->var, n->tmp);
    if (s == TDM_OK)
        s = tdm_op_clip(n->var, n->var, 0.0f, FLT_MAX);
    if (s == TDM_OK)
        s = tdm_op_scale(mean, mean, momentum);
    if (s == TDM_OK)
        s = tdm_op_axpy(mean, 1.0f - momentum, n->mean);
    if (s == TDM_OK)
        s = tdm_op_scale(var, var, momentum);
    if (s == TDM_OK)
        s = tdm_op_axpy(var, 1.0f - momentum, n->var);
    return s;
}

/* mean and inv_std of the global batch (training) into n. */
static tdm_status batch_statistics(const tdm_model *m, const tdm_model_views *v, size_t l,
                                   const tdm_tensor *x, const tdm_forward_args *fa,
                                   const norm_views *n)
{
    const tdm_layer_plan *p = &m->plans[l];
    /* f16 activations are summed from an exact f32 copy in g, which the backward pass
     * fills only later; the squares go where the copy is, else in z */
    int half = tdm_tensor_dtype(x) == TDM_F16;
    const tdm_tensor *xf = half ? v->b.g[l] : x;
    tdm_tensor *squares = half ? v->b.g[l] : v->b.z[l];
    tdm_status s = half ? tdm_op_cast(v->b.g[l], x) : TDM_OK;
    if (s == TDM_OK)
        s = tdm_layer_channel_sums(v, l, n->sum, xf);
    if (s == TDM_OK)
        s = tdm_op_mul(squares, xf, xf);
    if (s == TDM_OK)
        s = tdm_layer_channel_sums(v, l, n->sq, squares);
    if (s == TDM_OK)
        s = tdm_replica_all_reduce(fa->rc, TDM_REDUCE_SUM, n->sums);
    float inv = inv_count(p, fa->global_rows);
    const tdm_batch_norm_stats_args a = {.mean = tdm_tensor_view(n->mean),
                                         .inv_std = tdm_tensor_view(n->inv_std),
                                         .sum = tdm_tensor_view(n->sum),
                                         .sumsq = tdm_tensor_view(n->sq),
                                         .cols = (uint32_t)p->in_c,
                                         .inv_count = inv,
                                         .epsilon = tdm_layer_epsilon(&m->layers[l])};
    if (s == TDM_OK)
        s = tdm_batch_norm_stats_run(n->mean->device, &a);
    return s == TDM_OK ? update_moving(m, l, fa->rc, n, inv) : s;
}

/* mean and inv_std of the moving statistics (inference): the mean as it is, inv_std
 * = 1 / sqrt(variance + epsilon), the stats kernel over a mean of 0. */
static tdm_status moving_statistics(const tdm_model *m, size_t l, size_t copy, const norm_views *n)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *mean = tdm_variable_copy(m->states[p->first_state], copy);
    tdm_tensor *var = tdm_variable_copy(m->states[p->first_state + 1], copy);
    tdm_status s = tdm_op_fill(n->tmp, 0.0f);
    if (s == TDM_OK)
        s = tdm_tensor_copy(n->mean, mean);
    const tdm_batch_norm_stats_args a = {.mean = tdm_tensor_view(n->var),
                                         .inv_std = tdm_tensor_view(n->inv_std),
                                         .sum = tdm_tensor_view(n->tmp),
                                         .sumsq = tdm_tensor_view(var),
                                         .cols = (uint32_t)p->in_c,
                                         .inv_count = 1.0f,
                                         .epsilon = tdm_layer_epsilon(&m->layers[l])};
    return s == TDM_OK ? tdm_batch_norm_stats_run(n->mean->device, &a) : s;
}

static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    const tdm_layer_plan *p = &m->plans[l];
    norm_views n;
    tdm_status s = norm_views_make(v->b.norm[l], p->in_c, &n);
    if (s != TDM_OK)
        return s;
    s = fa->training ? batch_statistics(m, v, l, x, fa, &n) : moving_statistics(m, l, fa->copy, &n);
    tdm_tensor *xs = NULL, *ys = NULL;
    if (s == TDM_OK && v->rows)
        s = tdm_norm_channels_view(x, v->rows, p, &xs);
    if (s == TDM_OK && v->rows)
        s = tdm_norm_channels_view(v->b.z[l], v->rows, p, &ys);
    if (s == TDM_OK && v->rows) {
        const tdm_batch_norm_apply_args a = {
            .y = tdm_tensor_view(ys),
            .x = tdm_tensor_view(xs),
            .mean = tdm_tensor_view(n.mean),
            .inv_std = tdm_tensor_view(n.inv_std),
            .gamma = tdm_tensor_view(tdm_variable_copy(m->vars[p->first_var], fa->copy)),
            .beta = tdm_tensor_view(tdm_variable_copy(m->vars[p->first_var + 1], fa->copy)),
            .rows = (uint32_t)(v->rows * p->in_h * p->in_w),
            .cols = (uint32_t)p->in_c};
        s = tdm_kernel_run_as(ys->device, tdm_batch_norm_apply_call(&a), tdm_tensor_dtype(xs));
    }
    tdm_tensor_destroy(ys);
    tdm_tensor_destroy(xs);
    norm_views_free(&n);
    return s;
}

static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *dgamma = a->grads[p->first_var], *dbeta = a->grads[p->first_var + 1];
    tdm_tensor *xs = NULL, *dys = NULL, *ts = NULL, *dxs = NULL;
    norm_views n;
    tdm_status s = norm_views_make(v->b.norm[l], p->in_c, &n);
    if (s != TDM_OK)
        return s;
    uint32_t rows = (uint32_t)(v->rows * p->in_h * p->in_w), cols = (uint32_t)p->in_c;
    /* dy * x_hat's scratch: z, this layer's output, which no pass needs any more; with
     * f16 activations dx's buffer (an f16 input is a layer's, which takes a
     * gradient), which dx fills only at the end */
    tdm_tensor *dx = tdm_model_input_grad(m, v, l, 0);
    tdm_tensor *scratch = tdm_tensor_dtype(x) == TDM_F16 && dx ? dx : v->b.z[l];
    if (rows) {
        s = tdm_norm_channels_view(x, v->rows, p, &xs);
        if (s == TDM_OK)
            s = tdm_norm_channels_view(v->b.g[l], v->rows, p, &dys);
        if (s == TDM_OK)
            s = tdm_norm_channels_view(scratch, v->rows, p, &ts);
        const tdm_batch_norm_xhat_dy_args xd = {.xhat_dy = tdm_tensor_view(ts),
                                                .dy = tdm_tensor_view(dys),
                                                .x = tdm_tensor_view(xs),
                                                .mean = tdm_tensor_view(n.mean),
                                                .inv_std = tdm_tensor_view(n.inv_std),
                                                .rows = rows,
                                                .cols = cols};
        if (s == TDM_OK) /* the forward's x: f32 or f16 */
            s = tdm_kernel_run_as(ts->device, tdm_batch_norm_xhat_dy_call(&xd),
                                  tdm_tensor_dtype(xs));
    }
    /* this replica's sums are gamma's and beta's gradients, which the train op sums */
    if (s == TDM_OK)
        s = tdm_layer_channel_sums(v, l, n.sum, v->b.g[l]);
    if (s == TDM_OK)
        s = rows ? tdm_layer_channel_sums(v, l, n.sq, scratch) : tdm_op_fill(n.sq, 0.0f);
    if (s == TDM_OK)
        s = tdm_op_scale(dgamma, n.sq, 1.0f);
    if (s == TDM_OK)
        s = tdm_op_scale(dbeta, n.sum, 1.0f);
    if (s == TDM_OK)
        s = tdm_layer_grads_ready(m, l, a);
    /* the input's gradient needs the global sums */
    if (s == TDM_OK && dx)
        s = tdm_replica_all_reduce(a->rc, TDM_REDUCE_SUM, n.sums);
    if (s == TDM_OK && dx && rows)
        s = tdm_norm_channels_view(dx, v->rows, p, &dxs);
    if (s == TDM_OK && dx && rows) {
        const tdm_batch_norm_grad_args g = {
            .dx = tdm_tensor_view(dxs),
            .dy = tdm_tensor_view(dys),
            .x = tdm_tensor_view(xs),
            .mean = tdm_tensor_view(n.mean),
            .inv_std = tdm_tensor_view(n.inv_std),
            .gamma = tdm_tensor_view(tdm_variable_local(m->vars[p->first_var], a->rc)),
            .sum_dy = tdm_tensor_view(n.sum),
            .sum_dy_xhat = tdm_tensor_view(n.sq),
            .rows = rows,
            .cols = cols,
            .inv_count = inv_count(p, a->global_batch_size)};
        s = tdm_kernel_run_as(dxs->device, tdm_batch_norm_grad_call(&g), tdm_tensor_dtype(xs));
    }
    tdm_tensor_destroy(dxs);
    tdm_tensor_destroy(ts);
    tdm_tensor_destroy(dys);
    tdm_tensor_destroy(xs);
    norm_views_free(&n);
    return s;
}

static const char *const states[] = {"moving_mean", "moving_variance", NULL};

/* The per-channel sums and statistics of its passes, and the partial sums. */
static tdm_status reserve(const tdm_model *m, size_t l, tdm_model_scratch *sc, size_t rows)
{
    (void)rows;
    tdm_status s = tdm_layer_reserve_partial(m, l, sc);
    return s == TDM_OK ? tdm_tensor_create(sc->device, TDM_F32,
                                           &TDM_SHAPE(6, m->plans[l].out_c), &sc->b.norm[l])
                       : s;
}

/* The inference form, with the moving statistics, as batch_norm_apply computes it:
 * (x - mean) * (1 / sqrt(variance + epsilon)) * gamma + beta, per channel. */
static tdm_status onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_onnx_value gamma, beta, mean, variance;
    tdm_status s = tdm_onnx_variable(g, m, l, 0, &gamma);
    if (s == TDM_OK)
        s = tdm_onnx_variable(g, m, l, 1, &beta);
    if (s == TDM_OK)
        s = tdm_onnx_state(g, m, l, 0, &mean);
    if (s == TDM_OK)
        s = tdm_onnx_state(g, m, l, 1, &variance);
    if (s != TDM_OK)
        return s;
    tdm_onnx_value epsilon = tdm_onnx_scalar(g, tdm_layer_epsilon(&m->layers[l]));
    tdm_onnx_value inv_std = tdm_onnx_op1(
        g, "Reciprocal", tdm_onnx_op1(g, "Sqrt", tdm_onnx_op2(g, "Add", variance, epsilon)));
    tdm_onnx_value x = tdm_onnx_positions(g, in[0], p->in_h * p->in_w, p->in_c);
    tdm_onnx_value x_hat = tdm_onnx_op2(g, "Mul", tdm_onnx_op2(g, "Sub", x, mean), inv_std);
    tdm_onnx_value y = tdm_onnx_op2(g, "Add", tdm_onnx_op2(g, "Mul", x_hat, gamma), beta);
    *out = tdm_onnx_flatten(g, y);
    return TDM_OK;
}

const tdm_layer_type tdm_layer_batch_norm = {
    .variables = tdm_gamma_and_beta,
    .states = states,
    .takes = TDM_TAKES_EPSILON | TDM_TAKES_MOMENTUM,
    .check = tdm_norm_check,
    .plan = tdm_norm_plan,
    .variable_shape = tdm_norm_variable_shape,
    .initial = tdm_norm_initial,
    .reserve = reserve,
    .forward = forward,
    .backward = backward,
    .onnx = onnx,
};
