/* What batch and layer normalisation share. */
#include "base/error.h"
#include "model/layers/normalise.h"

const char *const tdm_gamma_and_beta[] = {"gamma", "beta", NULL};

float tdm_layer_epsilon(const tdm_layer *d)
{
    return d->epsilon > 0.0f ? d->epsilon : 1e-3f;
}

float tdm_layer_momentum(const tdm_layer *d)
{
    return d->momentum > 0.0f ? d->momentum : 0.99f;
}

tdm_status tdm_norm_check(const tdm_layer *d, size_t l, const char *f)
{
    if (d->units || d->activation != TDM_ACT_LINEAR || d->dropout != 0.0f ||
        !(d->epsilon >= 0.0f && d->epsilon < 1.0f) || !(d->momentum >= 0.0f && d->momentum < 1.0f))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) takes no units, activation or dropout, an "
                        "epsilon in [0, 1) and a momentum in [0, 1)",
                        f, l, tdm_layer_kind_name(d->kind));
    return TDM_OK;
}

tdm_status tdm_norm_plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                         const char *f)
{
    (void)o, (void)f;
    tdm_layer_plan *p = &plans[l];
    p->out_h = p->in_h, p->out_w = p->in_w, p->out_c = p->in_c;
    return TDM_OK;
}

tdm_shape tdm_norm_variable_shape(const tdm_layer *d, const tdm_layer_plan *p, size_t k)
{
    (void)d, (void)k;
    return TDM_SHAPE(p->in_c);
}

void tdm_norm_initial(const tdm_model *m, size_t l, size_t k, float *value, size_t count)
{
    (void)m, (void)l;
    for (size_t i = 0; k == 0 && i < count; i++)
        value[i] = 1.0f;
}

tdm_status tdm_norm_channels_view(const tdm_tensor *t, size_t rows, const tdm_layer_plan *p,
                                  tdm_tensor **out)
{
    return tdm_tensor_slice((tdm_tensor *)t, 0, &TDM_SHAPE(rows * p->in_h * p->in_w, p->in_c), out);
}
