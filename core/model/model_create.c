/* The sequential model made and unmade: its options, variables and their initial
 * values, and what it tells of them. Above its plan, scratch and room, which read
 * the struct (model_impl.h) and call nothing here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/checked_size.h"
#include "device/device_impl.h"
#include "base/error.h"
#include "kernel/kernel.h"
#include "model/layers/layer_type.h"
#include "input/standardize.h"

static tdm_status check_size(const tdm_model_options *o, const char *f)
{
    if (o->size != sizeof *o)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: options.size is %zu, expected %zu: use "
                        "TDM_MODEL_OPTIONS_INIT",
                        f, o->size, sizeof *o);
    if (o->reserved[0])
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: options.reserved is not 0: use TDM_MODEL_OPTIONS_INIT (a caller built "
                        "against a newer header sets fields this library does not have)",
                        f);
    return TDM_OK;
}

/* Variable i, from value when given, else initialised from the seed. */
static tdm_status create_variable(tdm_model *m, size_t i, const float *value, const char *func,
                                  tdm_variable **out)
{
    size_t l = tdm_model_variable_layer(m, i), k = i - m->plans[l].first_var;
    tdm_shape shape = tdm_layer_variable_shape(&m->layers[l], &m->plans[l], k);
    size_t count = tdm_shape_count(&shape);
    float *init = value ? NULL : calloc(count, sizeof *init);
    if (!value && !init)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    if (init)
        tdm_layer_type_of(m->layers[l].kind)->initial(m, l, k, init, count);
    char name[48];
    tdm_model_variable_name(m, i, name, sizeof name);
    tdm_variable_options vo = TDM_VARIABLE_OPTIONS_INIT;
    vo.name = name;
    vo.shape = shape;
    vo.initial_value = value ? value : init;
    tdm_status s = tdm_variable_create(m->strategy, &vo, out);
    free(init);
    return s;
}

/* Moving statistic k (batch norm's mean, then variance): sync-on-read, averaged on a
 * cross-replica read, not trainable; from value, else 0 for a mean, 1 for a
 * variance. */
static tdm_status create_state(tdm_model *m, size_t k, const float *value, const char *func,
                               tdm_variable **out)
{
    size_t l = tdm_model_state_layer(m, k);
    size_t channels = m->plans[l].in_c;
    int variance = k > m->plans[l].first_state;
    float *init = value ? NULL : malloc(channels * sizeof *init);
    if (!value && !init)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t c = 0; init && c < channels; c++)
        init[c] = variance ? 1.0f : 0.0f;
    char name[48];
    tdm_model_state_name(m, k, name, sizeof name);
    tdm_variable_options vo = TDM_VARIABLE_OPTIONS_INIT;
    vo.name = name;
    vo.shape = TDM_SHAPE(channels);
    vo.synchronization = TDM_SYNC_ON_READ;
    vo.aggregation = TDM_AGG_MEAN;
    vo.trainable = 0;
    vo.initial_value = value ? value : init;
    tdm_status s = tdm_variable_create(m->strategy, &vo, out);
    free(init);
    return s;
}

/* With f16 activations, every replica's device runs the kernels' float16 twins:
 * refused when the model is made, rather than at its first step. */
static tdm_status check_half_storage(const tdm_model *m, const char *func)
{
    if (m->opts.activation_dtype != TDM_F16)
        return TDM_OK;
    for (size_t r = 0; r < tdm_strategy_num_local_replicas(m->strategy); r++) {
        tdm_device *dev = tdm_strategy_device(m->strategy, r);
        for (int k = 0; k < TDM_KERNEL_COUNT; k++) {
            const tdm_kernel_info *info = tdm_kernel_get((tdm_kernel)k);
            if (info->base == (tdm_kernel)k || tdm_kernel_supported(dev, (tdm_kernel)k))
                continue;
            return tdm_fail(TDM_ERR_UNSUPPORTED,
                            "%s: activation_dtype f16: replica %zu's device %s does not run %s, "
                            "which stores activations in f16 (a Vulkan device needs "
                            "storageBuffer16BitAccess)",
                            func, r, dev->desc.id, info->name);
        }
    }
    return TDM_OK;
}

static tdm_status build(tdm_model *m, const float *const *values, const char *func)
{
    size_t layers = m->opts.layer_count, replicas = tdm_strategy_num_local_replicas(m->strategy);
    if (!m->opts.layers || !layers)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: a model needs at least one layer", func);
    m->layers = malloc(layers * sizeof *m->layers);
    m->plans = calloc(layers, sizeof *m->plans);
    m->scratch = calloc(replicas, sizeof *m->scratch);
    if (!m->layers || !m->plans || !m->scratch)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    memcpy(m->layers, m->opts.layers, layers * sizeof *m->layers);
    m->opts.layers = m->layers;
    tdm_status s = tdm_model_plan(&m->opts, m->plans, func);
    if (s == TDM_OK)
        s = check_half_storage(m, func);
    const tdm_layer_plan *last = &m->plans[layers - 1];
    if (s == TDM_OK)
        s = tdm_model_check_room(m, last->first_var + last->var_count, func);
    if (s != TDM_OK)
        return s;
    m->var_count = last->first_var + last->var_count;
    m->state_count = last->first_state + last->state_count;
    m->vars = calloc(m->var_count ? m->var_count : 1, sizeof *m->vars);
    m->states = calloc(m->state_count ? m->state_count : 1, sizeof *m->states);
    if (!m->vars || !m->states)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t i = 0; i < m->var_count && s == TDM_OK; i++)
        s = create_variable(m, i, values ? values[i] : NULL, func, &m->vars[i]);
    for (size_t k = 0; k < m->state_count && s == TDM_OK; k++)
        s = create_state(m, k, values ? values[m->var_count + k] : NULL, func, &m->states[k]);
    return s;
}

tdm_status tdm_model_create_with(tdm_strategy *s, const tdm_model_options *opts,
                                 const float *const *values, const char *func, tdm_model **out)
{
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(s, func);
    TDM_CHECK_ARG(opts, func);
    tdm_status st = check_size(opts, func);
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

tdm_strategy *tdm_model_strategy(const tdm_model *m)
{
    return m ? m->strategy : NULL;
}

void tdm_model_destroy(tdm_model *m)
{
    if (!m)
        return;
    for (size_t r = 0; m->scratch && r < tdm_strategy_num_local_replicas(m->strategy); r++)
        tdm_model_scratch_free(m, &m->scratch[r]);
    tdm_model_scratch_free(m, &m->eval);
    for (size_t i = 0; m->vars && i < m->var_count; i++)
        tdm_variable_destroy(m->vars[i]);
    for (size_t k = 0; m->states && k < m->state_count; k++)
        tdm_variable_destroy(m->states[k]);
    free(m->vars);
    free(m->states);
    free(m->scratch);
    free(m->layers);
    tdm_model_class_names_free(m); /* before the plans that give its count */
    free(m->plans);
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

tdm_status tdm_model_get_standardization(const tdm_model *m, float *mean, float *std)
{
    const char *func = "tdm_model_get_standardization";
    TDM_CHECK_ARG(m, func);
    TDM_CHECK_ARG(mean, func);
    TDM_CHECK_ARG(std, func);
    if (!m->standardize)
        return tdm_fail(TDM_ERR_NOT_FOUND, "%s: the model has no standardisation", func);
    size_t fc = m->opts.input_features;
    memcpy(mean, m->standardize, fc * sizeof *mean); /* the params start with the mean */
    memcpy(std, m->std, fc * sizeof *std);
    return TDM_OK;
}

size_t tdm_model_input_count(const tdm_model *m)
{
    return m ? m->opts.input_features : 0;
}

size_t tdm_model_input_widths(const tdm_model *m, size_t *widths, size_t max)
{
    if (!m)
        return 0;
    for (size_t k = 0; widths && k < max && k < m->opts.inputs; k++)
        widths[k] = m->opts.input_widths[k];
    return m->opts.inputs;
}

tdm_loss_kind tdm_model_loss_kind(const tdm_model *m)
{
    return m ? m->opts.loss : TDM_LOSS_SOFTMAX_CROSS_ENTROPY;
}

float tdm_model_huber_delta(const tdm_model *m)
{
    return m && m->opts.huber_delta > 0.0f ? m->opts.huber_delta : 1.0f;
}

size_t tdm_model_variable_count(const tdm_model *m)
{
    return m ? m->var_count : 0;
}

tdm_variable *tdm_model_variable(const tdm_model *m, size_t i)
{
    return m && i < m->var_count ? m->vars[i] : NULL;
}

size_t tdm_model_state_count(const tdm_model *m)
{
    return m ? m->state_count : 0;
}

tdm_variable *tdm_model_state(const tdm_model *m, size_t k)
{
    return m && k < m->state_count ? m->states[k] : NULL;
}

size_t tdm_model_parameter_count(const tdm_model *m)
{
    size_t n = 0;
    for (size_t i = 0; m && i < m->var_count; i++) {
        tdm_shape shape = tdm_variable_shape(m->vars[i]);
        n += tdm_shape_count(&shape);
    }
    return n;
}
