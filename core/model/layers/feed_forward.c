/* feed_forward: a transformer block's position-wise MLP, y = gelu(x W1 + b1) W2 + b2
 * over each position's channels: two products over examples * positions rows, the
 * hidden layer's product and activation kept in its work buffers. */
#include <math.h>

#include "base/error.h"
#include "model/layers/layer_type.h"
#include "model/onnx/onnx_ops.h"
#include "model/onnx/onnx_weights.h"
#include "tandem/ops.h"

enum { HIDDEN_Z, HIDDEN_A, HIDDEN_GRAD };

static size_t positions_of(const tdm_layer_plan *p)
{
    return p->in_h * p->in_w;
}

/* units 0: four times the channels, as GPT's. */
static size_t hidden_of(const tdm_layer *d, const tdm_layer_plan *p)
{
    return d->units ? d->units : 4 * p->in_c;
}

typedef struct ffn_views {
    tdm_tensor *x, *y, *dy, *hz, *ha, *dh;
} ffn_views;

static void views_free(ffn_views *f)
{
    tdm_tensor *all[] = {f->x, f->y, f->dy, f->hz, f->ha, f->dh};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        tdm_tensor_destroy(all[i]);
}

/* Every operand as [examples * positions, its width]. */
static tdm_status views_make(const tdm_model *m, const tdm_model_views *v, size_t l,
                             const tdm_tensor *x, ffn_views *f)
{
    const tdm_layer_plan *p = &m->plans[l];
    size_t n = v->rows * positions_of(p), c = p->in_c, h = hidden_of(&m->layers[l], p);
    tdm_tensor *const *work = &v->b.work[tdm_model_work(l, 0)];
    *f = (ffn_views){0};
    tdm_status s = tdm_layer_positions_view(x, n, c, &f->x);
    if (s == TDM_OK)
        s = tdm_layer_positions_view(v->b.z[l], n, c, &f->y);
    if (s == TDM_OK)
        s = tdm_layer_positions_view(v->b.g[l], n, c, &f->dy);
    if (s == TDM_OK)
        s = tdm_layer_positions_view(work[HIDDEN_Z], n, h, &f->hz);
    if (s == TDM_OK)
        s = tdm_layer_positions_view(work[HIDDEN_A], n, h, &f->ha);
    if (s == TDM_OK && work[HIDDEN_GRAD])
        s = tdm_layer_positions_view(work[HIDDEN_GRAD], n, h, &f->dh);
    return s;
}

static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    size_t first = m->plans[l].first_var;
    tdm_tensor *w[4];
    for (size_t k = 0; k < 4; k++)
        w[k] = tdm_variable_copy(m->vars[first + k], fa->copy);
    ffn_views f;
    tdm_status s = views_make(m, v, l, x, &f);
    if (s == TDM_OK && v->rows)
        s = tdm_matmul_mixed(NULL, f.hz, f.x, 0, w[0], 0, 1.0f, 0.0f);
    if (s == TDM_OK && v->rows)
        s = tdm_op_bias_activation(TDM_ACT_GELU, f.ha, f.hz, f.hz, w[1]);
    if (s == TDM_OK && v->rows)
        s = tdm_matmul_mixed(NULL, f.y, f.ha, 0, w[2], 0, 1.0f, 0.0f);
    if (s == TDM_OK && v->rows)
        s = tdm_op_bias_add(f.y, f.y, w[3]);
    views_free(&f);
    return s;
}

static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *const *grad = &a->grads[p->first_var];
    tdm_tensor *w1 = tdm_variable_local(m->vars[p->first_var], a->rc);
    tdm_tensor *w2 = tdm_variable_local(m->vars[p->first_var + 2], a->rc);
    ffn_views f;
    tdm_status s = views_make(m, v, l, x, &f);
    if (s == TDM_OK) /* dW2 = ha^T dy, db2, dh = dy W2^T, then through GELU */
        s = tdm_matmul_mixed(NULL, grad[2], f.ha, 1, f.dy, 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_layer_position_sums(v, l, positions_of(p), grad[3], f.dy);
    if (s == TDM_OK)
        s = tdm_matmul_mixed(NULL, f.dh, f.dy, 0, w2, 1, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_op_activation_grad(TDM_ACT_GELU, f.dh, f.dh, f.hz, f.ha);
    if (s == TDM_OK)
        s = tdm_matmul_mixed(NULL, grad[0], f.x, 1, f.dh, 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_layer_position_sums(v, l, positions_of(p), grad[1], f.dh);
    if (s == TDM_OK)
        s = tdm_layer_grads_ready(m, l, a);
    tdm_tensor *dx = tdm_model_input_grad(m, v, l, 0), *dxs = NULL;
    if (s == TDM_OK && dx)
        s = tdm_layer_positions_view(dx, v->rows * positions_of(p), p->in_c, &dxs);
    if (s == TDM_OK && dx)
        s = tdm_matmul_mixed(NULL, dxs, f.dh, 0, w1, 1, 1.0f, 0.0f);
    tdm_tensor_destroy(dxs);
    views_free(&f);
    return s;
}

/* W1 [C, hidden], b1 [hidden], W2 [hidden, C], b2 [C]. */
static tdm_shape variable_shape(const tdm_layer *d, const tdm_layer_plan *p, size_t k)
{
    size_t c = p->in_c, h = hidden_of(d, p);
    const tdm_shape shapes[4] = {TDM_SHAPE(c, h), TDM_SHAPE(h), TDM_SHAPE(h, c), TDM_SHAPE(c)};
    return shapes[k];
}

/* He uniform into GELU, Glorot out of it; biases zero. */
static void initial(const tdm_model *m, size_t l, size_t k, float *value, size_t count)
{
    const tdm_layer_plan *p = &m->plans[l];
    size_t c = p->in_c, h = hidden_of(&m->layers[l], p);
    if (k == 0)
        tdm_layer_uniform_of(m, l, k, sqrt(6.0 / (double)c), value, count);
    else if (k == 2)
        tdm_layer_uniform_of(m, l, k, sqrt(6.0 / (double)(h + c)), value, count);
}

static void work(const tdm_model *m, size_t l, size_t columns[TDM_LAYER_WORK])
{
    const tdm_layer_plan *p = &m->plans[l];
    size_t hidden = positions_of(p) * hidden_of(&m->layers[l], p);
    columns[HIDDEN_Z] = columns[HIDDEN_A] = columns[HIDDEN_GRAD] = hidden;
}

/* The bias gradients' sums over the examples, [positions, the wider of hidden and
 * channels] (tdm_layer_position_sums). */
static tdm_status reserve(const tdm_model *m, size_t l, tdm_model_scratch *sc, size_t rows)
{
    (void)rows;
    const tdm_layer_plan *p = &m->plans[l];
    size_t hidden = hidden_of(&m->layers[l], p), wider = hidden > p->in_c ? hidden : p->in_c;
    return tdm_tensor_create(sc->device, TDM_F32, &TDM_SHAPE(positions_of(p), wider),
                             &sc->b.partial[l]);
}

static void from_kernel(tdm_layer *d, const uint64_t *dims)
{
    d->units = (size_t)dims[1];
}

static const char *const variables[] = {"hidden_kernel", "hidden_bias", "output_kernel",
                                        "output_bias", NULL};

/* Per position: MatMul, Add, GELU, MatMul, Add on [N, positions, channels]. */
static tdm_status onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_onnx_value w[4];
    for (size_t k = 0; k < 4; k++) {
        tdm_status s = tdm_onnx_variable(g, m, l, k, &w[k]);
        if (s != TDM_OK)
            return s;
    }
    tdm_onnx_value x = tdm_onnx_positions(g, in[0], positions_of(p), p->in_c);
    tdm_onnx_value h = tdm_onnx_op2(g, "Add", tdm_onnx_op2(g, "MatMul", x, w[0]), w[1]);
    h = tdm_onnx_activation(g, TDM_ACT_GELU, h);
    tdm_onnx_value y = tdm_onnx_op2(g, "Add", tdm_onnx_op2(g, "MatMul", h, w[2]), w[3]);
    *out = tdm_onnx_flatten(g, y);
    return TDM_OK;
}

const tdm_layer_type tdm_layer_feed_forward = {
    .variables = variables,
    .takes = TDM_TAKES_UNITS,
    .kernel_rank = 2,
    .plan = tdm_layer_sequence_plan,
    .variable_shape = variable_shape,
    .initial = initial,
    .work = work,
    .reserve = reserve,
    .forward = forward,
    .backward = backward,
    .from_kernel = from_kernel,
    .onnx = onnx,
};
