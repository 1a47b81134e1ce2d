/* The model's parameters against every replica's device, before any is made. */
#include <stdint.h>
#include <stdio.h>

#include "device/device_room.h"
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
