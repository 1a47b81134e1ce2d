/* attention: multi-head self-attention over a sequence [T, C] (design/014). One
 * product gives Q, K and V side by side [examples * T, 3C]; each head (key width
 * d = C / heads) is read in place through strides by the batched products: scores
 * Q Kᵀ, the masked softmax of scores / sqrt(d), dropout on those weights in training,
 * the weights times V into the heads' outputs [examples * T, C], and a projection
 * [C, C] of them. The backward pass runs the same products transposed. */
#include <math.h>

#include "base/error.h"
#include "kernel/kernel_args.h"
#include "device/memory/tensor_impl.h"
#include "model/layers/layer_type.h"
#include "model/onnx/onnx_ops.h"
#include "model/onnx/onnx_weights.h"
#include "ops/ops_batched.h"
#include "tandem/ops.h"

/* Its work buffers: QKV and its gradient [T * 3C], the weights [heads * T * T],
 * the scores (then the weights' gradient), the dropped weights (then the scores'
 * gradient), and the heads' outputs [T * C] (then their gradient). */
enum { QKV, QKV_GRAD, WEIGHTS, SCORES, DROPPED, HEADS_OUT };
enum { QKV_KERNEL, QKV_BIAS, OUT_KERNEL, OUT_BIAS };

/* The layer's sizes. */
typedef struct attention_dims {
    size_t t, c, heads, d;
} attention_dims;

static attention_dims dims_of(const tdm_model *m, size_t l)
{
    const tdm_layer_plan *p = &m->plans[l];
    attention_dims a = {p->in_h * p->in_w, p->in_c, m->layers[l].heads, 0};
    a.d = a.c / a.heads;
    return a;
}

/* Head h of example b's block of d columns from `column` in a [examples * T, width]
 * matrix, and a [T, T] matrix of the [examples * heads * T, T] weights. */
static tdm_matrices head_block(const attention_dims *a, size_t width, size_t column)
{
    return (tdm_matrices){.start = column, .ld = width, .outer = a->t * width, .inner = a->d};
}

static tdm_matrices weights_of(const attention_dims *a)
{
    return (tdm_matrices){.ld = a->t, .outer = a->heads * a->t * a->t, .inner = a->t * a->t};
}

/* C_i = op(A_i) op(B_i) for every head of rows examples. */
static tdm_status product(const attention_dims *a, size_t rows, tdm_tensor *c, tdm_matrices lc,
                          const tdm_tensor *x, tdm_matrices lx, int tx, const tdm_tensor *y,
                          tdm_matrices ly, int ty, size_t m, size_t n, size_t k)
{
    tdm_batched_product p = {.m = m, .n = n, .k = k, .batch = rows * a->heads,
                             .heads = a->heads, .trans_a = tx, .trans_b = ty, .alpha = 1.0f,
                             .c = lc, .a = lx, .b = ly};
    return tdm_ops_gemm_batched(c, x, y, &p);
}

static tdm_tensor *work_of(const tdm_model_views *v, size_t l, size_t k)
{
    return v->b.work[tdm_model_work(l, k)];
}

/* The weights' dropout of a step (forward on the weights, backward on their
 * gradient), each example's mask keyed by its row in the global batch. */
static tdm_status drop(const tdm_model *m, size_t l, uint64_t step, size_t first_row,
                       tdm_tensor *y, const tdm_tensor *x)
{
    attention_dims a = dims_of(m, l);
    return tdm_op_dropout(y, x, m->layers[l].dropout, tdm_model_dropout_seed(m, step, l),
                          (uint32_t)(first_row * a.heads * a.t * a.t));
}

/* y = x W + b over examples * T rows, of t's width. */
static tdm_status position_product(size_t n, tdm_tensor *y, const tdm_tensor *x, size_t in,
                                   tdm_tensor *w, tdm_tensor *b, size_t out)
{
    tdm_tensor *ys = NULL, *xs = NULL;
    tdm_status s = tdm_layer_positions_view(y, n, out, &ys);
    if (s == TDM_OK)
        s = tdm_layer_positions_view(x, n, in, &xs);
    if (s == TDM_OK)
        s = tdm_matmul_mixed(NULL, ys, xs, 0, w, 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_op_bias_add(ys, ys, b);
    tdm_tensor_destroy(xs);
    tdm_tensor_destroy(ys);
    return s;
}

static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    attention_dims a = dims_of(m, l);
    size_t first = m->plans[l].first_var, n = v->rows * a.t;
    tdm_tensor *w[4];
    for (size_t k = 0; k < 4; k++)
        w[k] = tdm_variable_copy(m->vars[first + k], fa->copy);
    if (!v->rows)
        return TDM_OK;
    tdm_tensor *qkv = work_of(v, l, QKV), *weights = work_of(v, l, WEIGHTS);
    tdm_tensor *scores = work_of(v, l, SCORES), *heads = work_of(v, l, HEADS_OUT);
    tdm_status s = position_product(n, qkv, x, a.c, w[QKV_KERNEL], w[QKV_BIAS], 3 * a.c);
    if (s == TDM_OK) /* S = Q Kᵀ */
        s = product(&a, v->rows, scores, weights_of(&a), qkv, head_block(&a, 3 * a.c, 0), 0, qkv,
                    head_block(&a, 3 * a.c, a.c), 1, a.t, a.t, a.d);
    if (s == TDM_OK) {
        tdm_attention_softmax_args sm = {.p = tdm_tensor_view(weights),
                                         .s = tdm_tensor_view(scores),
                                         .rows = (uint32_t)(n * a.heads),
                                         .cols = (uint32_t)a.t,
                                         .causal = (uint32_t)m->layers[l].causal,
                                         .scale = (float)(1.0 / sqrt((double)a.d))};
        s = tdm_attention_softmax_run(weights->device, &sm);
    }
    const tdm_tensor *used = weights;
    if (s == TDM_OK && fa->training && m->layers[l].dropout > 0.0f) {
        s = drop(m, l, fa->step, fa->first_row, work_of(v, l, DROPPED), weights);
        used = work_of(v, l, DROPPED);
    }
    if (s == TDM_OK) /* O = P V */
        s = product(&a, v->rows, heads, head_block(&a, a.c, 0), used, weights_of(&a), 0, qkv,
                    head_block(&a, 3 * a.c, 2 * a.c), 0, a.t, a.d, a.t);
    if (s == TDM_OK)
        s = position_product(n, v->b.z[l], heads, a.c, w[OUT_KERNEL], w[OUT_BIAS], a.c);
    return s;
}

/* From dy: the projection's gradients and dO (into the heads' outputs, read first),
 * dV = Pᵀ dO, dP = dO Vᵀ, dS, dQ = dS K, dK = dSᵀ Q, then QKV's product's. */
static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *ga, const tdm_tensor *x)
{
    attention_dims a = dims_of(m, l);
    const tdm_layer_plan *p = &m->plans[l];
    size_t n = v->rows * a.t, c = a.c, rows = v->rows;
    tdm_tensor *const *grad = &ga->grads[p->first_var];
    tdm_tensor *qkv = work_of(v, l, QKV), *dqkv = work_of(v, l, QKV_GRAD);
    tdm_tensor *weights = work_of(v, l, WEIGHTS), *dweights = work_of(v, l, SCORES);
    tdm_tensor *dropped = work_of(v, l, DROPPED), *heads = work_of(v, l, HEADS_OUT);
    int dropout = m->layers[l].dropout > 0.0f;
    tdm_tensor *w_qkv = tdm_variable_local(m->vars[p->first_var + QKV_KERNEL], ga->rc);
    tdm_tensor *w_out = tdm_variable_local(m->vars[p->first_var + OUT_KERNEL], ga->rc);
    tdm_tensor *dy = NULL, *o = NULL, *xs = NULL, *dq = NULL, *dx = NULL;
    tdm_status s = tdm_layer_positions_view(v->b.g[l], n, c, &dy);
    if (s == TDM_OK)
        s = tdm_layer_positions_view(heads, n, c, &o);
    if (s == TDM_OK)
        s = tdm_layer_positions_view(x, n, c, &xs);
    if (s == TDM_OK)
        s = tdm_layer_positions_view(dqkv, n, 3 * c, &dq);
    if (s == TDM_OK)
        s = tdm_matmul_mixed(NULL, grad[OUT_KERNEL], o, 1, dy, 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_layer_position_sums(v, l, a.t, grad[OUT_BIAS], dy);
    if (s == TDM_OK)
        s = tdm_matmul_mixed(NULL, o, dy, 0, w_out, 1, 1.0f, 0.0f);
    if (s == TDM_OK) /* dV = Pᵀ dO, P as the forward pass used it */
        s = product(&a, rows, dqkv, head_block(&a, 3 * c, 2 * c), dropout ? dropped : weights,
                    weights_of(&a), 1, heads, head_block(&a, c, 0), 0, a.t, a.d, a.t);
    if (s == TDM_OK) /* dP = dO Vᵀ */
        s = product(&a, rows, dweights, weights_of(&a), heads, head_block(&a, c, 0), 0, qkv,
                    head_block(&a, 3 * c, 2 * c), 1, a.t, a.t, a.d);
    if (s == TDM_OK && dropout)
        s = drop(m, l, ga->step, ga->first_row, dweights, dweights);
    if (s == TDM_OK) {
        tdm_attention_softmax_grad_args g = {.ds = tdm_tensor_view(dropped),
                                             .dp = tdm_tensor_view(dweights),
                                             .p = tdm_tensor_view(weights),
                                             .rows = (uint32_t)(n * a.heads),
                                             .cols = (uint32_t)a.t,
                                             .causal = (uint32_t)m->layers[l].causal,
                                             .scale = (float)(1.0 / sqrt((double)a.d))};
        s = tdm_attention_softmax_grad_run(weights->device, &g);
    }
    if (s == TDM_OK) /* dQ = dS K */
        s = product(&a, rows, dqkv, head_block(&a, 3 * c, 0), dropped, weights_of(&a), 0, qkv,
                    head_block(&a, 3 * c, c), 0, a.t, a.d, a.t);
    if (s == TDM_OK) /* dK = dSᵀ Q */
        s = product(&a, rows, dqkv, head_block(&a, 3 * c, c), dropped, weights_of(&a), 1, qkv,
                    head_block(&a, 3 * c, 0), 0, a.t, a.d, a.t);
    if (s == TDM_OK)
        s = tdm_matmul_mixed(NULL, grad[QKV_KERNEL], xs, 1, dq, 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_layer_position_sums(v, l, a.t, grad[QKV_BIAS], dq);
    if (s == TDM_OK)
        s = tdm_layer_grads_ready(m, l, ga);
    tdm_tensor *input_grad = tdm_model_input_grad(m, v, l, 0);
    if (s == TDM_OK && input_grad)
        s = tdm_layer_positions_view(input_grad, n, c, &dx);
    if (s == TDM_OK && input_grad)
        s = tdm_matmul_mixed(NULL, dx, dq, 0, w_qkv, 1, 1.0f, 0.0f);
    tdm_tensor *all[] = {dx, dq, xs, o, dy};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        tdm_tensor_destroy(all[i]);
    return s;
}

/* Heads that divide the channels, a dropout rate in [0, 1). */
static tdm_status check(const tdm_layer *d, size_t l, const char *f)
{
    if (d->heads && d->dropout >= 0.0f && d->dropout < 1.0f)
        return TDM_OK;
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                    "%s: layer %zu (attention) has heads %zu and dropout %g; it needs heads > 0 "
                    "and a dropout rate in [0, 1)",
                    f, l, d->heads, (double)d->dropout);
}

/* A sequence whose channels the heads divide. */
static tdm_status plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l, const char *f)
{
    const tdm_layer_plan *p = &plans[l];
    size_t heads = o->layers[l].heads;
    if (p->in_c % heads)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (attention): %zu heads do not divide its input's %zu "
                        "channels (each head takes channels / heads)",
                        f, l, heads, p->in_c);
    return tdm_layer_sequence_plan(o, plans, l, f);
}

static tdm_shape variable_shape(const tdm_layer *d, const tdm_layer_plan *p, size_t k)
{
    (void)d;
    size_t c = p->in_c;
    const tdm_shape shapes[4] = {TDM_SHAPE(c, 3 * c), TDM_SHAPE(3 * c), TDM_SHAPE(c, c),
                                 TDM_SHAPE(c)};
    return shapes[k];
}

/* Glorot uniform over each product's fans (Keras' MultiHeadAttention); biases zero. */
static void initial(const tdm_model *m, size_t l, size_t k, float *value, size_t count)
{
    size_t c = m->plans[l].in_c;
    if (k == QKV_KERNEL || k == OUT_KERNEL)
        tdm_layer_uniform_of(m, l, k, sqrt(6.0 / (double)(2 * c)), value, count);
}

static void work(const tdm_model *m, size_t l, size_t columns[TDM_LAYER_WORK])
{
    attention_dims a = dims_of(m, l);
    columns[QKV] = columns[QKV_GRAD] = a.t * 3 * a.c;
    columns[WEIGHTS] = columns[SCORES] = columns[DROPPED] = a.heads * a.t * a.t;
    columns[HEADS_OUT] = a.t * a.c;
}

/* The bias gradients' sums over the examples, [T, 3C] (tdm_layer_position_sums). */
static tdm_status reserve(const tdm_model *m, size_t l, tdm_model_scratch *sc, size_t rows)
{
    (void)rows;
    attention_dims a = dims_of(m, l);
    return tdm_tensor_create(sc->device, TDM_F32, &TDM_SHAPE(a.t, 3 * a.c), &sc->b.partial[l]);
}

static const char *const variables[] = {"qkv_kernel", "qkv_bias", "output_kernel", "output_bias",
                                        NULL};

/* Q (k 0), K (1) or V (2) of [3, N, heads, T, d]: [N, heads, T, d]. */
static tdm_onnx_value part(tdm_onnx_graph *g, tdm_onnx_value qkv, int64_t k)
{
    return tdm_onnx_op2(g, "Gather", qkv, tdm_onnx_int64s(g, NULL, 0, &k));
}

/* [T, T]: 0 where row i reads column j (j <= i), -inf above the diagonal, so that
 * those weights are exactly 0 as the kernel writes them. Trilu cuts it from a filled
 * [T, T] in the graph rather than storing T * T floats for each layer. */
static tdm_onnx_value causal_mask(tdm_onnx_graph *g, size_t t)
{
    const int64_t two = 2, shape[2] = {(int64_t)t, (int64_t)t}, above = 1;
    tdm_onnx_value filled = tdm_onnx_op2(g, "Expand", tdm_onnx_scalar(g, -INFINITY),
                                         tdm_onnx_int64s(g, &two, 1, shape));
    const tdm_onnx_value in[2] = {filled, tdm_onnx_int64s(g, NULL, 0, &above)};
    tdm_onnx_value mask = tdm_onnx_node_begin(g, "Trilu", in, 2);
    tdm_onnx_attr_int(g, "upper", 1);
    tdm_onnx_node_end(g);
    return mask;
}

/* On [N, T, C]: QKV's MatMul and Add; Reshape and Transpose to [3, N, heads, T, d],
 * Gather of Q, K and V; Q Kᵀ times the scale, the causal mask added, Softmax; times
 * V; the heads side by side again (Transpose, Reshape) and the projection. */
static tdm_status onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out)
{
    attention_dims a = dims_of(m, l);
    tdm_onnx_value w[4];
    for (size_t k = 0; k < 4; k++) {
        tdm_status s = tdm_onnx_variable(g, m, l, k, &w[k]);
        if (s != TDM_OK)
            return s;
    }
    const int64_t split[4] = {(int64_t)a.t, 3, (int64_t)a.heads, (int64_t)a.d};
    const int64_t heads_first[5] = {2, 0, 3, 1, 4}, swap[4] = {0, 1, 3, 2}, back[4] = {0, 2, 1, 3};
    tdm_onnx_value x = tdm_onnx_positions(g, in[0], a.t, a.c);
    tdm_onnx_value qkv =
        tdm_onnx_op2(g, "Add", tdm_onnx_op2(g, "MatMul", x, w[QKV_KERNEL]), w[QKV_BIAS]);
    qkv = tdm_onnx_transpose(g, tdm_onnx_reshape(g, qkv, split, 4), heads_first, 5);
    tdm_onnx_value keys = tdm_onnx_transpose(g, part(g, qkv, 1), swap, 4);
    tdm_onnx_value scores = tdm_onnx_op2(g, "MatMul", part(g, qkv, 0), keys);
    scores = tdm_onnx_op2(g, "Mul", scores, tdm_onnx_scalar(g, (float)(1.0 / sqrt((double)a.d))));
    if (m->layers[l].causal)
        scores = tdm_onnx_op2(g, "Add", scores, causal_mask(g, a.t));
    tdm_onnx_value heads = tdm_onnx_op2(g, "MatMul", tdm_onnx_softmax(g, scores), part(g, qkv, 2));
    tdm_onnx_value o = tdm_onnx_positions(g, tdm_onnx_transpose(g, heads, back, 4), a.t, a.c);
    tdm_onnx_value y =
        tdm_onnx_op2(g, "Add", tdm_onnx_op2(g, "MatMul", o, w[OUT_KERNEL]), w[OUT_BIAS]);
    *out = tdm_onnx_flatten(g, y);
    return TDM_OK;
}

const tdm_layer_type tdm_layer_attention = {
    .variables = variables,
    .takes = TDM_TAKES_HEADS | TDM_TAKES_DROPOUT,
    .check = check,
    .plan = plan,
    .variable_shape = variable_shape,
    .initial = initial,
    .work = work,
    .reserve = reserve,
    .forward = forward,
    .backward = backward,
    .onnx = onnx,
};
