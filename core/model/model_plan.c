/* A model's layers checked and laid out: each layer's input and output images, its
 * window and its variables, and the names they go by. */
#include <math.h>
#include <stdio.h>

#include "base/checked_size.h"
#include "base/error.h"
#include "device/memory/tensor_impl.h"
#include "model/layers/layer_type.h"

void tdm_layer_variable_name(tdm_layer_kind kind, size_t l, size_t k, char *buf, size_t size)
{
    snprintf(buf, size, "%s%zu/%s", tdm_layer_kind_name(kind), l,
             tdm_layer_type_of(kind)->variables[k]);
}

void tdm_layer_state_name(tdm_layer_kind kind, size_t l, size_t k, char *buf, size_t size)
{
    snprintf(buf, size, "%s%zu/%s", tdm_layer_kind_name(kind), l,
             tdm_layer_type_of(kind)->states[k]);
}

size_t tdm_model_variable_layer(const tdm_model *m, size_t i)
{
    size_t l = 0;
    while (m->plans[l].first_var + m->plans[l].var_count <= i)
        l++;
    return l;
}

size_t tdm_model_state_layer(const tdm_model *m, size_t k)
{
    size_t l = 0;
    while (m->plans[l].first_state + m->plans[l].state_count <= k)
        l++;
    return l;
}

void tdm_model_state_name(const tdm_model *m, size_t k, char *buf, size_t size)
{
    size_t l = tdm_model_state_layer(m, k);
    tdm_layer_state_name(m->layers[l].kind, l, k - m->plans[l].first_state, buf, size);
}

tdm_shape tdm_layer_variable_shape(const tdm_layer *d, const tdm_layer_plan *p, size_t k)
{
    return tdm_layer_type_of(d->kind)->variable_shape(d, p, k);
}

void tdm_model_variable_name(const tdm_model *m, size_t i, char *buf, size_t size)
{
    size_t l = tdm_model_variable_layer(m, i);
    tdm_layer_variable_name(m->layers[l].kind, l, i - m->plans[l].first_var, buf, size);
}

/* Whether node n's output is a flat vector: a flat model input (each but input 0
 * is), a kind that flattens, or a merge of flat vectors. */
static int flat(const tdm_model_options *o, const tdm_layer_plan *plans, int n)
{
    if (n < 0)
        return n != TDM_MODEL_INPUT || o->input_height == 0;
    if (tdm_layer_kind_traits(o->layers[n].kind) & TDM_LAYER_MERGES)
        return flat(o, plans, plans[n].inputs[0]);
    return tdm_layer_type_of(o->layers[n].kind)->flattens;
}

/* Refuses layer l of o, a kind that takes an image, when its input is none: a flat
 * model input, or the output of a layer that flattens. */
static tdm_status needs_image(const tdm_model_options *o, const tdm_layer_plan *plans, size_t l,
                              const char *f)
{
    int in = plans[l].inputs[0];
    if (!flat(o, plans, in))
        return TDM_OK;
    if (in >= 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) needs an image: a %s layer's output is flat", f, l,
                        tdm_layer_kind_name(o->layers[l].kind),
                        tdm_layer_kind_name(o->layers[in].kind));
    if (in != TDM_MODEL_INPUT)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) needs an image: the model's input %d is flat (only "
                        "input 0 is an image)",
                        f, l, tdm_layer_kind_name(o->layers[l].kind), -1 - in);
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                    "%s: layer %zu (%s) needs an image: give input_height, input_width and "
                    "input_channels",
                    f, l, tdm_layer_kind_name(o->layers[l].kind));
}

/* The input as an image: given in full, or flat; input_features set from it. */
static tdm_status input_image(tdm_model_options *o, const char *f)
{
    size_t h = o->input_height, w = o->input_width, c = o->input_channels, n;
    if (!h && !w && !c)
        return o->input_features
                   ? TDM_OK
                   : tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: a model needs input_features", f);
    if (!h || !w || !c || tdm_mul3_overflows(h, w, c, &n) || n > UINT32_MAX ||
        (o->input_features && o->input_features != n))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: an input image of %zu x %zu x %zu needs all three dimensions, and "
                        "input_features (%zu) 0 or their product",
                        f, h, w, c, o->input_features);
    o->input_features = n;
    return TDM_OK;
}

/* The model's inputs: one, whose width is input_features (inputs set to 1), or 2 to
 * TDM_MODEL_MAX_INPUTS side by side, input 0 the image where one is given. */
static tdm_status model_inputs(tdm_model_options *o, const char *f)
{
    size_t sum = 0, count = o->inputs ? o->inputs : 1;
    if (count > TDM_MODEL_MAX_INPUTS)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: %zu inputs; a model takes 1 to %d", f,
                        count, TDM_MODEL_MAX_INPUTS);
    for (size_t k = count; k < TDM_MODEL_MAX_INPUTS; k++)
        if (o->input_widths[k])
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: input_widths[%zu] is %zu, past the model's %zu inputs", f, k,
                            o->input_widths[k], count);
    if (count == 1) {
        size_t width = o->input_widths[0];
        tdm_status s = input_image(o, f);
        if (s == TDM_OK && width && width != o->input_features)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: input_widths[0] is %zu, but the one input has %zu features", f,
                            width, o->input_features);
        o->inputs = 1, o->input_widths[0] = o->input_features;
        return s;
    }
    for (size_t k = 0; k < count; k++) {
        if (!o->input_widths[k] || o->input_widths[k] > UINT32_MAX - sum)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: input %zu of %zu has %zu features; each input has 1 or more, "
                            "and all of them fit one launch",
                            f, k, count, o->input_widths[k]);
        sum += o->input_widths[k];
    }
    size_t given = o->input_features;
    o->input_features = 0;
    tdm_status s = o->input_height ? input_image(o, f) : TDM_OK;
    if (s == TDM_OK && o->input_height && o->input_features != o->input_widths[0])
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: input 0 is an image of %zu x %zu x %zu, %zu features, but its "
                        "width is %zu",
                        f, o->input_height, o->input_width, o->input_channels,
                        o->input_features, o->input_widths[0]);
    if (s == TDM_OK && given && given != sum)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: input_features is %zu, but the %zu inputs' widths sum to %zu", f,
                        given, count, sum);
    o->input_features = sum;
    return s;
}

/* The kind known, its own rules, and none of the fields it does not take. */
static tdm_status check_layer(const tdm_layer *d, const char *f, size_t l)
{
    if ((unsigned)d->kind >= TDM_LAYER_KIND_COUNT)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: layer %zu has an unknown kind %d", f, l,
                        (int)d->kind);
    const tdm_layer_type *t = tdm_layer_type_of(d->kind);
    const char *kind = tdm_layer_kind_name(d->kind);
    if (d->skip && !(t->takes & TDM_TAKES_SKIP))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) has skip %zu; only a residual layer skips", f, l,
                        kind, d->skip);
    if (d->vocab && !(t->takes & TDM_TAKES_VOCAB))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) has vocab %zu and units %zu; only an embedding has a "
                        "vocabulary",
                        f, l, kind, d->vocab, d->units);
    if ((d->heads || d->causal) && !(t->takes & TDM_TAKES_HEADS))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) has heads %zu and causal %d; only attention has "
                        "heads and a mask",
                        f, l, kind, d->heads, d->causal);
    tdm_status s = t->check ? t->check(d, l, f) : TDM_OK;
    int takes_dropout = (t->takes & (TDM_TAKES_ACTIVATION | TDM_TAKES_DROPOUT)) != 0;
    if (s == TDM_OK && ((d->units && !(t->takes & TDM_TAKES_UNITS)) ||
                        (d->activation != TDM_ACT_LINEAR && !(t->takes & TDM_TAKES_ACTIVATION)) ||
                        (d->dropout != 0.0f && !takes_dropout)))
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: layer %zu (%s) takes no %s", f, l, kind,
                     d->units && !(t->takes & TDM_TAKES_UNITS) ? "units"
                     : d->activation != TDM_ACT_LINEAR       ? "activation"
                                                             : "dropout");
    return s;
}

/* The elements of layer l's kernel, which memory must address. */
static tdm_status check_kernel_size(const tdm_layer *d, const tdm_layer_plan *p, size_t l,
                                    const char *f)
{
    const tdm_layer_type *t = tdm_layer_type_of(d->kind);
    if (!t->variables)
        return TDM_OK;
    tdm_shape shape = t->variable_shape(d, p, 0);
    size_t bytes = sizeof(float);
    int over = 0;
    for (size_t k = 0; k < shape.rank; k++)
        over |= tdm_mul_overflows(bytes, shape.dims[k], &bytes);
    char dims[64];
    if (over)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu: a kernel of %s is more than memory can address", f, l,
                        tdm_shape_format(&shape, dims, sizeof dims));
    return TDM_OK;
}

/* The dtype layer l's outputs are stored in with f16 activations: f16 but for the
 * output layer, whose outputs the loss reads in f32; a pooling, normalisation or
 * residual layer's kernel takes one dtype, its input's. */
static tdm_status layer_storage(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                                const char *f)
{
    const tdm_layer *d = &o->layers[l];
    tdm_dtype in = tdm_model_input_storage(plans, &plans[l], 0); /* the model's input: f32 */
    int last = l + 1 == o->layer_count;
    if (tdm_layer_type_of(d->kind)->storage == TDM_STORE_HALF) {
        plans[l].storage = last ? TDM_F32 : TDM_F16;
        return TDM_OK;
    }
    if (last && in == TDM_F16)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: layer %zu (%s) is the output layer: with activation_dtype f16 the "
                        "output layer is dense or conv2d, whose outputs stay f32 for the loss",
                        f, l, tdm_layer_kind_name(d->kind));
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

/* Marks relu_grad_by_reader where a ReLU layer's output is read by one max pooling
 * alone, as it is (no dropout between), which then writes the gradient through both;
 * not where the bias's gradient comes with the activation's (dense). */
static void relu_grads_by_readers(const tdm_model_options *o, tdm_layer_plan *plans)
{
    for (size_t r = 0; r < o->layer_count; r++) {
        int l = plans[r].inputs[0];
        if (o->layers[r].kind != TDM_LAYER_MAX_POOL2D || l < 0)
            continue;
        const tdm_layer *d = &o->layers[l];
        const tdm_layer_type *t = tdm_layer_type_of(d->kind);
        plans[l].relu_grad_by_reader = (t->takes & TDM_TAKES_ACTIVATION) &&
                                       !t->bias_grad_with_activation &&
                                       d->activation == TDM_ACT_RELU && d->dropout == 0.0f &&
                                       tdm_model_graph_readers(o, plans, (size_t)l) == 1;
    }
}

tdm_status tdm_model_plan(tdm_model_options *o, tdm_layer_plan *plans, const char *f)
{
    tdm_status s = model_inputs(o, f);
    size_t vars = 0, states = 0;
    for (size_t l = 0; l < o->layer_count && s == TDM_OK; l++) {
        const tdm_layer *d = &o->layers[l];
        tdm_layer_plan *p = &plans[l];
        *p = (tdm_layer_plan){0};
        s = check_layer(d, f, l);
        if (s == TDM_OK)
            s = tdm_model_graph_plan(o, plans, l, f);
        if (s != TDM_OK)
            break;
        const tdm_layer_type *t = tdm_layer_type_of(d->kind);
        if (tdm_layer_kind_traits(d->kind) & TDM_LAYER_NEEDS_IMAGE)
            s = needs_image(o, plans, l, f);
        if (s == TDM_OK)
            s = t->plan(o, plans, l, f);
        if (s == TDM_OK)
            s = check_kernel_size(d, p, l, f);
        size_t out;
        if (s == TDM_OK &&
            (tdm_mul3_overflows(p->out_h, p->out_w, p->out_c, &out) || out > UINT32_MAX))
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                         "%s: layer %zu: %zu x %zu x %zu outputs an example are more than one "
                         "launch addresses",
                         f, l, p->out_h, p->out_w, p->out_c);
        p->first_var = vars;
        p->var_count = tdm_layer_name_count(t->variables);
        vars += p->var_count;
        p->first_state = states;
        p->state_count = tdm_layer_name_count(t->states);
        states += p->state_count;
    }
    if (s == TDM_OK &&
        ((unsigned)o->loss >= TDM_LOSS_KIND_COUNT || (unsigned)o->reduction > TDM_LOSS_SUM))
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown loss or reduction", f);
    if (s == TDM_OK && !(o->huber_delta >= 0.0f && o->huber_delta < INFINITY))
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                     "%s: huber_delta is %g; it is > 0 (or 0 for the default, 1)", f,
                     (double)o->huber_delta);
    if (s == TDM_OK && o->compute_dtype != TDM_F32 && o->compute_dtype != TDM_F16)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                     "%s: compute_dtype is %s; models compute in f32 or f16", f,
                     tdm_dtype_name(o->compute_dtype));
    if (s == TDM_OK && (unsigned)o->conv_algorithm > TDM_CONV_WINOGRAD)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown conv_algorithm %d", f,
                     (int)o->conv_algorithm);
    if (s == TDM_OK &&
        (o->conv_algorithm == TDM_CONV_DIRECT || o->conv_algorithm == TDM_CONV_IMPLICIT ||
         o->conv_algorithm == TDM_CONV_WINOGRAD) &&
        o->compute_dtype == TDM_F16)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                     "%s: conv_algorithm %s with compute_dtype f16: mixed precision's f16 "
                     "operands are a matrix product's, so its convolutions are lowered",
                     f, tdm_conv_algorithm_name(o->conv_algorithm));
    if (s == TDM_OK && (unsigned)o->mixed_products > TDM_MIXED_F32)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown mixed_products %d", f,
                     (int)o->mixed_products);
    if (s == TDM_OK && o->mixed_products != TDM_MIXED_MEASURED && o->compute_dtype != TDM_F16)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                     "%s: mixed_products %s is for compute_dtype f16 (mixed precision); this "
                     "model computes in %s",
                     f, tdm_mixed_products_name(o->mixed_products),
                     tdm_dtype_name(o->compute_dtype));
    if (s == TDM_OK) {
        tdm_model_graph_first_grads(o, plans);
        relu_grads_by_readers(o, plans);
    }
    return s == TDM_OK ? plan_storage(o, plans, f) : s;
}

size_t tdm_model_output_count(const tdm_model *m)
{
    return m ? tdm_plan_out_features(&m->plans[m->opts.layer_count - 1]) : 0;
}
