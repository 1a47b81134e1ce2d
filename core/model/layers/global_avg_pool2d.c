/* global_avg_pool2d: each channel's mean over the whole image, a flat vector of
 * channels out, through tdm_op_global_avg_pool and its gradient (bitwise average
 * pooling with the image as its one window). No variables. */
#include "model/layers/images.h"
#include "model/onnx/onnx_ops.h"

static tdm_status plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l, const char *f)
{
    (void)o, (void)f;
    tdm_layer_plan *p = &plans[l];
    p->out_h = p->out_w = 1;
    p->out_c = p->in_c;
    return TDM_OK;
}

/* The layer's image input (t, of the layer before) and its flat output (u, of this
 * layer): their first rows, as the ops take them. */
static tdm_status views(const tdm_layer_plan *p, const tdm_tensor *t, const tdm_tensor *u,
                        size_t rows, tdm_tensor **image, tdm_tensor **flat)
{
    tdm_status s = tdm_layer_input_image(p, t, rows, image);
    return s == TDM_OK ? tdm_tensor_slice((tdm_tensor *)u, 0, &TDM_SHAPE(rows, p->out_c), flat) : s;
}

static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    (void)fa;
    tdm_tensor *xi = NULL, *y = NULL;
    tdm_status s = views(&m->plans[l], x, v->b.z[l], v->rows, &xi, &y);
    if (s == TDM_OK)
        s = tdm_op_global_avg_pool(y, xi);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(xi);
    return s;
}

static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    (void)a, (void)x;
    tdm_tensor *into = tdm_model_input_grad(m, v, l, 0), *dx = NULL, *dy = NULL;
    if (!into)
        return TDM_OK;
    tdm_status s = views(&m->plans[l], into, v->b.g[l], v->rows, &dx, &dy);
    if (s == TDM_OK)
        s = tdm_op_global_avg_pool_grad(dx, dy);
    tdm_tensor_destroy(dy);
    tdm_tensor_destroy(dx);
    return s;
}

/* ReduceMean over the positions of [N, positions, channels]. */
static tdm_status onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_onnx_value x = tdm_onnx_positions(g, in[0], p->in_h * p->in_w, p->in_c);
    const int64_t positions_axis = 1;
    *out = tdm_onnx_node_begin(g, "ReduceMean", &x, 1);
    tdm_onnx_attr_ints(g, "axes", &positions_axis, 1);
    tdm_onnx_attr_int(g, "keepdims", 0);
    tdm_onnx_node_end(g);
    return TDM_OK;
}

const tdm_layer_type tdm_layer_global_avg_pool2d = {
    .flattens = 1,
    .plan = plan,
    .forward = forward,
    .backward = backward,
    .onnx = onnx,
};
