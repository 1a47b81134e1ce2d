/* max_pool2d: the largest of each window, channel by channel; no variables. */
#include "model/layers/images.h"

static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    (void)fa;
    return tdm_layer_pool_forward(m, v, l, x, TDM_POOL_MAX);
}

static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    (void)a;
    return tdm_layer_pool_backward(m, v, l, x, TDM_POOL_MAX);
}

static tdm_status onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out)
{
    return tdm_layer_pool_onnx(m, l, g, TDM_POOL_MAX, in[0], out);
}

const tdm_layer_type tdm_layer_max_pool2d = {
    .takes = TDM_TAKES_WINDOW,
    .plan = tdm_layer_pool_plan,
    .forward = forward,
    .backward = backward,
    .onnx = onnx,
};
