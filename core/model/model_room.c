/* The model's parameters, and its training buffers for a batch, against every
 * replica's device, before any is made. */
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "device/device_room.h"
#include "model/layers/layer_type.h"
#include "model/model_impl.h"

/* bytes, saturating: a count that overflows is too large for any device anyway. */
static uint64_t f32_bytes(size_t count)
{
    return count > UINT64_MAX / sizeof(float) ? UINT64_MAX : (uint64_t)count * sizeof(float);
}

tdm_status tdm_model_check_room(const tdm_model *m, size_t var_count, const char *func)
{
    uint64_t total = 0, largest = 0;
    size_t largest_var = 0;
    for (size_t i = 0; i < var_count; i++) {
        size_t l = tdm_model_variable_layer(m, i);
        tdm_shape shape =
            tdm_layer_variable_shape(&m->layers[l], &m->plans[l], i - m->plans[l].first_var);
        uint64_t bytes = f32_bytes(tdm_shape_count(&shape));
        total = bytes > UINT64_MAX - total ? UINT64_MAX : total + bytes;
        if (bytes > largest) {
            largest = bytes;
            largest_var = i;
        }
    }
    char name[48], what[80];
    tdm_model_variable_name(m, largest_var, name, sizeof name);
    snprintf(what, sizeof what, "variable '%s'", name);
    tdm_status s = TDM_OK;
    for (size_t r = 0; s == TDM_OK && r < tdm_strategy_num_local_replicas(m->strategy); r++)
        s = tdm_device_check_room(tdm_strategy_device(m->strategy, r), largest, what, total,
                                  "the model's parameters", func);
    return s;
}

/* a + b, saturating */
static uint64_t add(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

static uint64_t times(uint64_t a, uint64_t b)
{
    return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

tdm_status tdm_model_check_batch(const tdm_model *m, size_t global_batch)
{
    const char *func = "tdm_model_check_batch";
    TDM_CHECK_ARG(m, func);
    if (!global_batch)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: the batch is 0", func);
    size_t replicas = tdm_strategy_num_replicas(m->strategy);
    uint64_t rows = (global_batch + replicas - 1) / (replicas ? replicas : 1);
    /* what tdm_model_scratch_reserve makes per layer: the output before and after its
     * activation and dropout, in the layer's storage, and its gradient in f32 */
    uint64_t total = 0, largest = 0;
    size_t largest_layer = 0;
    for (size_t l = 0; l < m->opts.layer_count; l++) {
        const tdm_layer_plan *p = &m->plans[l];
        const tdm_layer_type *t = tdm_layer_type_of(m->layers[l].kind);
        uint64_t elements = times(rows, tdm_plan_out_features(p));
        uint64_t stored = times(elements, p->storage == TDM_F16 ? 2 : 4), grad = times(elements, 4);
        int activates = (t->takes & TDM_TAKES_ACTIVATION) != 0;
        unsigned copies = 1 + activates + (activates && m->layers[l].dropout > 0.0f);
        total = add(total, add(times(stored, copies), grad));
        size_t work[TDM_LAYER_WORK] = {0};
        if (t->work)
            t->work(m, l, work);
        for (size_t k = 0; k < TDM_LAYER_WORK; k++) {
            uint64_t bytes = times(times(rows, work[k]), 4);
            total = add(total, bytes);
            grad = bytes > grad ? bytes : grad;
        }
        if (grad > largest) {
            largest = grad;
            largest_layer = l;
        }
    }
    total = add(total, times(rows, 4 * ((uint64_t)tdm_model_output_count(m) + 1)));
    char what[96], whole[96];
    snprintf(what, sizeof what, "layer %s%zu's activations for %llu rows",
             tdm_layer_kind_name(m->layers[largest_layer].kind), largest_layer,
             (unsigned long long)rows);
    snprintf(whole, sizeof whole, "the training buffers of a batch share of %llu rows",
             (unsigned long long)rows);
    tdm_status s = TDM_OK;
    for (size_t r = 0; s == TDM_OK && r < tdm_strategy_num_local_replicas(m->strategy); r++)
        s = tdm_device_check_room(tdm_strategy_device(m->strategy, r), largest, what, total,
                                  whole, func);
    return s;
}
