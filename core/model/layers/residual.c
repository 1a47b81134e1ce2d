/* residual: y = x + the input of the layer `skip` layers back, ResNet's shortcut;
 * that input has x's shape. No variables. */
#include "base/error.h"
#include "model/layers/layer_type.h"
#include "tandem/ops.h"

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

/* z is stored as x is; a shortcut stored otherwise (the model's f32 input to f16
 * activations) is converted into z first. */
static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    size_t from = l - m->layers[l].skip;
    const tdm_tensor *shortcut = from ? v->out[from - 1] : fa->x;
    tdm_status s = TDM_OK;
    if (tdm_tensor_dtype(shortcut) != tdm_tensor_dtype(v->b.z[l])) {
        s = tdm_op_cast(v->b.z[l], shortcut);
        shortcut = v->b.z[l];
    }
    return s == TDM_OK ? tdm_op_add(v->b.z[l], x, shortcut) : s;
}

/* d(x + shortcut) / dx = 1; the model adds the shortcut's part where it starts. */
static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    (void)m, (void)a, (void)x;
    return tdm_tensor_copy(v->b.g[l - 1], v->b.g[l]);
}

const tdm_layer_type tdm_layer_residual = {
    .takes = TDM_TAKES_SKIP,
    .check = check,
    .plan = plan,
    .forward = forward,
    .backward = backward,
};
