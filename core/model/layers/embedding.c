/* embedding: the model's input values are ids, each looked up as a row of
 * the table; its gradient sums the rows of d(loss) / d(output) that each id took, in
 * order, so that it is the same bits on every device and replica count. */
#include "base/error.h"
#include "tandem/ops.h"
#include "model/layers/layer_type.h"
#include "model/onnx/onnx_ops.h"
#include "model/onnx/onnx_weights.h"

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
static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    (void)l; /* the first layer */
    tdm_tensor *y = NULL;
    int half = tdm_tensor_dtype(v->b.z[0]) == TDM_F16;
    tdm_status s = tdm_op_cast(v->b.ids, x);
    if (s == TDM_OK)
        s = per_id(m, half ? v->b.g[0] : v->b.z[0], &y);
    if (s == TDM_OK)
        s = tdm_op_embedding_lookup(y, tdm_variable_copy(m->vars[0], fa->copy), v->b.ids);
    if (s == TDM_OK && half)
        s = tdm_op_cast(v->b.z[0], v->b.g[0]);
    tdm_tensor_destroy(y);
    return s;
}

/* The first layer: no dx. */
static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    (void)x;
    tdm_tensor *dy = NULL;
    tdm_status s = per_id(m, v->b.g[0], &dy);
    if (s == TDM_OK)
        s = tdm_op_embedding_grad(a->grads[0], dy, v->b.ids);
    tdm_tensor_destroy(dy);
    return s == TDM_OK ? tdm_layer_grads_ready(m, l, a) : s;
}

/* The first layer only (its input is the model's ids), with a vocabulary of 1 to
 * 2^24 ids (every id exact as a float32 input) and units. */
static tdm_status check(const tdm_layer *d, size_t l, const char *f)
{
    if (!l && d->units && d->vocab && d->vocab <= TDM_EMBEDDING_MAX_VOCAB &&
        d->activation == TDM_ACT_LINEAR && d->dropout == 0.0f)
        return TDM_OK;
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                    "%s: layer %zu (embedding) has vocab %zu and units %zu; an embedding is the "
                    "first layer (its input is the model's ids), with a vocabulary of 1 to 2^24 "
                    "ids, units > 0, and no activation or dropout",
                    f, l, d->vocab, d->units);
}

/* Each id's channels become units channels; a flat input is a row of positions. */
static tdm_status plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l, const char *f)
{
    (void)f;
    tdm_layer_plan *p = &plans[l];
    size_t units = o->layers[l].units;
    int flat = p->in_h == 1 && p->in_w == 1;
    p->out_h = p->in_h;
    p->out_w = flat ? p->in_c : p->in_w;
    p->out_c = flat ? units : p->in_c * units;
    return TDM_OK;
}

static tdm_shape variable_shape(const tdm_layer *d, const tdm_layer_plan *p, size_t k)
{
    (void)p, (void)k;
    return TDM_SHAPE(d->vocab, d->units);
}

/* Keras' uniform in [-0.05, 0.05]. */
static void initial(const tdm_model *m, size_t l, size_t k, float *value, size_t count)
{
    (void)k;
    tdm_layer_uniform(m, l, 0.05, value, count);
}

/* The ids, as i32, of every row: the model's input it reads. */
static tdm_status reserve(const tdm_model *m, size_t l, tdm_model_scratch *sc, size_t rows)
{
    return tdm_tensor_create(sc->device, TDM_I32,
                             &TDM_SHAPE(rows, tdm_plan_in_features(&m->plans[l])), &sc->b.ids);
}

static void from_kernel(tdm_layer *d, const uint64_t *dims)
{
    d->vocab = (size_t)dims[0];
    d->units = (size_t)dims[1];
}

static const char *const variables[] = {"embeddings", NULL};

/* Gather of the ids, cast to int64 (truncated, as the cast to int32 here). An id
 * outside [0, vocab) becomes zeros, as the lookup kernel makes it: Gather reads row
 * 0 for it, and Where drops that. */
static tdm_status onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out)
{
    tdm_onnx_value table;
    tdm_status s = tdm_onnx_variable(g, m, l, 0, &table);
    if (s != TDM_OK)
        return s;
    const int64_t zero = 0, vocab = (int64_t)m->layers[l].vocab, id_axis = 2;
    const float no_value = 0.0f;
    tdm_onnx_value zero_id = tdm_onnx_int64s(g, NULL, 0, &zero);
    tdm_onnx_value vocab_id = tdm_onnx_int64s(g, NULL, 0, &vocab);
    tdm_onnx_value axis = tdm_onnx_int64s(g, &(int64_t){1}, 1, &id_axis);
    tdm_onnx_value zeros = tdm_onnx_floats(g, NULL, NULL, 0, &no_value);
    tdm_onnx_value ids = tdm_onnx_node_begin(g, "Cast", &in[0], 1);
    tdm_onnx_attr_int(g, "to", TDM_ONNX_INT64);
    tdm_onnx_node_end(g);
    tdm_onnx_value above = tdm_onnx_op2(g, "GreaterOrEqual", ids, zero_id);
    tdm_onnx_value known = tdm_onnx_op2(g, "And", above, tdm_onnx_op2(g, "Less", ids, vocab_id));
    const tdm_onnx_value pick[3] = {known, ids, zero_id};
    tdm_onnx_value rows = tdm_onnx_node_begin(g, "Where", pick, 3);
    tdm_onnx_node_end(g);
    tdm_onnx_value found = tdm_onnx_op2(g, "Gather", table, rows); /* [N, ids, units] */
    const tdm_onnx_value mask[3] = {tdm_onnx_op2(g, "Unsqueeze", known, axis), found, zeros};
    tdm_onnx_value y = tdm_onnx_node_begin(g, "Where", mask, 3);
    tdm_onnx_node_end(g);
    *out = tdm_onnx_flatten(g, y);
    return TDM_OK;
}

const tdm_layer_type tdm_layer_embedding = {
    .variables = variables,
    .takes = TDM_TAKES_UNITS | TDM_TAKES_VOCAB,
    .storage = TDM_STORE_HALF,
    .kernel_rank = 2,
    .check = check,
    .plan = plan,
    .variable_shape = variable_shape,
    .initial = initial,
    .reserve = reserve,
    .forward = forward,
    .backward = backward,
    .from_kernel = from_kernel,
    .onnx = onnx,
};
