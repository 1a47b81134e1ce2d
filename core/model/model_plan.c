/* A model's layers checked and laid out: each layer's input and output images, its
 * window and its variables, and the names they go by. */
#include <stdio.h>

#include "base/checked_size.h"
#include "base/error.h"
#include "model/model_impl.h"

static const char *const kind_names[] = {"dense",      "conv2d",     "max_pool2d",
                                         "avg_pool2d", "batch_norm", "layer_norm",
                                         "residual",   "embedding",  NULL};
#define KIND_COUNT (sizeof kind_names / sizeof kind_names[0] - 1)

const char *const *tdm_layer_kind_names(void)
{
    return kind_names;
}

const char *tdm_layer_kind_name(tdm_layer_kind kind)
{
    return (size_t)kind < KIND_COUNT ? kind_names[kind] : "unknown";
}

void tdm_layer_variable_name(tdm_layer_kind kind, size_t l, int bias, char *buf, size_t size)
{
    int norm = tdm_layer_normalises(kind);
    snprintf(buf, size, "%s%zu/%s", kind_names[kind], l,
             kind == TDM_LAYER_EMBEDDING ? "embeddings"
             : bias                      ? (norm ? "beta" : "bias")
                                         : (norm ? "gamma" : "kernel"));
}

void tdm_layer_state_name(size_t l, int variance, char *buf, size_t size)
{
    snprintf(buf, size, "batch_norm%zu/%s", l, variance ? "moving_variance" : "moving_mean");
}

float tdm_layer_epsilon(const tdm_layer *d)
{
    return d->epsilon > 0.0f ? d->epsilon : 1e-3f;
}

float tdm_layer_momentum(const tdm_layer *d)
{
    return d->momentum > 0.0f ? d->momentum : 0.99f;
}

size_t tdm_model_variable_layer(const tdm_model *m, size_t i)
{
    size_t l = 0;
    while (m->plans[l].first_var + m->plans[l].var_count <= i)
        l++;
    return l;
}

void tdm_model_variable_name(const tdm_model *m, size_t i, char *buf, size_t size)
{
    size_t l = tdm_model_variable_layer(m, i);
    tdm_layer_variable_name(m->layers[l].kind, l, i > m->plans[l].first_var, buf, size);
}

tdm_shape tdm_layer_variable_shape(const tdm_layer *d, const tdm_layer_plan *p, int bias)
{
    if (tdm_layer_normalises(d->kind))
        return TDM_SHAPE(p->in_c);
    if (d->kind == TDM_LAYER_EMBEDDING)
        return TDM_SHAPE(d->vocab, d->units);
    if (bias)
        return TDM_SHAPE(d->units);
    if (d->kind == TDM_LAYER_CONV2D)
        return TDM_SHAPE(d->kernel_h, d->kernel_w, p->in_c, d->units);
    return TDM_SHAPE(tdm_plan_in_features(p), d->units);
}

/* The input as an image: given in full, or flat. */
static tdm_status input_image(tdm_model_options *o, tdm_layer_plan *first, const char *f)
{
    size_t h = o->input_height, w = o->input_width, c = o->input_channels, n;
    if (!h && !w && !c) {
        *first = (tdm_layer_plan){.in_h = 1, .in_w = 1, .in_c = o->input_features};
        return o->input_features
                   ? TDM_OK
                   : tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: a model needs input_features", f);
    }
    if (!h || !w || !c || tdm_mul3_overflows(h, w, c, &n) || n > UINT32_MAX ||
        (o->input_features && o->input_features != n))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: an input image of %zu x %zu x %zu needs all three dimensions, and "
                        "input_features (%zu) 0 or their product",
                        f, h, w, c, o->input_features);
    o->input_features = n;
    *first = (tdm_layer_plan){.in_h = h, .in_w = w, .in_c = c};
    return TDM_OK;
}

/* Windows along one dimension of `in` positions, and the padding before them. */
/* VALID's windows along one dimension of `in` positions (SAME's are tdm_window_same's). */
static tdm_status valid_windows(size_t in, size_t k, size_t stride, size_t *out, const char *f,
                                size_t l)
{
    if (in < k)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu: a window of %zu does not fit its input of %zu with "
                        "VALID padding",
                        f, l, k, in);
    *out = (in - k) / stride + 1;
    return TDM_OK;
}

/* The window of a conv2d or pooling layer, and its output image. */
static tdm_status image_layer(const tdm_layer *d, tdm_layer_plan *p, const char *f, size_t l)
{
    int pool = d->kind != TDM_LAYER_CONV2D;
    if (!d->kernel_h || !d->kernel_w || d->kernel_h > 4096 || d->kernel_w > 4096 ||
        d->stride_h > 4096 || d->stride_w > 4096 || (unsigned)d->padding > TDM_PADDING_VALID)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) needs a window of 1 to 4096 each way, strides up to "
                        "4096 and a known padding",
                        f, l, kind_names[d->kind]);
    p->win = (tdm_window){.height = d->kernel_h,
                          .width = d->kernel_w,
                          .stride_h = d->stride_h ? d->stride_h
                                      : pool      ? d->kernel_h
                                                  : 1,
                          .stride_w = d->stride_w ? d->stride_w
                                      : pool      ? d->kernel_w
                                                  : 1};
    tdm_status s = TDM_OK;
    if (d->padding == TDM_PADDING_SAME)
        tdm_window_same(&p->win, p->in_h, p->in_w, &p->out_h, &p->out_w);
    else
        s = valid_windows(p->in_h, d->kernel_h, p->win.stride_h, &p->out_h, f, l);
    if (s == TDM_OK && d->padding == TDM_PADDING_VALID)
        s = valid_windows(p->in_w, d->kernel_w, p->win.stride_w, &p->out_w, f, l);
    p->out_c = pool ? p->in_c : d->units;
    return s;
}

static tdm_status check_layer(const tdm_layer *d, const char *f, size_t l)
{
    if ((unsigned)d->kind > TDM_LAYER_EMBEDDING)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: layer %zu has an unknown kind %d", f, l,
                        (int)d->kind);
    if (d->kind == TDM_LAYER_RESIDUAL ? !d->skip || d->skip > l : d->skip != 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: layer %zu (%s) has skip %zu; %s", f, l,
                        kind_names[d->kind], d->skip,
                        d->kind == TDM_LAYER_RESIDUAL
                            ? "a shortcut starts from 1 to the layer's index layers back"
                            : "only a residual layer skips");
    if (d->kind == TDM_LAYER_EMBEDDING
            ? l || !d->units || !d->vocab || d->vocab > TDM_EMBEDDING_MAX_VOCAB ||
                  d->activation != TDM_ACT_LINEAR || d->dropout != 0.0f
            : d->vocab != 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) has vocab %zu and units %zu; %s", f, l,
                        kind_names[d->kind], d->vocab, d->units,
                        d->kind != TDM_LAYER_EMBEDDING
                            ? "only an embedding has a vocabulary"
                            : "an embedding is the first layer (its input is the model's ids), "
                              "with a vocabulary of 1 to 2^24 ids, units > 0, and no "
                              "activation or dropout");
    if (d->kind == TDM_LAYER_EMBEDDING)
        return TDM_OK;
    if (tdm_layer_normalises(d->kind) &&
        (d->units || d->activation != TDM_ACT_LINEAR || d->dropout != 0.0f ||
         !(d->epsilon >= 0.0f && d->epsilon < 1.0f) ||
         !(d->momentum >= 0.0f && d->momentum < 1.0f)))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) takes no units, activation or dropout, an "
                        "epsilon in [0, 1) and a momentum in [0, 1)",
                        f, l, kind_names[d->kind]);
    if (!tdm_layer_activates(d)) {
        if (d->units || d->activation != TDM_ACT_LINEAR || d->dropout != 0.0f)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: layer %zu (%s) takes no units, activation or dropout", f, l,
                            kind_names[d->kind]);
        return TDM_OK;
    }
    if (!d->units || (unsigned)d->activation > TDM_ACT_GELU ||
        !(d->dropout >= 0.0f && d->dropout < 1.0f))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu needs units > 0, a known activation and a dropout "
                        "rate in [0, 1)",
                        f, l);
    return TDM_OK;
}

/* An embedding's output: each id's channels become units channels; a flat input is
 * a row of positions. */
static void lookup(tdm_layer_plan *p, size_t units)
{
    int flat = p->in_h == 1 && p->in_w == 1;
    p->out_h = p->in_h;
    p->out_w = flat ? p->in_c : p->in_w;
    p->out_c = flat ? units : p->in_c * units;
}

/* A residual layer's shortcut: the input of layer l - skip has the shape of layer
 * l's, which it keeps. */
static tdm_status shortcut(tdm_layer_plan *plans, size_t l, size_t skip, const char *f)
{
    tdm_layer_plan *p = &plans[l];
    const tdm_layer_plan *from = &plans[l - skip];
    p->out_h = p->in_h, p->out_w = p->in_w, p->out_c = p->in_c;
    if (from->in_h == p->in_h && from->in_w == p->in_w && from->in_c == p->in_c)
        return TDM_OK;
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                    "%s: layer %zu (residual) adds the input of layer %zu, %zu x %zu x %zu, to "
                    "its own, %zu x %zu x %zu: a shortcut joins equal shapes",
                    f, l, l - skip, from->in_h, from->in_w, from->in_c, p->in_h, p->in_w, p->in_c);
}

/* The dtype layer l's outputs are stored in with f16 activations: f16 but for the
 * output layer, whose outputs the loss reads in f32; a pooling, normalisation or
 * residual layer's kernel takes one dtype, its input's. */
static tdm_status layer_storage(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                                const char *f)
{
    const tdm_layer *d = &o->layers[l];
    tdm_dtype in = l ? plans[l - 1].storage : TDM_F32; /* the model's input is f32 */
    int last = l + 1 == o->layer_count;
    if (tdm_layer_activates(d) || d->kind == TDM_LAYER_EMBEDDING) {
        plans[l].storage = last ? TDM_F32 : TDM_F16;
        return TDM_OK;
    }
    if (last && in == TDM_F16)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: layer %zu (%s) is the output layer: with activation_dtype f16 the "
                        "output layer is dense or conv2d, whose outputs stay f32 for the loss",
                        f, l, kind_names[d->kind]);
    plans[l].storage = in;
    return TDM_OK;
}

/* Every layer's storage (layer_storage), f32 throughout without f16 activations. */
static tdm_status plan_storage(const tdm_model_options *o, tdm_layer_plan *plans, const char *f)
{
    for (size_t l = 0; l < o->layer_count; l++)
        plans[l].storage = TDM_F32;
    if (o->activation_dtype == TDM_F32)
        return TDM_OK;
    if (o->activation_dtype != TDM_F16)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: activation_dtype is %s; activations are stored in f32 or f16", f,
                        tdm_dtype_name(o->activation_dtype));
    if (o->compute_dtype != TDM_F16)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: activation_dtype f16 needs compute_dtype f16: the stored halves "
                        "are the matrix products' f16 operands",
                        f);
    tdm_status s = TDM_OK;
    for (size_t l = 0; l < o->layer_count && s == TDM_OK; l++)
        s = layer_storage(o, plans, l, f);
    return s;
}

tdm_status tdm_model_plan(tdm_model_options *o, tdm_layer_plan *plans, const char *f)
{
    tdm_status s = input_image(o, &plans[0], f);
    size_t vars = 0, states = 0;
    for (size_t l = 0; l < o->layer_count && s == TDM_OK; l++) {
        const tdm_layer *d = &o->layers[l];
        tdm_layer_plan *p = &plans[l];
        if (l)
            *p = (tdm_layer_plan){
                .in_h = plans[l - 1].out_h, .in_w = plans[l - 1].out_w, .in_c = plans[l - 1].out_c};
        s = check_layer(d, f, l);
        if (s != TDM_OK)
            break;
        if (d->kind == TDM_LAYER_DENSE) {
            p->out_h = p->out_w = 1;
            p->out_c = d->units;
        } else if (tdm_layer_normalises(d->kind)) {
            p->out_h = p->in_h, p->out_w = p->in_w, p->out_c = p->in_c;
        } else if (d->kind == TDM_LAYER_RESIDUAL) {
            s = shortcut(plans, l, d->skip, f);
        } else if (d->kind == TDM_LAYER_EMBEDDING) {
            lookup(p, d->units);
        } else if (l ? o->layers[l - 1].kind == TDM_LAYER_DENSE : !o->input_height) {
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: layer %zu (%s) needs an image: %s", f, l,
                         kind_names[d->kind],
                         l ? "a dense layer's output is flat"
                           : "give input_height, input_width and input_channels");
        } else {
            s = image_layer(d, p, f, l);
        }
        size_t in = tdm_plan_in_features(p), weights, out;
        size_t fan = d->kind == TDM_LAYER_DENSE       ? in
                     : d->kind == TDM_LAYER_EMBEDDING ? d->vocab
                                                      : d->kernel_h * d->kernel_w * p->in_c;
        if (s == TDM_OK &&
            tdm_mul3_overflows(fan, d->units ? d->units : 1, sizeof(float), &weights))
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                         "%s: layer %zu: %zu x %zu weights are more than memory can address", f, l,
                         fan, d->units);
        if (s == TDM_OK &&
            (tdm_mul3_overflows(p->out_h, p->out_w, p->out_c, &out) || out > UINT32_MAX))
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                         "%s: layer %zu: %zu x %zu x %zu outputs an example are more than one "
                         "launch addresses",
                         f, l, p->out_h, p->out_w, p->out_c);
        p->first_var = vars;
        p->var_count = tdm_layer_activates(d) || tdm_layer_normalises(d->kind) ? 2
                       : d->kind == TDM_LAYER_EMBEDDING                        ? 1
                                                                               : 0;
        vars += p->var_count;
        p->first_state = states;
        states += d->kind == TDM_LAYER_BATCH_NORM ? 2 : 0;
    }
    if (s == TDM_OK &&
        ((unsigned)o->loss > TDM_LOSS_MEAN_SQUARED_ERROR || (unsigned)o->reduction > TDM_LOSS_SUM))
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown loss or reduction", f);
    if (s == TDM_OK && o->compute_dtype != TDM_F32 && o->compute_dtype != TDM_F16)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                     "%s: compute_dtype is %s; models compute in f32 or f16", f,
                     tdm_dtype_name(o->compute_dtype));
    if (s == TDM_OK && (unsigned)o->conv_algorithm > TDM_CONV_MEASURED)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown conv_algorithm %d", f,
                     (int)o->conv_algorithm);
    if (s == TDM_OK && o->conv_algorithm == TDM_CONV_DIRECT && o->compute_dtype == TDM_F16)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                     "%s: conv_algorithm direct with compute_dtype f16: mixed precision's f16 "
                     "operands are a matrix product's, so its convolutions are lowered",
                     f);
    return s == TDM_OK ? plan_storage(o, plans, f) : s;
}

size_t tdm_model_output_count(const tdm_model *m)
{
    return m ? tdm_plan_out_features(&m->plans[m->opts.layer_count - 1]) : 0;
}
