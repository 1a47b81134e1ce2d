/* residual: y = x + the input of the layer `skip` layers back, ResNet's shortcut;
 * that input has x's shape. No variables: the stacked models' add, whose second
 * input the graph resolves to that shortcut. */
#include "base/error.h"
#include "model/layers/merges.h"

static tdm_status check(const tdm_layer *d, size_t l, const char *f)
{
    if (d->skip && d->skip <= l)
        return TDM_OK;
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                    "%s: layer %zu (residual) has skip %zu; a shortcut starts from 1 to the "
                    "layer's index layers back",
                    f, l, d->skip);
}

/* The input of layer l - skip has the shape of layer l's, which it keeps. */
static tdm_status plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l, const char *f)
{
    tdm_layer_plan *p = &plans[l];
    size_t from_l = l - o->layers[l].skip;
    const tdm_layer_plan *from = &plans[from_l];
    p->out_h = p->in_h, p->out_w = p->in_w, p->out_c = p->in_c;
    if (from->in_h == p->in_h && from->in_w == p->in_w && from->in_c == p->in_c)
        return TDM_OK;
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                    "%s: layer %zu (residual) adds the input of layer %zu, %zu x %zu x %zu, to "
                    "its own, %zu x %zu x %zu: a shortcut joins equal shapes",
                    f, l, from_l, from->in_h, from->in_w, from->in_c, p->in_h, p->in_w, p->in_c);
}

const tdm_layer_type tdm_layer_residual = {
    .takes = TDM_TAKES_SKIP,
    .check = check,
    .plan = plan,
    .forward = tdm_merge_add_forward,
    .backward = tdm_merge_add_backward,
    .onnx = tdm_merge_add_onnx,
};
