/* tdm_model_save: the model's architecture, weights and input standardisation in a
 * safetensors file, written to a temporary file beside the target and renamed over
 * it, so that a reader sees the old file or the new one, never half of one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/checkpoint_files.h"
#include "checkpoint/output_file.h"
#include "base/error.h"
#include "model/files/model_file.h"
#include "model/layers/layer_type.h"
#include "checkpoint/safetensors.h"
#include "platform/tdm_text.h"

#define MAX_ENTRIES(layers) (10 + 4 * (layers))
#define VALUE_SIZE 96

/* Metadata keys and values in one block of fixed-size strings. */
typedef struct entries {
    tdm_st_entry *e;
    char (*text)[2][VALUE_SIZE];
    size_t count;
} entries;

static void add(entries *m, const char *key, const char *value)
{
    char *k = m->text[m->count][0], *v = m->text[m->count][1];
    snprintf(k, VALUE_SIZE, "%s", key);
    snprintf(v, VALUE_SIZE, "%s", value);
    m->e[m->count++] = (tdm_st_entry){k, v};
}

/* "<a>x<b>" */
static void add_pair(entries *m, const char *prefix, const char *what, size_t a, size_t b)
{
    char key[VALUE_SIZE], value[VALUE_SIZE];
    snprintf(key, sizeof key, "%s/%s", prefix, what);
    snprintf(value, sizeof value, "%zux%zu", a, b);
    add(m, key, value);
}

static void add_number(entries *m, const char *prefix, const char *what, double v)
{
    char key[VALUE_SIZE], value[VALUE_SIZE];
    snprintf(key, sizeof key, "%s/%s", prefix, what);
    snprintf(value, sizeof value, "%.9g", v);
    add(m, key, value);
}

/* A layer's settings beside its tensors' shapes, under "<kind><l>/": those its kind
 * takes but its kernel does not give. */
static void describe_layer(const tdm_model *m, size_t l, entries *out)
{
    const tdm_layer *d = &m->layers[l];
    const tdm_layer_type *t = tdm_layer_type_of(d->kind);
    const tdm_layer_plan *p = &m->plans[l];
    char prefix[32], key[VALUE_SIZE], value[VALUE_SIZE];
    snprintf(prefix, sizeof prefix, "%s%zu", tdm_layer_kind_name(d->kind), l);
    if (t->takes & TDM_TAKES_ACTIVATION) {
        snprintf(key, sizeof key, "%s/activation", prefix);
        add(out, key, tdm_activation_name(d->activation));
        add_number(out, prefix, "dropout", (double)d->dropout);
    }
    if (t->takes & TDM_TAKES_DROPOUT)
        add_number(out, prefix, "dropout", (double)d->dropout);
    if (t->takes & TDM_TAKES_HEADS) {
        add_number(out, prefix, "heads", (double)d->heads);
        add_number(out, prefix, "causal", d->causal ? 1.0 : 0.0);
    }
    if (t->takes & TDM_TAKES_EPSILON)
        add_number(out, prefix, "epsilon", (double)tdm_layer_epsilon(d));
    if (t->takes & TDM_TAKES_MOMENTUM)
        add_number(out, prefix, "momentum", (double)tdm_layer_momentum(d));
    if (d->input_count) { /* a graph's node: its inputs; a stacked layer's go unsaid */
        value[0] = '\0';
        for (size_t k = 0; k < d->input_count; k++) {
            size_t used = strlen(value);
            if (d->inputs[k] == TDM_MODEL_INPUT)
                snprintf(value + used, sizeof value - used, "%sinput", k ? "," : "");
            else if (d->inputs[k] < 0)
                snprintf(value + used, sizeof value - used, "%sinput%d", k ? "," : "",
                         -1 - d->inputs[k]);
            else
                snprintf(value + used, sizeof value - used, "%s%d", k ? "," : "", d->inputs[k]);
        }
        snprintf(key, sizeof key, "%s/inputs", prefix);
        add(out, key, value);
    }
    if (t->takes & TDM_TAKES_SKIP) {
        snprintf(key, sizeof key, "%s/skip", prefix);
        snprintf(value, sizeof value, "%zu", d->skip);
        add(out, key, value);
    }
    if (!(t->takes & TDM_TAKES_WINDOW))
        return;
    if (!t->kernel_rank)
        add_pair(out, prefix, "window", d->kernel_h, d->kernel_w);
    add_pair(out, prefix, "strides", p->win.stride_h, p->win.stride_w);
    snprintf(key, sizeof key, "%s/padding", prefix);
    add(out, key, d->padding == TDM_PADDING_VALID ? "valid" : "same");
}

/* The bytes of the "layers" value: each kind's name and a comma, or the end. */
static size_t kinds_size(const tdm_model *m)
{
    size_t size = 0;
    for (size_t l = 0; l < m->opts.layer_count; l++)
        size += strlen(tdm_layer_kind_name(m->layers[l].kind)) + 1;
    return size;
}

/* Numbers in the "C" locale, whatever the program's; kinds is the "layers" value's
 * space (kinds_size). */
static void describe(const tdm_model *m, entries *out, char *kinds)
{
    tdm_c_locale *c = tdm_c_locale_new();
    tdm_c_locale_scope scope;
    if (c)
        tdm_c_locale_enter(c, &scope);
    char value[VALUE_SIZE];
    add(out, "format", TDM_MODEL_FORMAT);
    int graph = 0;
    for (size_t l = 0; l < m->opts.layer_count; l++)
        graph |= m->layers[l].input_count != 0;
    snprintf(value, sizeof value, "%d",
             graph ? TDM_MODEL_FORMAT_VERSION : TDM_MODEL_FORMAT_VERSION_STACKED);
    add(out, "format_version", value);
    add(out, "loss", tdm_loss_kind_name(m->opts.loss));
    if (m->opts.loss == TDM_LOSS_HUBER)
        add_number(out, "loss", "huber_delta", (double)tdm_model_huber_delta(m));
    add(out, "reduction", tdm_model_reduction_name(m->opts.reduction));
    snprintf(value, sizeof value, "%llu", (unsigned long long)m->opts.seed);
    add(out, "seed", value);
    const tdm_model_options *o = &m->opts;
    /* an embedding's table does not tell how many ids an example has */
    if (o->input_height || (o->inputs == 1 && !tdm_layer_type_of(m->layers[0].kind)->sizes_input)) {
        snprintf(value, sizeof value, "%zux%zux%zu", o->input_height ? o->input_height : 1,
                 o->input_height ? o->input_width : 1,
                 o->input_height ? o->input_channels : o->input_features);
        add(out, "input_shape", value);
    }
    if (o->inputs > 1) { /* several inputs: their widths, side by side */
        value[0] = '\0';
        for (size_t k = 0; k < o->inputs; k++)
            snprintf(value + strlen(value), sizeof value - strlen(value), "%s%zu", k ? "," : "",
                     o->input_widths[k]);
        add(out, "input_widths", value);
    }
    kinds[0] = '\0';
    for (size_t l = 0; l < m->opts.layer_count; l++) {
        strcat(kinds, l ? "," : "");
        strcat(kinds, tdm_layer_kind_name(m->layers[l].kind));
        describe_layer(m, l, out);
    }
    out->e[out->count++] = (tdm_st_entry){"layers", kinds};
    if (c) {
        tdm_c_locale_leave(&scope);
        tdm_c_locale_free(c);
    }
}

/* Every variable's first copy, and the standardisation, as tensors to write. */
/* The name of tensor i: a trainable variable's, then a moving statistic's. */
static void tensor_name(const tdm_model *m, size_t i, char *buf, size_t size)
{
    if (i < m->var_count) {
        tdm_model_variable_name(m, i, buf, size);
        return;
    }
    tdm_model_state_name(m, i - m->var_count, buf, size);
}

/* Every variable's first copy (which prediction uses), and the standardisation, as
 * tensors to write. */
static tdm_status gather(const tdm_model *m, tdm_st_out *t, float **values, char (*names)[48])
{
    size_t vars = m->var_count + m->state_count;
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < vars && s == TDM_OK; i++) {
        tdm_variable *var = i < m->var_count ? m->vars[i] : m->states[i - m->var_count];
        tdm_shape shape = tdm_variable_shape(var);
        size_t bytes = tdm_shape_count(&shape) * sizeof(float);
        values[i] = malloc(bytes ? bytes : 1);
        s = values[i] ? tdm_tensor_read(tdm_variable_copy(var, 0), values[i], bytes)
                      : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
        tensor_name(m, i, names[i], sizeof names[i]);
        t[i] = (tdm_st_out){names[i], shape, values[i]};
    }
    if (m->standardize) {
        tdm_shape features = TDM_SHAPE(m->opts.input_features);
        t[vars] = (tdm_st_out){TDM_MODEL_MEAN, features, m->standardize};
        t[vars + 1] = (tdm_st_out){TDM_MODEL_STD, features, m->std};
    }
    return s;
}

static tdm_status write_file(const char *path, const entries *meta, const tdm_st_out *t, size_t n,
                             const char *func)
{
    tdm_output_file out;
    tdm_status s = tdm_output_open(path, TDM_OUTPUT_WHOLE, func, &out);
    if (s != TDM_OK)
        return s;
    if (tdm_st_write(out.f, meta->e, meta->count, TDM_MODEL_CRC_KEY, t, n) != 0) {
        s = tdm_ckpt_os_fail(errno, func, "write", path);
        tdm_output_abort(&out);
        return s;
    }
    return tdm_output_commit(&out, func);
}

tdm_status tdm_model_save(const tdm_model *m, const char *path)
{
    const char *func = "tdm_model_save";
    TDM_CHECK_ARG(m, func);
    TDM_CHECK_ARG(path, func);
    if (!*path || path[strlen(path) - 1] == '/')
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: '%s' names no file", func, path);
    size_t layers = m->opts.layer_count, vars = m->var_count + m->state_count;
    entries meta = {calloc(MAX_ENTRIES(layers), sizeof *meta.e),
                    calloc(MAX_ENTRIES(layers), sizeof *meta.text), 0};
    char *kinds = malloc(kinds_size(m));
    char *class_names = tdm_model_class_names_joined(m);
    tdm_st_out *t = calloc(vars + 2, sizeof *t);
    float **values = calloc(vars + 1, sizeof *values);
    char(*names)[48] = calloc(vars + 1, sizeof *names);
    tdm_status s =
        meta.e && meta.text && kinds && t && values && names && (class_names || !m->class_names)
            ? TDM_OK
            : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    if (s == TDM_OK && (s = gather(m, t, values, names)) != TDM_OK)
        tdm_fail_context(s, "%s: %s: reading the weights", func, path);
    if (s == TDM_OK) {
        describe(m, &meta, kinds);
        if (class_names)
            meta.e[meta.count++] = (tdm_st_entry){"class_names", class_names};
        s = write_file(path, &meta, t, vars + (m->standardize ? 2 : 0), func);
    }
    for (size_t i = 0; values && i < vars; i++)
        free(values[i]);
    free(values);
    free(names);
    free(t);
    free(meta.e);
    free(meta.text);
    free(kinds);
    free(class_names);
    return s;
}
