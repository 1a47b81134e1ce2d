/* What the image layers share: views of the activations as images, the windows'
 * plan, the poolings' passes and the per-channel sums. */
#include "base/error.h"
#include "model/layers/images.h"
#include "model/onnx/onnx_ops.h"
#include "ops/ops_images.h"

/* t's first rows * h * w * c elements as an image. */
static tdm_status image(const tdm_tensor *t, size_t rows, size_t h, size_t w, size_t c,
                        tdm_tensor **out)
{
    return tdm_tensor_slice((tdm_tensor *)t, 0, &TDM_SHAPE(rows, h, w, c), out);
}

tdm_status tdm_layer_input_image(const tdm_layer_plan *p, const tdm_tensor *t, size_t rows,
                                 tdm_tensor **out)
{
    return image(t, rows, p->in_h, p->in_w, p->in_c, out);
}

tdm_status tdm_layer_output_image(const tdm_layer_plan *p, const tdm_tensor *t, size_t rows,
                                  tdm_tensor **out)
{
    return image(t, rows, p->out_h, p->out_w, p->out_c, out);
}

static tdm_status valid_windows(size_t in, size_t k, size_t stride, size_t *out, const char *f,
                                size_t l)
{
    if (in < k)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu: a window of %zu does not fit its input of %zu with "
                        "VALID padding",
                        f, l, k, in);
    *out = (in - k) / stride + 1;
    return TDM_OK;
}

tdm_status tdm_layer_plan_window(const tdm_layer *d, tdm_layer_plan *p, int pool, size_t out_c,
                                 const char *f, size_t l)
{
    if (!d->kernel_h || !d->kernel_w || d->kernel_h > 4096 || d->kernel_w > 4096 ||
        d->stride_h > 4096 || d->stride_w > 4096 || (unsigned)d->padding > TDM_PADDING_VALID)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) needs a window of 1 to 4096 each way, strides up to "
                        "4096 and a known padding",
                        f, l, tdm_layer_kind_name(d->kind));
    p->win = (tdm_window){.height = d->kernel_h,
                          .width = d->kernel_w,
                          .stride_h = d->stride_h ? d->stride_h
                                      : pool      ? d->kernel_h
                                                  : 1,
                          .stride_w = d->stride_w ? d->stride_w
                                      : pool      ? d->kernel_w
                                                  : 1};
    tdm_status s = TDM_OK;
    if (d->padding == TDM_PADDING_SAME)
        tdm_window_same(&p->win, p->in_h, p->in_w, &p->out_h, &p->out_w);
    else
        s = valid_windows(p->in_h, d->kernel_h, p->win.stride_h, &p->out_h, f, l);
    if (s == TDM_OK && d->padding == TDM_PADDING_VALID)
        s = valid_windows(p->in_w, d->kernel_w, p->win.stride_w, &p->out_w, f, l);
    p->out_c = out_c;
    return s;
}

tdm_status tdm_layer_pool_plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                               const char *f)
{
    return tdm_layer_plan_window(&o->layers[l], &plans[l], 1, plans[l].in_c, f, l);
}

tdm_status tdm_layer_pool_forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                                  const tdm_tensor *x, tdm_pooling kind)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *xi = NULL, *zi = NULL;
    tdm_status s = tdm_layer_input_image(p, x, v->rows, &xi);
    if (s == TDM_OK)
        s = tdm_layer_output_image(p, v->b.z[l], v->rows, &zi);
    if (s == TDM_OK)
        s = tdm_op_pool2d(kind, zi, xi, &p->win);
    tdm_tensor_destroy(zi);
    tdm_tensor_destroy(xi);
    return s;
}

tdm_status tdm_layer_pool_backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                                   const tdm_tensor *x, tdm_pooling kind)
{
    tdm_tensor *dx = tdm_model_input_grad(m, v, l, 0);
    if (!dx)
        return TDM_OK;
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *xi = NULL, *dxi = NULL, *gi = NULL;
    tdm_status s = tdm_layer_input_image(p, x, v->rows, &xi);
    if (s == TDM_OK)
        s = tdm_layer_input_image(p, dx, v->rows, &dxi);
    if (s == TDM_OK)
        s = tdm_layer_output_image(p, v->b.g[l], v->rows, &gi);
    if (s == TDM_OK)
        s = tdm_pool2d_grad(kind, dxi, gi, xi, &p->win,
                            p->inputs[0] >= 0 && m->plans[p->inputs[0]].relu_grad_by_reader);
    tdm_tensor_destroy(gi);
    tdm_tensor_destroy(dxi);
    tdm_tensor_destroy(xi);
    return s;
}

tdm_status tdm_layer_channel_sums(const tdm_model_views *v, size_t l, tdm_tensor *out,
                                  const tdm_tensor *t)
{
    tdm_status s = tdm_op_sum_rows(v->b.partial[l], t);
    return s == TDM_OK ? tdm_op_sum_rows(out, v->b.partial[l]) : s;
}

tdm_status tdm_layer_reserve_partial(const tdm_model *m, size_t l, tdm_model_scratch *sc)
{
    const tdm_layer_plan *p = &m->plans[l];
    return tdm_tensor_create(sc->device, TDM_F32, &TDM_SHAPE(p->out_h * p->out_w, p->out_c),
                             &sc->b.partial[l]);
}

tdm_status tdm_layer_pool_onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, tdm_pooling kind,
                               tdm_onnx_value x, tdm_onnx_value *out)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_onnx_value image = tdm_onnx_to_nchw(g, x, p->in_h, p->in_w, p->in_c);
    int max = kind == TDM_POOL_MAX;
    tdm_onnx_value y = tdm_onnx_node_begin(g, max ? "MaxPool" : "AveragePool", &image, 1);
    tdm_onnx_window_attrs(g, &p->win, p->in_h, p->in_w, p->out_h, p->out_w);
    if (!max)
        tdm_onnx_attr_int(g, "count_include_pad", 0);
    tdm_onnx_node_end(g);
    *out = tdm_onnx_from_nchw(g, y);
    return TDM_OK;
}
