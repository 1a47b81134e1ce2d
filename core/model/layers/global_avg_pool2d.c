/* global_avg_pool2d: each channel's mean over the whole image, a flat vector of
 * channels out. It is average pooling with one window, the image: its passes are
 * avg_pool2d's kernels (and their f16 twin), which sum the window in order and divide
 * by its size, so it shares their conformance and gradient checks. No variables. */
#include "model/layers/images.h"

static tdm_status plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l, const char *f)
{
    tdm_status s = tdm_layer_needs_image(o, l, f);
    tdm_layer_plan *p = &plans[l];
    p->win = (tdm_window){
        .height = p->in_h, .width = p->in_w, .stride_h = p->in_h, .stride_w = p->in_w};
    p->out_h = p->out_w = 1;
    p->out_c = p->in_c;
    return s;
}

static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    (void)fa;
    return tdm_layer_pool_forward(m, v, l, x, TDM_POOL_AVERAGE);
}

static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    (void)a;
    return tdm_layer_pool_backward(m, v, l, x, TDM_POOL_AVERAGE);
}

const tdm_layer_type tdm_layer_global_avg_pool2d = {
    .flattens = 1,
    .plan = plan,
    .forward = forward,
    .backward = backward,
};
