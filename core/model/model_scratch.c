/* Per-replica buffers of the model, grown to the largest slice seen, and the
 * slices a step uses. */
#include <stdlib.h>

#include "base/error.h"
#include "model/layers/layer_type.h"

static tdm_status buffers_alloc(tdm_model_buffers *b, size_t layers)
{
    *b = (tdm_model_buffers){.layers = layers};
    b->z = calloc(layers, sizeof *b->z);
    b->a = calloc(layers, sizeof *b->a);
    b->dropped = calloc(layers, sizeof *b->dropped);
    b->g = calloc(layers, sizeof *b->g);
    b->partial = calloc(layers, sizeof *b->partial);
    b->col = calloc(layers, sizeof *b->col);
    b->norm = calloc(layers, sizeof *b->norm);
    b->row_stats = calloc(layers, sizeof *b->row_stats);
    b->work = calloc(layers * TDM_LAYER_WORK, sizeof *b->work);
    b->dx = calloc(layers * TDM_LAYER_MAX_INPUTS, sizeof *b->dx);
    if (!b->z || !b->a || !b->dropped || !b->g || !b->partial || !b->col || !b->norm ||
        !b->row_stats || !b->work || !b->dx)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "model: out of host memory");
    return TDM_OK;
}

static void buffers_free(tdm_model_buffers *b)
{
    for (size_t l = 0; l < b->layers; l++) {
        tdm_tensor_destroy(b->z ? b->z[l] : NULL);
        tdm_tensor_destroy(b->a ? b->a[l] : NULL);
        tdm_tensor_destroy(b->dropped ? b->dropped[l] : NULL);
        tdm_tensor_destroy(b->g ? b->g[l] : NULL);
        tdm_tensor_destroy(b->partial ? b->partial[l] : NULL);
        tdm_tensor_destroy(b->col ? b->col[l] : NULL);
        tdm_tensor_destroy(b->norm ? b->norm[l] : NULL);
        tdm_tensor_destroy(b->row_stats ? b->row_stats[l] : NULL);
        for (size_t k = 0; k < TDM_LAYER_MAX_INPUTS && b->dx; k++)
            tdm_tensor_destroy(b->dx[tdm_model_edge(l, k)]);
        for (size_t k = 0; k < TDM_LAYER_WORK && b->work; k++)
            tdm_tensor_destroy(b->work[tdm_model_work(l, k)]);
    }
    free(b->dx);
    free(b->work);
    free(b->norm);
    free(b->row_stats);
    free(b->partial);
    free(b->col);
    free(b->z);
    free(b->a);
    free(b->dropped);
    free(b->g);
    for (size_t k = 0; k < TDM_MODEL_MAX_INPUTS; k++)
        tdm_tensor_destroy(b->input[k]);
    tdm_tensor_destroy(b->ids);
    tdm_tensor_destroy(b->losses);
    tdm_tensor_destroy(b->target);
    *b = (tdm_model_buffers){0};
}

void tdm_model_scratch_free(const tdm_model *m, tdm_model_scratch *sc)
{
    (void)m;
    buffers_free(&sc->b);
    tdm_tensor_destroy(sc->input);
    tdm_tensor_destroy(sc->halves.a);
    tdm_tensor_destroy(sc->halves.b);
    free(sc->choice);
    *sc = (tdm_model_scratch){0};
}

static tdm_status matrix(tdm_device *dev, size_t rows, size_t cols, tdm_tensor **out)
{
    return tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(rows, cols), out);
}

/* An activation matrix, in the layer's storage dtype. */
static tdm_status stored(tdm_device *dev, tdm_dtype storage, size_t rows, size_t cols,
                         tdm_tensor **out)
{
    return tdm_tensor_create(dev, storage, &TDM_SHAPE(rows, cols), out);
}

/* The largest operand of any layer's matrix products on rows rows that is rounded
 * into the halves: its input (a convolution's im2col matrix) unless stored in f16,
 * its output gradient or its kernel. */
static size_t largest_operand(const tdm_model *m, size_t rows)
{
    size_t largest = 0;
    for (size_t l = 0; l < m->opts.layer_count; l++) {
        const tdm_layer *d = &m->layers[l];
        const tdm_layer_plan *p = &m->plans[l];
        const tdm_layer_type *t = tdm_layer_type_of(d->kind);
        if (!t->product_columns)
            continue;
        tdm_shape kernel = tdm_layer_variable_shape(d, p, 0);
        size_t weights = tdm_shape_count(&kernel), grad = rows * tdm_plan_out_features(p);
        int stored_half = tdm_model_input_storage(m->plans, p, 0) == TDM_F16;
        size_t input = stored_half ? 0 : rows * t->product_columns(p);
        largest = input > largest ? input : largest;
        largest = grad > largest ? grad : largest;
        largest = weights > largest ? weights : largest;
    }
    return largest;
}

static int any_half_products(const tdm_model *m, const tdm_model_scratch *sc)
{
    for (size_t l = 0; l < m->opts.layer_count; l++)
        if (sc->choice[l].products != TDM_MIXED_F32)
            return 1;
    return 0;
}

/* The halves, where some layer's products may take f16 operands (or wait to be
 * timed with them). */
static tdm_status halves_alloc(const tdm_model *m, tdm_model_scratch *sc, size_t rows)
{
    if (!any_half_products(m, sc))
        return TDM_OK;
    tdm_shape shape = TDM_SHAPE(largest_operand(m, rows));
    tdm_status s = tdm_tensor_create(sc->device, TDM_F16, &shape, &sc->halves.a);
    return s == TDM_OK ? tdm_tensor_create(sc->device, TDM_F16, &shape, &sc->halves.b) : s;
}

/* All of t (a buffer whose size does not follow the rows); NULL stays. */
static tdm_status whole_of(tdm_tensor *t, tdm_tensor **out)
{
    *out = NULL;
    if (!t)
        return TDM_OK;
    tdm_shape whole = tdm_tensor_shape(t);
    return tdm_tensor_slice(t, 0, &whole, out);
}

/* Whether layer l's pre-activation z lives in its output a's memory: relu's output is
 * z where z > 0 (or NaN) and +0 elsewhere, so its gradient's test z > 0 reads the
 * same from a; linear's output is z. The bias_act launch then writes each cell
 * once, not twice, and the layer keeps one buffer fewer. */
static int z_in_output(const tdm_model *m, size_t l)
{
    const tdm_layer *d = &m->layers[l];
    return (tdm_layer_type_of(d->kind)->takes & TDM_TAKES_ACTIVATION) &&
           (d->activation == TDM_ACT_RELU || d->activation == TDM_ACT_LINEAR);
}

static tdm_status allocate(const tdm_model *m, tdm_model_scratch *sc, size_t rows)
{
    tdm_model_buffers *b = &sc->b;
    tdm_status s = buffers_alloc(b, m->opts.layer_count);
    for (size_t l = 0; l < b->layers && s == TDM_OK; l++) {
        const tdm_layer_plan *p = &m->plans[l];
        size_t features = tdm_plan_out_features(p);
        const tdm_layer_type *t = tdm_layer_type_of(m->layers[l].kind);
        if (t->takes & TDM_TAKES_ACTIVATION)
            s = stored(sc->device, p->storage, rows, features, &b->a[l]);
        if (s == TDM_OK)
            s = z_in_output(m, l) ? whole_of(b->a[l], &b->z[l])
                                  : stored(sc->device, p->storage, rows, features, &b->z[l]);
        if (s == TDM_OK)
            s = matrix(sc->device, rows, features, &b->g[l]);
        if (s == TDM_OK && (t->takes & TDM_TAKES_ACTIVATION) && m->layers[l].dropout > 0.0f)
            s = stored(sc->device, p->storage, rows, features, &b->dropped[l]);
        size_t work[TDM_LAYER_WORK] = {0};
        if (t->work)
            t->work(m, l, work);
        for (size_t k = 0; k < TDM_LAYER_WORK && s == TDM_OK; k++)
            if (work[k])
                s = matrix(sc->device, rows, work[k], &b->work[tdm_model_work(l, k)]);
        if (s == TDM_OK && t->reserve)
            s = t->reserve(m, l, sc, rows);
        for (size_t k = 0; k < p->input_count && s == TDM_OK; k++)
            if (p->inputs[k] >= 0 && !p->first_grad[k])
                s = matrix(sc->device, rows, tdm_plan_out_features(&m->plans[p->inputs[k]]),
                           &b->dx[tdm_model_edge(l, k)]);
    }
    for (size_t k = 0; k < m->opts.inputs && m->opts.inputs > 1 && s == TDM_OK; k++)
        s = matrix(sc->device, rows, m->opts.input_widths[k], &b->input[k]);
    size_t classes = tdm_model_output_count(m);
    /* per output for the elementwise losses, else per example, or per position of
     * a sequence's labels */
    if (s == TDM_OK)
        s = matrix(sc->device, rows,
                   tdm_model_loss_per_output(m) ? classes : tdm_model_output_positions(m),
                   &b->losses);
    if (s == TDM_OK)
        s = matrix(sc->device, rows, classes, &b->target);
    return s == TDM_OK ? halves_alloc(m, sc, rows) : s;
}

/* sc->choice on sc->device: kept, where an earlier reservation on it chose, else by
 * the rules. */
static tdm_status choose(const tdm_model *m, tdm_model_scratch *sc, tdm_layer_choice *kept)
{
    sc->choice = kept ? kept : calloc(m->opts.layer_count, sizeof *sc->choice);
    if (!sc->choice)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "model: out of host memory");
    for (size_t l = 0; l < m->opts.layer_count && !kept; l++) {
        sc->choice[l].products = tdm_model_products_rule(m, l);
        sc->choice[l].conv = m->layers[l].kind == TDM_LAYER_CONV2D
                                 ? tdm_model_conv_rule(m, sc->device, l, sc->choice[l].products)
                                 : TDM_CONV_AUTO;
    }
    return TDM_OK;
}

/* The im2col matrices of the convolutions measured faster without them (other
 * layers' col is theirs: layer normalisation's), and the halves where every layer's
 * products measured faster in f32. */
static void drop_unused(const tdm_model *m, tdm_model_scratch *sc)
{
    for (size_t l = 0; l < sc->b.layers; l++)
        if (m->layers[l].kind == TDM_LAYER_CONV2D &&
            !tdm_conv_keeps_columns(sc->device, sc->choice[l].conv) && sc->b.col[l]) {
            tdm_tensor_destroy(sc->b.col[l]);
            sc->b.col[l] = NULL;
        }
    if (!any_half_products(m, sc)) {
        tdm_tensor_destroy(sc->halves.a);
        tdm_tensor_destroy(sc->halves.b);
        sc->halves = (tdm_halves){0};
    }
}

tdm_status tdm_model_scratch_reserve(const tdm_model *m, tdm_model_scratch *sc, tdm_device *dev,
                                     size_t rows, int training)
{
    if (sc->device == dev && sc->rows_capacity >= rows)
        return TDM_OK;
    tdm_layer_choice *kept = sc->device == dev ? sc->choice : NULL;
    sc->choice = kept ? NULL : sc->choice;
    tdm_model_scratch_free(m, sc);
    sc->device = dev;
    tdm_status s = choose(m, sc, kept);
    if (s == TDM_OK)
        s = allocate(m, sc, rows);
    if (s == TDM_OK)
        s = tdm_model_conv_measure(m, sc, rows, training);
    if (s == TDM_OK)
        s = tdm_model_products_measure(m, sc, rows, training);
    if (s == TDM_OK)
        drop_unused(m, sc);
    if (s != TDM_OK) { /* no buffers, but the choices made on dev stay */
        tdm_layer_choice *chosen = sc->choice;
        sc->choice = NULL;
        tdm_model_scratch_free(m, sc);
        *sc = (tdm_model_scratch){.device = chosen ? dev : NULL, .choice = chosen};
        return s;
    }
    sc->rows_capacity = rows;
    return TDM_OK;
}

/* A slice of t's first rows rows (t is [capacity, cols] or [capacity]); NULL stays. */
static tdm_status rows_of(tdm_tensor *t, size_t rows, tdm_tensor **out)
{
    if (!t) {
        *out = NULL;
        return TDM_OK;
    }
    tdm_shape shape = tdm_tensor_shape(t);
    shape.dims[0] = rows;
    return tdm_tensor_slice(t, 0, &shape, out);
}

static tdm_status slice_layer(const tdm_model_buffers *from, tdm_model_buffers *to, size_t l,
                              size_t rows, int training)
{
    tdm_status s = rows_of(from->z[l], rows, &to->z[l]);
    if (s == TDM_OK)
        s = rows_of(from->a[l], rows, &to->a[l]);
    if (s == TDM_OK)
        s = rows_of(from->g[l], rows, &to->g[l]);
    if (s == TDM_OK && training)
        s = rows_of(from->dropped[l], rows, &to->dropped[l]);
    if (s == TDM_OK)
        s = rows_of(from->col[l], rows, &to->col[l]);
    if (s == TDM_OK)
        s = rows_of(from->row_stats[l], rows, &to->row_stats[l]);
    if (s == TDM_OK)
        s = whole_of(from->partial[l], &to->partial[l]);
    if (s == TDM_OK)
        s = whole_of(from->norm[l], &to->norm[l]);
    for (size_t k = 0; k < TDM_LAYER_MAX_INPUTS && s == TDM_OK; k++)
        s = rows_of(from->dx[tdm_model_edge(l, k)], rows, &to->dx[tdm_model_edge(l, k)]);
    for (size_t k = 0; k < TDM_LAYER_WORK && s == TDM_OK; k++)
        s = rows_of(from->work[tdm_model_work(l, k)], rows, &to->work[tdm_model_work(l, k)]);
    return s;
}

tdm_status tdm_model_views_make(const tdm_model *m, tdm_model_scratch *sc, size_t rows,
                                int training, tdm_model_views *v)
{
    *v = (tdm_model_views){.rows = rows, .halves = sc->halves, .choice = sc->choice};
    tdm_model_buffers *b = &v->b;
    tdm_status s = buffers_alloc(b, m->opts.layer_count);
    v->out = calloc(b->layers, sizeof *v->out);
    if (s == TDM_OK && !v->out)
        s = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "model: out of host memory");
    for (size_t l = 0; l < b->layers && s == TDM_OK; l++) {
        s = slice_layer(&sc->b, b, l, rows, training);
        v->out[l] = b->dropped[l] ? b->dropped[l] : b->a[l] ? b->a[l] : b->z[l];
    }
    for (size_t k = 0; k < TDM_MODEL_MAX_INPUTS && s == TDM_OK; k++)
        s = rows_of(sc->b.input[k], rows, &b->input[k]);
    if (s == TDM_OK)
        s = rows_of(sc->b.ids, rows, &b->ids);
    if (s == TDM_OK)
        s = rows_of(sc->b.losses, rows, &b->losses);
    if (s == TDM_OK)
        s = rows_of(sc->b.target, rows, &b->target);
    if (s != TDM_OK)
        tdm_model_views_free(v);
    return s;
}

size_t tdm_model_row_bytes(const tdm_model *m)
{
    size_t floats = 0;
    for (size_t l = 0; l < m->opts.layer_count; l++) {
        const tdm_layer_type *t = tdm_layer_type_of(m->layers[l].kind);
        size_t work[TDM_LAYER_WORK] = {0};
        if (t->work)
            t->work(m, l, work);
        /* z (unless in a), a, dropped, g */
        floats += (z_in_output(m, l) ? 3 : 4) * tdm_plan_out_features(&m->plans[l]);
        for (size_t k = 0; k < TDM_LAYER_WORK; k++)
            floats += work[k];
    }
    return floats * sizeof(float);
}

static size_t bytes_of(const tdm_tensor *t)
{
    return t ? tdm_tensor_bytes(t) : 0;
}

tdm_status tdm_model_scratch_bytes(const tdm_model *m, size_t replica, size_t *out)
{
    TDM_CHECK_ARG(m, "tdm_model_scratch_bytes");
    TDM_CHECK_ARG(out, "tdm_model_scratch_bytes");
    size_t replicas = tdm_strategy_num_local_replicas(m->strategy);
    if (replica >= replicas)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_model_scratch_bytes: replica %zu of %zu local replicas", replica,
                        replicas);
    const tdm_model_scratch *sc = &m->scratch[replica];
    const tdm_model_buffers *b = &sc->b;
    size_t bytes = bytes_of(b->ids) + bytes_of(b->losses) + bytes_of(b->target) +
                   bytes_of(sc->input) + bytes_of(sc->halves.a) + bytes_of(sc->halves.b);
    for (size_t l = 0; l < b->layers; l++)
        bytes += (z_in_output(m, l) ? 0 : bytes_of(b->z[l])) + bytes_of(b->a[l]) +
                 bytes_of(b->dropped[l]) +
                 bytes_of(b->g[l]) + bytes_of(b->col[l]) + bytes_of(b->row_stats[l]) +
                 bytes_of(b->norm[l]) + bytes_of(b->partial[l]);
    for (size_t e = 0; e < b->layers * TDM_LAYER_MAX_INPUTS; e++)
        bytes += bytes_of(b->dx[e]);
    for (size_t e = 0; e < b->layers * TDM_LAYER_WORK; e++)
        bytes += bytes_of(b->work[e]);
    for (size_t k = 0; k < TDM_MODEL_MAX_INPUTS; k++)
        bytes += bytes_of(b->input[k]);
    *out = bytes;
    return TDM_OK;
}

void tdm_model_views_free(tdm_model_views *v)
{
    buffers_free(&v->b);
    free(v->out);
    *v = (tdm_model_views){0};
}
