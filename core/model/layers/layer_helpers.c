/* What every kind of layer calls: the kinds' names and traits (from tandem/layer_kinds.def),
 * their seeded initial values and dropout keys, their gradients' readiness. Below the
 * kinds, so it names none of them: their table is layer_registry.c's. */
#include <math.h>

#include "base/error.h"

#include "model/layers/layer_type.h"
#include "model/seed_mix.h"

static const char *const kind_names[] = {
#define TDM_LAYER_KIND(id, name, ...) #name,
#include "tandem/layer_kinds.def"
#undef TDM_LAYER_KIND
    NULL};

static const unsigned kind_traits[] = {
#define TDM_LAYER_KIND(id, name, traits, ...) (traits),
#include "tandem/layer_kinds.def"
#undef TDM_LAYER_KIND
};

const char *const *tdm_layer_kind_names(void)
{
    return kind_names;
}

const char *tdm_layer_kind_name(tdm_layer_kind kind)
{
    return (unsigned)kind < TDM_LAYER_KIND_COUNT ? kind_names[kind] : "unknown";
}

tdm_status tdm_layer_positions_view(const tdm_tensor *t, size_t rows, size_t width,
                                    tdm_tensor **out)
{
    return tdm_tensor_slice((tdm_tensor *)t, 0, &TDM_SHAPE(rows, width), out);
}

unsigned tdm_layer_kind_traits(tdm_layer_kind kind)
{
    return (unsigned)kind < TDM_LAYER_KIND_COUNT ? kind_traits[kind] : 0;
}

size_t tdm_layer_name_count(const char *const *names)
{
    size_t n = 0;
    while (names && names[n])
        n++;
    return n;
}

tdm_status tdm_layer_position_sums(const tdm_model_views *v, size_t l, size_t positions,
                                   tdm_tensor *out, const tdm_tensor *x)
{
    size_t width = tdm_tensor_count(out);
    tdm_tensor *rows = NULL, *partial = NULL, *by_position = NULL;
    tdm_status s = tdm_layer_positions_view(x, v->rows, positions * width, &rows);
    if (s == TDM_OK)
        s = tdm_tensor_slice(v->b.partial[l], 0, &TDM_SHAPE(positions * width), &partial);
    if (s == TDM_OK)
        s = tdm_tensor_slice(v->b.partial[l], 0, &TDM_SHAPE(positions, width), &by_position);
    if (s == TDM_OK)
        s = tdm_op_sum_rows(partial, rows);
    if (s == TDM_OK)
        s = tdm_op_sum_rows(out, by_position);
    tdm_tensor_destroy(by_position);
    tdm_tensor_destroy(partial);
    tdm_tensor_destroy(rows);
    return s;
}

tdm_status tdm_layer_sequence_plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                                   const char *f)
{
    tdm_layer_plan *p = &plans[l];
    p->out_h = p->in_h, p->out_w = p->in_w, p->out_c = p->in_c;
    if (o->activation_dtype != TDM_F16)
        return TDM_OK;
    return tdm_fail(TDM_ERR_UNSUPPORTED,
                    "%s: layer %zu (%s) with activation_dtype f16: a sequence's layers take f32 "
                    "activations (mixed precision rounds their neighbours' products)",
                    f, l, tdm_layer_kind_name(o->layers[l].kind));
}

uint64_t tdm_model_dropout_seed(const tdm_model *m, uint64_t step, size_t l)
{
    return tdm_seed_mix(m->opts.seed ^ tdm_seed_mix(step * m->opts.layer_count + l + 1));
}

void tdm_layer_uniform(const tdm_model *m, size_t l, double limit, float *value, size_t count)
{
    tdm_layer_uniform_of(m, l, 0, limit, value, count);
}

void tdm_layer_uniform_of(const tdm_model *m, size_t l, size_t k, double limit, float *value,
                          size_t count)
{
    uint64_t layer = tdm_seed_mix(m->opts.seed ^ tdm_seed_mix(l + 1));
    uint64_t state = k ? tdm_seed_mix(layer ^ tdm_seed_mix((uint64_t)k << 32)) : layer;
    for (size_t i = 0; i < count; i++) {
        double u = (double)(tdm_seed_next(&state) >> 11) * 0x1p-53; /* [0, 1) */
        value[i] = (float)((2.0 * u - 1.0) * limit);
    }
}

void tdm_layer_glorot(const tdm_model *m, size_t l, size_t fan_in, size_t fan_out, float *value,
                      size_t count)
{
    tdm_activation act = m->layers[l].activation;
    int he = act == TDM_ACT_RELU || act == TDM_ACT_GELU;
    tdm_layer_uniform(m, l, sqrt(6.0 / (double)(he ? fan_in : fan_in + fan_out)), value, count);
}

tdm_status tdm_layer_grads_ready(const tdm_model *m, size_t l, const tdm_loss_args *a)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_status s = TDM_OK;
    for (size_t k = 0; k < p->var_count && s == TDM_OK; k++)
        s = tdm_loss_args_gradient_ready(a, p->first_var + k);
    return s;
}
