/* The sequential model: its options, variables and their initial values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/checked_size.h"
#include "device/error.h"
#include "train/model_impl.h"
#include "train/seed_mix.h"
#include "input/standardize.h"

size_t tdm_model_input_width(const tdm_model *m, size_t l)
{
    return l ? m->layers[l - 1].units : m->opts.input_features;
}

static tdm_status check_options(const tdm_model_options *o, const char *f)
{
    if (o->size != sizeof *o)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: options.size is %zu, expected %zu: use "
                        "TDM_MODEL_OPTIONS_INIT",
                        f, o->size, sizeof *o);
    if (!o->input_features || !o->layers || !o->layer_count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: a model needs input_features and at least one layer", f);
    for (size_t l = 0; l < o->layer_count; l++) {
        const tdm_dense_layer *d = &o->layers[l];
        if (!d->units || (unsigned)d->activation > TDM_ACT_GELU ||
            !(d->dropout >= 0.0f && d->dropout < 1.0f))
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: layer %zu needs units > 0, a known activation and a dropout "
                            "rate in [0, 1)",
                            f, l);
        size_t in = l ? o->layers[l - 1].units : o->input_features, bytes;
        if (tdm_mul3_overflows(in, d->units, sizeof(float), &bytes))
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: layer %zu: %zu x %zu weights are more than memory can address", f,
                            l, in, d->units);
    }
    if ((unsigned)o->loss > TDM_LOSS_MEAN_SQUARED_ERROR || (unsigned)o->reduction > TDM_LOSS_SUM)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown loss or reduction", f);
    return TDM_OK;
}

/* Glorot uniform (He uniform for relu and gelu), drawn from the seed on the host so
 * that every device count starts from the same weights. */
static void initial_kernel(const tdm_model *m, size_t l, float *w)
{
    size_t in = tdm_model_input_width(m, l), out = m->layers[l].units;
    tdm_activation act = m->layers[l].activation;
    int he = act == TDM_ACT_RELU || act == TDM_ACT_GELU;
    double limit = sqrt(6.0 / (double)(he ? in : in + out));
    uint64_t state = tdm_seed_mix(m->opts.seed ^ tdm_seed_mix(l + 1));
    for (size_t i = 0; i < in * out; i++) {
        double u = (double)(tdm_seed_next(&state) >> 11) * 0x1p-53; /* [0, 1) */
        w[i] = (float)((2.0 * u - 1.0) * limit);
    }
}

void tdm_model_variable_name(size_t i, char *buf, size_t size)
{
    snprintf(buf, size, "dense%zu/%s", i / 2, i % 2 ? "bias" : "kernel");
}

/* Variable i, from value when given, else initialised from the seed. */
static tdm_status create_variable(tdm_model *m, size_t i, const float *value, const char *func,
                                  tdm_variable **out)
{
    size_t l = i / 2, in = tdm_model_input_width(m, l), units = m->layers[l].units;
    int bias = (int)(i % 2);
    float *init = value ? NULL : calloc(bias ? units : in * units, sizeof *init);
    if (!value && !init)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    if (init && !bias)
        initial_kernel(m, l, init);
    char name[48];
    tdm_model_variable_name(i, name, sizeof name);
    tdm_variable_options vo = TDM_VARIABLE_OPTIONS_INIT;
    vo.name = name;
    vo.shape = bias ? TDM_SHAPE(units) : TDM_SHAPE(in, units);
    vo.initial_value = value ? value : init;
    tdm_status s = tdm_variable_create(m->strategy, &vo, out);
    free(init);
    return s;
}

static tdm_status build(tdm_model *m, const float *const *values, const char *func)
{
    size_t layers = m->opts.layer_count, replicas = tdm_strategy_num_local_replicas(m->strategy);
    m->layers = malloc(layers * sizeof *m->layers);
    m->vars = calloc(2 * layers, sizeof *m->vars);
    m->scratch = calloc(replicas, sizeof *m->scratch);
    if (!m->layers || !m->vars || !m->scratch)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    memcpy(m->layers, m->opts.layers, layers * sizeof *m->layers);
    m->opts.layers = m->layers;
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < 2 * layers && s == TDM_OK; i++)
        s = create_variable(m, i, values ? values[i] : NULL, func, &m->vars[i]);
    return s;
}

tdm_status tdm_model_create_with(tdm_strategy *s, const tdm_model_options *opts,
                                 const float *const *values, const char *func, tdm_model **out)
{
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(s, func);
    TDM_CHECK_ARG(opts, func);
    tdm_status st = check_options(opts, func);
    if (st != TDM_OK)
        return st;
    tdm_model *m = calloc(1, sizeof *m);
    if (!m)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    m->strategy = s;
    m->opts = *opts;
    st = build(m, values, func);
    if (st != TDM_OK) {
        tdm_model_destroy(m);
        return st;
    }
    *out = m;
    return TDM_OK;
}

tdm_status tdm_model_create(tdm_strategy *s, const tdm_model_options *opts, tdm_model **out)
{
    return tdm_model_create_with(s, opts, NULL, "tdm_model_create", out);
}

void tdm_model_destroy(tdm_model *m)
{
    if (!m)
        return;
    for (size_t r = 0; m->scratch && r < tdm_strategy_num_local_replicas(m->strategy); r++)
        tdm_model_scratch_free(m, &m->scratch[r]);
    tdm_model_scratch_free(m, &m->eval);
    for (size_t i = 0; m->vars && i < 2 * m->opts.layer_count; i++)
        tdm_variable_destroy(m->vars[i]);
    free(m->vars);
    free(m->scratch);
    free(m->layers);
    free(m->standardize);
    free(m->std);
    free(m);
}

tdm_status tdm_model_set_standardization(tdm_model *m, const float *mean, const float *std)
{
    const char *func = "tdm_model_set_standardization";
    TDM_CHECK_ARG(m, func);
    if (!mean != !std)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: give both mean and std, or neither", func);
    size_t fc = m->opts.input_features;
    float *params = NULL, *kept = NULL;
    if (mean) {
        tdm_status s = tdm_standardize_check(mean, std, fc, func);
        if (s != TDM_OK)
            return s;
        params = malloc(2 * fc * sizeof *params);
        kept = malloc(fc * sizeof *kept);
        if (!params || !kept) {
            free(params);
            free(kept);
            return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
        }
        tdm_standardize_params(mean, std, fc, params);
        memcpy(kept, std, fc * sizeof *kept);
    }
    free(m->standardize);
    free(m->std);
    m->standardize = params;
    m->std = kept;
    return TDM_OK;
}

size_t tdm_model_input_count(const tdm_model *m)
{
    return m ? m->opts.input_features : 0;
}

tdm_loss_kind tdm_model_loss_kind(const tdm_model *m)
{
    return m ? m->opts.loss : TDM_LOSS_SOFTMAX_CROSS_ENTROPY;
}

size_t tdm_model_output_count(const tdm_model *m)
{
    return m ? m->layers[m->opts.layer_count - 1].units : 0;
}

size_t tdm_model_variable_count(const tdm_model *m)
{
    return m ? 2 * m->opts.layer_count : 0;
}

tdm_variable *tdm_model_variable(const tdm_model *m, size_t i)
{
    return m && i < 2 * m->opts.layer_count ? m->vars[i] : NULL;
}

size_t tdm_model_parameter_count(const tdm_model *m)
{
    size_t n = 0;
    for (size_t l = 0; m && l < m->opts.layer_count; l++)
        n += (tdm_model_input_width(m, l) + 1) * m->layers[l].units;
    return n;
}

uint64_t tdm_model_dropout_seed(const tdm_model *m, uint64_t step, size_t l)
{
    return tdm_seed_mix(m->opts.seed ^ tdm_seed_mix(step * m->opts.layer_count + l + 1));
}
