/* tdm_model_load: a model file read back, every rule of its layout and of the model
 * checked before a variable is created, so that a damaged, truncated or foreign file
 * is refused with the reason. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/checkpoint_format.h"
#include "checkpoint/checkpoint_files.h"
#include "base/error.h"
#include "device/memory/tensor_impl.h"
#include "model/files/model_file.h"
#include "model/layers/layer_type.h"
#include "checkpoint/safetensors.h"
#include "platform/tdm_text.h"

static const char *const func = "tdm_model_load";

typedef struct loader {
    const char *path;
    tdm_st_file f;
    tdm_model_options opts;
    tdm_layer *layers;
    tdm_layer_plan *plans;
    const tdm_st_tensor **vars; /* [4 * layers]: per layer its variables from 4 * l, its
                                   moving statistics (a kind of two variables) from 4 * l
                                   + 2, or NULL */
    const tdm_st_tensor *mean, *std;
} loader;

static const char *meta(const loader *l, const char *key)
{
    return tdm_st_metadata(&l->f, key);
}

/* A tandem model file of a version this library reads, undamaged. */
static tdm_status check_identity(const loader *l)
{
    const char *format = meta(l, "format"), *version = meta(l, "format_version");
    if (!format || strcmp(format, TDM_MODEL_FORMAT) != 0)
        return tdm_st_corrupt(
            func, l->path,
            "a safetensors file, but not a tandem model (its __metadata__ has format "
            "'%s', not '" TDM_MODEL_FORMAT "')",
            format ? format : "(none)");
    char *end = NULL;
    errno = 0;
    unsigned long long v = version ? strtoull(version, &end, 10) : 0;
    if (!version || !*version || *end || errno || v == 0)
        return tdm_st_corrupt(func, l->path, "format_version '%s' is not a version number",
                              version ? version : "(none)");
    if (v > TDM_MODEL_FORMAT_VERSION)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: %s: model format version %llu is newer than this tandem reads (%d)",
                        func, l->path, v, TDM_MODEL_FORMAT_VERSION);
    const char *crc = meta(l, TDM_MODEL_CRC_KEY);
    unsigned long stored = crc && strlen(crc) == 8 ? strtoul(crc, &end, 16) : 0;
    if (!crc || strlen(crc) != 8 || *end)
        return tdm_st_corrupt(func, l->path,
                              "no " TDM_MODEL_CRC_KEY " of 8 hex digits in its __metadata__");
    uint32_t actual = tdm_ckpt_crc(0, l->f.data, l->f.data_size);
    if (actual != stored)
        return tdm_st_corrupt(func, l->path,
                              "damaged: the weights' CRC-32 is %08" PRIx32 ", the file says %08lx",
                              actual, stored);
    return TDM_OK;
}

/* A float32 tensor with a dimension in every place. */
static tdm_status check_tensor(const loader *l, const char *name, const tdm_st_tensor *t)
{
    if (!t)
        return tdm_st_corrupt(func, l->path, "tensor '%s' is missing", name);
    int empty = t->rank == 0;
    for (size_t k = 0; k < t->rank; k++)
        empty |= t->dims[k] == 0;
    if (strcmp(t->dtype, "F32") != 0 || empty)
        return tdm_st_corrupt(func, l->path,
                              "tensor '%s' is %s of rank %zu: the model needs "
                              "float32 without empty dimensions",
                              name, t->dtype, t->rank);
    return TDM_OK;
}

/* The tensor's shape is the one the layers before it give. */
static tdm_status check_shape(const loader *l, const char *name, const tdm_st_tensor *t,
                              const tdm_shape *want)
{
    int same = t->rank == want->rank;
    tdm_shape got = {.rank = t->rank < TDM_MAX_RANK ? t->rank : TDM_MAX_RANK};
    for (size_t k = 0; k < got.rank; k++) {
        got.dims[k] = (size_t)t->dims[k];
        same &= t->dims[k] == want->dims[k];
    }
    char have[64], need[64];
    if (!same)
        return tdm_st_corrupt(
            func, l->path, "tensor '%s' is %s%s, where the layers before it make it %s", name,
            tdm_shape_format(&got, have, sizeof have), t->rank > TDM_MAX_RANK ? " and more" : "",
            tdm_shape_format(want, need, sizeof need));
    return TDM_OK;
}

/* "<a>x<b>" of whole numbers from 1 to 4096 under "<prefix>/<what>". */
static tdm_status pair(const loader *l, const char *prefix, const char *what, size_t *a, size_t *b)
{
    char key[64];
    snprintf(key, sizeof key, "%s/%s", prefix, what);
    const char *v = meta(l, key);
    unsigned long x = 0, y = 0;
    int used = 0;
    if (!v || sscanf(v, "%4lux%4lu%n", &x, &y, &used) != 2 || v[used] || !x || !y || x > 4096 ||
        y > 4096)
        return tdm_st_corrupt(func, l->path, "%s is '%s', not <height>x<width>", key,
                              v ? v : "(none)");
    *a = x;
    *b = y;
    return TDM_OK;
}

/* A dense or conv2d layer's activation and dropout. */
static tdm_status activation(loader *l, const char *prefix, tdm_layer *d, tdm_c_locale *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s/activation", prefix);
    const char *act = meta(l, key);
    if (!act || tdm_activation_parse(act, &d->activation) != TDM_OK)
        return tdm_st_corrupt(func, l->path, "%s is '%s', not an activation tandem knows", key,
                              act ? act : "(none)");
    snprintf(key, sizeof key, "%s/dropout", prefix);
    const char *rate = meta(l, key);
    char *end = NULL;
    double dropout = rate ? tdm_c_strtod(c, rate, &end) : -1.0;
    if (!rate || !*rate || *end || !(dropout >= 0.0 && dropout < 1.0))
        return tdm_st_corrupt(func, l->path, "%s is '%s', not a rate in [0, 1)", key,
                              rate ? rate : "(none)");
    d->dropout = (float)dropout;
    return TDM_OK;
}

/* A window's strides and padding, and its size unless the kernel gives it. */
static tdm_status window(loader *l, const char *prefix, tdm_layer *d, int sized)
{
    tdm_status s = sized ? TDM_OK : pair(l, prefix, "window", &d->kernel_h, &d->kernel_w);
    if (s == TDM_OK)
        s = pair(l, prefix, "strides", &d->stride_h, &d->stride_w);
    char key[64];
    snprintf(key, sizeof key, "%s/padding", prefix);
    const char *padding = meta(l, key);
    int same = padding && strcmp(padding, "same") == 0;
    if (s == TDM_OK && !same && !(padding && strcmp(padding, "valid") == 0))
        s = tdm_st_corrupt(func, l->path, "%s is '%s', not 'same' or 'valid'", key,
                           padding ? padding : "(none)");
    d->padding = same ? TDM_PADDING_SAME : TDM_PADDING_VALID;
    return s;
}

/* A float in [lo, hi) under "<prefix>/<what>". */
static tdm_status number(const loader *l, const char *prefix, const char *what, double lo,
                         double hi, tdm_c_locale *c, float *out)
{
    char key[64];
    snprintf(key, sizeof key, "%s/%s", prefix, what);
    const char *text = meta(l, key);
    char *end = NULL;
    double v = text ? tdm_c_strtod(c, text, &end) : -1.0;
    if (!text || !*text || *end || !(v >= lo && v < hi))
        return tdm_st_corrupt(func, l->path, "%s is '%s', not a number in [%g, %g)", key,
                              text ? text : "(none)", lo, hi);
    *out = (float)v;
    return TDM_OK;
}

/* A whole number setting from lo (a residual's skip, attention's heads and causal
 * flag; tdm_model_plan checks their ranges). */
static tdm_status whole(const loader *l, const char *prefix, const char *what, size_t lo,
                        size_t *out)
{
    char key[64];
    snprintf(key, sizeof key, "%s/%s", prefix, what);
    const char *text = meta(l, key);
    char *end = NULL;
    errno = 0;
    int digits = text && *text >= '0' && *text <= '9';
    unsigned long long v = digits ? strtoull(text, &end, 10) : 0;
    if (!digits || v < lo || *end || errno)
        return tdm_st_corrupt(func, l->path, "%s is '%s', not a whole number from %zu", key,
                              text ? text : "(none)", lo);
    *out = (size_t)v;
    return TDM_OK;
}

/* Attention's heads and mask. */
static tdm_status heads(const loader *l, const char *prefix, tdm_layer *d)
{
    size_t causal = 0;
    tdm_status s = whole(l, prefix, "heads", 1, &d->heads);
    if (s == TDM_OK)
        s = whole(l, prefix, "causal", 0, &causal);
    d->causal = causal != 0;
    return s;
}

/* A graph node's inputs, where the file names them: "2,input,5,input1" (layer
 * indices, or the model's inputs; tdm_model_plan checks the graph). */
static tdm_status inputs(const loader *l, const char *prefix, tdm_layer *d)
{
    char key[64];
    snprintf(key, sizeof key, "%s/inputs", prefix);
    const char *text = meta(l, key), *p = text;
    while (p && *p && d->input_count < TDM_LAYER_MAX_INPUTS) {
        char *end = (char *)p;
        errno = 0;
        unsigned long long v = *p >= '0' && *p <= '9' ? strtoull(p, &end, 10) : 0;
        if (strncmp(p, "input", 5) == 0) {
            unsigned long k = p[5] >= '0' && p[5] <= '9' ? strtoul(p + 5, &end, 10) : 0;
            end = p[5] >= '0' && p[5] <= '9' ? end : (char *)p + 5;
            if (k >= TDM_MODEL_MAX_INPUTS)
                break;
            d->inputs[d->input_count++] = TDM_MODEL_INPUT_AT(k);
        } else if (end != p && !errno && v < INT_MAX)
            d->inputs[d->input_count++] = (int)v;
        else
            break;
        p = *end == ',' && end[1] ? end + 1 : end;
    }
    if (p && *p)
        return tdm_st_corrupt(func, l->path,
                              "%s is '%s', not up to %d layer indices or 'input<k>', "
                              "comma-separated",
                              key, text, TDM_LAYER_MAX_INPUTS);
    return TDM_OK;
}

/* Layer i's tensor k, found and float32: its variables', then its moving
 * statistics'. */
static tdm_status tensor(loader *l, size_t i, const tdm_layer *d, size_t k)
{
    const tdm_layer_type *t = tdm_layer_type_of(d->kind);
    size_t vars = tdm_layer_name_count(t->variables), slot = k < vars ? k : 2 + k - vars;
    char name[48];
    if (k < vars)
        tdm_layer_variable_name(d->kind, i, k, name, sizeof name);
    else
        tdm_layer_state_name(d->kind, i, k - vars, name, sizeof name);
    l->vars[4 * i + slot] = tdm_st_find(&l->f, name);
    return check_tensor(l, name, l->vars[4 * i + slot]);
}

/* Layer i of kind d->kind: its tensors, the settings its kind takes, and those its
 * kernel's dims give. */
static tdm_status layer(loader *l, size_t i, tdm_layer *d, tdm_c_locale *c)
{
    const tdm_layer_type *t = tdm_layer_type_of(d->kind);
    char prefix[48];
    snprintf(prefix, sizeof prefix, "%s%zu", tdm_layer_kind_name(d->kind), i);
    size_t tensors = tdm_layer_name_count(t->variables) + tdm_layer_name_count(t->states);
    tdm_status s = TDM_OK;
    for (size_t k = 0; k < tensors && s == TDM_OK; k++)
        s = tensor(l, i, d, k);
    if (s == TDM_OK && (t->takes & TDM_TAKES_ACTIVATION))
        s = activation(l, prefix, d, c);
    if (s == TDM_OK && (t->takes & TDM_TAKES_EPSILON))
        s = number(l, prefix, "epsilon", 1e-12, 1.0, c, &d->epsilon);
    if (s == TDM_OK && (t->takes & TDM_TAKES_MOMENTUM))
        s = number(l, prefix, "momentum", 0.0, 1.0, c, &d->momentum);
    if (s == TDM_OK && (t->takes & TDM_TAKES_DROPOUT))
        s = number(l, prefix, "dropout", 0.0, 1.0, c, &d->dropout);
    if (s == TDM_OK && (t->takes & TDM_TAKES_SKIP))
        s = whole(l, prefix, "skip", 1, &d->skip);
    if (s == TDM_OK && (t->takes & TDM_TAKES_HEADS))
        s = heads(l, prefix, d);
    if (s == TDM_OK)
        s = inputs(l, prefix, d);
    if (s == TDM_OK && (t->takes & TDM_TAKES_WINDOW))
        s = window(l, prefix, d, t->kernel_rank != 0);
    const tdm_st_tensor *k = t->kernel_rank ? l->vars[4 * i] : NULL;
    if (s != TDM_OK || !k)
        return s;
    if (k->rank != t->kernel_rank)
        return tdm_st_corrupt(func, l->path, "tensor '%s/%s' has rank %zu, a %s's is %zu", prefix,
                              t->variables[0], k->rank, tdm_layer_kind_name(d->kind),
                              t->kernel_rank);
    t->from_kernel(d, k->dims);
    return TDM_OK;
}

/* The layers' kinds: the "layers" list, or (version 1) as many dense layers as
 * there are dense kernels. */
static tdm_status kinds(loader *l, size_t *count)
{
    const char *list = meta(l, "layers");
    char name[48];
    if (!list) {
        for (*count = 0;; ++*count) {
            tdm_layer_variable_name(TDM_LAYER_DENSE, *count, 0, name, sizeof name);
            if (!tdm_st_find(&l->f, name))
                break;
        }
    } else {
        *count = 1;
        for (const char *p = list; *p; p++)
            *count += *p == ',';
    }
    if (!*count)
        return tdm_st_corrupt(func, l->path, "no layers: tensor 'dense0/kernel' is missing");
    l->layers = calloc(*count, sizeof *l->layers);
    l->plans = calloc(*count, sizeof *l->plans);
    l->vars = calloc(4 * *count, sizeof *l->vars);
    if (!l->layers || !l->plans || !l->vars)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    const char *const *names = tdm_layer_kind_names();
    for (size_t i = 0; list && i < *count; i++) {
        size_t len = strcspn(list, ",");
        int kind = -1;
        for (int k = 0; names[k] && kind < 0; k++)
            if (strlen(names[k]) == len && strncmp(list, names[k], len) == 0)
                kind = k;
        if (kind < 0)
            return tdm_st_corrupt(func, l->path, "layer %zu is '%.*s', not a kind tandem knows", i,
                                  (int)(len < 32 ? len : 32), list);
        l->layers[i].kind = (tdm_layer_kind)kind;
        list += len + (list[len] == ',');
    }
    return TDM_OK;
}

/* Several inputs' widths, "13,4". */
static tdm_status input_widths(loader *l, const char *text)
{
    const char *p = text;
    while (*p && l->opts.inputs < TDM_MODEL_MAX_INPUTS) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = *p >= '0' && *p <= '9' ? strtoull(p, &end, 10) : 0;
        if (!v || errno || v > UINT32_MAX)
            break;
        l->opts.input_widths[l->opts.inputs++] = (size_t)v;
        p = *end == ',' && end[1] ? end + 1 : end;
    }
    if (*p || l->opts.inputs < 2)
        return tdm_st_corrupt(func, l->path,
                              "input_widths is '%s', not 2 to %d widths, comma-separated", text,
                              TDM_MODEL_MAX_INPUTS);
    return TDM_OK;
}

/* The input: the image "input_shape" gives, or the first dense kernel's rows; a
 * model of several, their widths. */
static tdm_status input(loader *l)
{
    const char *shape = meta(l, "input_shape"), *widths = meta(l, "input_widths");
    tdm_status s = widths ? input_widths(l, widths) : TDM_OK;
    if (s != TDM_OK || (widths && !shape))
        return s;
    if (!shape) {
        if (!tdm_layer_type_of(l->layers[0].kind)->sizes_input)
            return tdm_st_corrupt(func, l->path, "no input_shape for its %s first layer",
                                  tdm_layer_kind_name(l->layers[0].kind));
        l->opts.input_features = (size_t)l->vars[0]->dims[0];
        return TDM_OK;
    }
    unsigned long h = 0, w = 0, c = 0;
    int used = 0;
    if (sscanf(shape, "%9lux%9lux%9lu%n", &h, &w, &c, &used) != 3 || shape[used] || !h || !w || !c)
        return tdm_st_corrupt(func, l->path, "input_shape is '%s', not HxWxC", shape);
    l->opts.input_height = h;
    l->opts.input_width = w;
    l->opts.input_channels = c;
    return TDM_OK;
}

/* Loss, reduction and seed. */
static tdm_status training_options(loader *l)
{
    const char *loss = meta(l, "loss"), *reduction = meta(l, "reduction"), *seed = meta(l, "seed");
    tdm_loss_kind k = TDM_LOSS_SOFTMAX_CROSS_ENTROPY;
    int kind = loss && tdm_loss_kind_parse(loss, &k) == TDM_OK ? (int)k : -1;
    int red = reduction ? tdm_model_reduction_parse(reduction) : -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = seed ? strtoull(seed, &end, 10) : 0;
    if (kind < 0 || red < 0 || !seed || !*seed || *end || errno)
        return tdm_st_corrupt(
            func, l->path, "its loss '%s', reduction '%s' or seed '%s' is missing or unknown",
            loss ? loss : "(none)", reduction ? reduction : "(none)", seed ? seed : "(none)");
    l->opts.loss = (tdm_loss_kind)kind;
    l->opts.reduction = (tdm_loss_reduction)red;
    l->opts.seed = v;
    if (kind != TDM_LOSS_HUBER)
        return TDM_OK;
    tdm_c_locale *c = tdm_c_locale_new();
    if (!c)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: no memory for the C locale", func);
    tdm_status s = number(l, "loss", "huber_delta", 0x1p-100, 0x1p100, c, &l->opts.huber_delta);
    tdm_c_locale_free(c);
    return s;
}

/* Every variable's tensor has the shape the plan of the layers gives. */
static tdm_status check_shapes(loader *l)
{
    char name[48];
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < 4 * l->opts.layer_count && s == TDM_OK; i++) {
        const tdm_layer *d = &l->layers[i / 4];
        const tdm_layer_plan *p = &l->plans[i / 4];
        size_t k = i % 4, vars = tdm_layer_name_count(tdm_layer_type_of(d->kind)->variables);
        if (!l->vars[i])
            continue;
        /* its variables, then its moving statistics, one per channel */
        tdm_shape want = k < vars ? tdm_layer_variable_shape(d, p, k) : TDM_SHAPE(p->in_c);
        if (k < vars)
            tdm_layer_variable_name(d->kind, i / 4, k, name, sizeof name);
        else
            tdm_layer_state_name(d->kind, i / 4, k - vars, name, sizeof name);
        s = check_shape(l, name, l->vars[i], &want);
    }
    return s;
}

/* The layers, the standardisation, and no tensor besides. */
static tdm_status architecture(loader *l)
{
    size_t count = 0;
    tdm_status s = kinds(l, &count);
    if (s != TDM_OK)
        return s;
    tdm_c_locale *c = tdm_c_locale_new();
    if (!c)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: no memory for the C locale", func);
    for (size_t i = 0; i < count && s == TDM_OK; i++)
        s = layer(l, i, &l->layers[i], c);
    tdm_c_locale_free(c);
    if (s == TDM_OK)
        s = input(l);
    if (s != TDM_OK)
        return s;
    l->opts.layers = l->layers;
    l->opts.layer_count = count;
    s = tdm_model_plan(&l->opts, l->plans, func);
    if (s != TDM_OK)
        return tdm_st_corrupt(func, l->path, "its layers do not fit together: %s",
                              tdm_last_error());
    s = check_shapes(l);
    size_t features = l->opts.input_features, vars = 0;
    for (size_t i = 0; i < 4 * count; i++)
        vars += l->vars[i] != NULL;
    l->mean = tdm_st_find(&l->f, TDM_MODEL_MEAN);
    l->std = tdm_st_find(&l->f, TDM_MODEL_STD);
    const tdm_shape flat = TDM_SHAPE(features);
    if (s == TDM_OK && (l->mean || l->std)) {
        const char *missing = l->mean ? TDM_MODEL_STD : TDM_MODEL_MEAN;
        s = check_tensor(l, missing, l->mean ? l->std : l->mean);
        if (s == TDM_OK)
            s = check_shape(l, TDM_MODEL_MEAN, l->mean, &flat);
        if (s == TDM_OK)
            s = check_shape(l, TDM_MODEL_STD, l->std, &flat);
    }
    size_t expected = vars + (l->mean ? 2 : 0);
    for (size_t i = 0; s == TDM_OK && l->f.tensor_count != expected && i < l->f.tensor_count; i++) {
        const tdm_st_tensor *t = &l->f.tensors[i];
        int known = t == l->mean || t == l->std;
        for (size_t v = 0; v < 4 * count && !known; v++)
            known = t == l->vars[v];
        if (!known)
            s = tdm_st_corrupt(func, l->path, "tensor '%s' is not part of a tandem model", t->name);
    }
    return s == TDM_OK ? training_options(l) : s;
}

/* A tensor's little-endian float32 data, in host floats (malloc'd). */
static float *decode(const loader *l, const tdm_st_tensor *t)
{
    size_t n = (size_t)(t->end - t->begin) / 4;
    float *v = malloc(n ? n * sizeof *v : 1);
    for (size_t i = 0; v && i < n; i++) {
        uint32_t bits = tdm_ckpt_load_u32(l->f.data + t->begin + 4 * i);
        memcpy(&v[i], &bits, sizeof bits);
    }
    return v;
}

static tdm_status build(loader *l, tdm_strategy *s, tdm_model **out)
{
    /* the trainable variables in layer order, then the moving statistics */
    size_t vars = 0, n = 4 * l->opts.layer_count;
    const tdm_st_tensor **tensors = calloc(n + 2, sizeof *tensors);
    for (size_t states = 0; tensors && states < 2; states++)
        for (size_t i = 0; i < n; i++) {
            const tdm_layer_type *t = tdm_layer_type_of(l->layers[i / 4].kind);
            if (l->vars[i] && (i % 4 >= tdm_layer_name_count(t->variables)) == (int)states)
                tensors[vars++] = l->vars[i];
        }
    float **values = calloc(vars + 2, sizeof *values);
    tdm_status st =
        values && tensors ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    for (size_t i = 0; i < vars + 2 && st == TDM_OK; i++) {
        const tdm_st_tensor *t = i < vars ? tensors[i] : i == vars ? l->mean : l->std;
        if (t && !(values[i] = decode(l, t)))
            st = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    }
    if (st == TDM_OK)
        st = tdm_model_create_with(s, &l->opts, (const float *const *)values, func, out);
    if (st == TDM_OK && l->mean &&
        tdm_model_set_standardization(*out, values[vars], values[vars + 1]) != TDM_OK)
        st = tdm_st_corrupt(
            func, l->path,
            "its input standardisation has a value that is not finite or a negative std");
    const char *class_names = meta(l, "class_names");
    if (st == TDM_OK && class_names &&
        tdm_model_set_class_names_joined(*out, class_names) != TDM_OK)
        st = tdm_st_corrupt(func, l->path,
                            "its class_names are not one name per output, each without commas or "
                            "control characters");
    if (st != TDM_OK && *out) {
        tdm_model_destroy(*out);
        *out = NULL;
    }
    for (size_t i = 0; values && i < vars + 2; i++)
        free(values[i]);
    free(values);
    free(tensors);
    return st;
}

tdm_status tdm_model_load(tdm_strategy *s, const char *path, tdm_model **out)
{
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(s, func);
    TDM_CHECK_ARG(path, func);
    loader l = {.path = path, .opts = TDM_MODEL_OPTIONS_INIT};
    unsigned char *bytes = NULL;
    size_t size = 0;
    tdm_status st = tdm_ckpt_os_read_file(path, func, &bytes, &size);
    if (st == TDM_OK)
        st = tdm_st_parse(bytes, size, func, path, &l.f);
    if (st == TDM_OK)
        st = check_identity(&l);
    if (st == TDM_OK)
        st = architecture(&l);
    if (st == TDM_OK)
        st = build(&l, s, out);
    tdm_st_free(&l.f);
    free(l.layers);
    free(l.plans);
    free(l.vars);
    free(bytes);
    return st;
}
