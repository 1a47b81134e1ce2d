/* conv2d: y = dropout(act(conv2d(x, f) + b)), a filter [kh, kw, c, units] and a bias
 * [units]; computed by the direct kernels, lowered to im2col and a matrix product, as
 * implicit matrix products or as Winograd's, as the device's choice says
 * (conv2d_choice.c). */
#include <stdlib.h>

#include "base/error.h"
#include "device/memory/tensor_impl.h"
#include "model/layers/images.h"
#include "ops/ops_images.h"
#include "model/onnx/onnx_ops.h"
#include "model/onnx/onnx_weights.h"

static tdm_status plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l, const char *f)
{
    return tdm_layer_plan_window(&o->layers[l], &plans[l], 0, o->layers[l].units, f, l);
}

static tdm_shape variable_shape(const tdm_layer *d, const tdm_layer_plan *p, size_t k)
{
    return k ? TDM_SHAPE(d->units) : TDM_SHAPE(d->kernel_h, d->kernel_w, p->in_c, d->units);
}

/* Over the window's fans: its inputs times the channels in, times the units out. */
static void initial(const tdm_model *m, size_t l, size_t k, float *value, size_t count)
{
    const tdm_layer *d = &m->layers[l];
    size_t window = d->kernel_h * d->kernel_w;
    if (k == 0)
        tdm_layer_glorot(m, l, window * m->plans[l].in_c, window * d->units, value, count);
}

/* The columns of a lowered convolution's im2col matrix: a row per example, every
 * output position's window. */
static size_t columns(const tdm_layer_plan *p)
{
    return p->out_h * p->out_w * p->win.height * p->win.width * p->in_c;
}

/* The bias's partial sums, and the im2col matrix where the convolution keeps one
 * (tdm_conv_keeps_columns), in the dtype of the layer's input, which im2col copies. */
static tdm_status reserve(const tdm_model *m, size_t l, tdm_model_scratch *sc, size_t rows)
{
    tdm_status s = tdm_layer_reserve_partial(m, l, sc);
    tdm_dtype in = tdm_model_input_storage(m->plans, &m->plans[l], 0);
    if (s == TDM_OK && tdm_conv_keeps_columns(sc->device, sc->choice[l].conv))
        s = tdm_tensor_create(sc->device, in, &TDM_SHAPE(rows, columns(&m->plans[l])),
                              &sc->b.col[l]);
    return s;
}

/* Whether layer l's implicit product, bias and ReLU run as one launch: f32
 * activations (the product is z, which a ReLU layer keeps in its output) on a device
 * with the fused kernel. */
static int fused_relu(const tdm_model *m, const tdm_model_views *v, size_t l, const tdm_tensor *z)
{
    return v->choice[l].conv == TDM_CONV_IMPLICIT && m->layers[l].activation == TDM_ACT_RELU &&
           m->plans[l].storage == TDM_F32 && tdm_conv_fuses_relu(tdm_tensor_device(z));
}

/* The product, then the bias and the activation of every position, in one launch (in
 * the product's own where fused_relu): the output as rows of channels. */
static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *xi = NULL, *zi = NULL, *rows = NULL, *act_rows = NULL, *product = NULL;
    tdm_tensor *f = tdm_variable_copy(m->vars[p->first_var], fa->copy);
    tdm_tensor *bias = tdm_variable_copy(m->vars[p->first_var + 1], fa->copy);
    const size_t positions = v->rows * p->out_h * p->out_w;
    tdm_status s = tdm_layer_input_image(p, x, v->rows, &xi);
    if (s == TDM_OK)
        s = tdm_model_product(m, v, l, &TDM_SHAPE(v->rows, p->out_h, p->out_w, p->out_c), &zi);
    if (s == TDM_OK && fused_relu(m, v, l, zi)) {
        s = tdm_conv2d_implicit_bias_relu(zi, xi, f, bias, &p->win);
        tdm_tensor_destroy(zi);
        tdm_tensor_destroy(xi);
        return s;
    }
    if (s == TDM_OK)
        s = v->choice[l].conv == TDM_CONV_IMPLICIT   ? tdm_conv2d_implicit(zi, xi, f, &p->win)
            : v->choice[l].conv == TDM_CONV_WINOGRAD ? tdm_conv2d_winograd(zi, xi, f, &p->win)
            : v->b.col[l]
                ? tdm_conv2d_lowered(zi, xi, f, v->b.col[l], &p->win, tdm_model_layer_halves(v, l))
                : tdm_op_conv2d(zi, xi, f, &p->win);
    if (s == TDM_OK)
        s = tdm_model_product(m, v, l, &TDM_SHAPE(positions, p->out_c), &product);
    if (s == TDM_OK)
        s = tdm_tensor_slice(v->b.z[l], 0, &TDM_SHAPE(positions, p->out_c), &rows);
    if (s == TDM_OK)
        s = tdm_tensor_slice(v->b.a[l], 0, &TDM_SHAPE(positions, p->out_c), &act_rows);
    if (s == TDM_OK)
        s = tdm_op_bias_activation(m->layers[l].activation, act_rows, rows, product, bias);
    tdm_tensor_destroy(product);
    tdm_tensor_destroy(act_rows);
    tdm_tensor_destroy(rows);
    tdm_tensor_destroy(zi);
    tdm_tensor_destroy(xi);
    return s;
}

/* The filter's gradient, and the bias's as a sum over the batch of every position,
 * then over the positions; both in one launch where the device has the implicit
 * kernel for them. */
static tdm_status variable_grads(const tdm_model *m, const tdm_model_views *v, size_t l,
                                 const tdm_loss_args *a, const tdm_tensor *x)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *df = a->grads[p->first_var], *db = a->grads[p->first_var + 1];
    tdm_tensor *xi = NULL, *gi = NULL;
    const int together =
        v->choice[l].conv == TDM_CONV_IMPLICIT && tdm_conv_fuses_bias_grad(tdm_tensor_device(df));
    tdm_status s = tdm_layer_input_image(p, x, v->rows, &xi);
    if (s == TDM_OK)
        s = tdm_layer_output_image(p, v->b.g[l], v->rows, &gi);
    if (s == TDM_OK && together)
        s = tdm_conv2d_implicit_grad_filter_bias(df, db, xi, gi, &p->win);
    else if (s == TDM_OK)
        s = v->choice[l].conv == TDM_CONV_IMPLICIT
                ? tdm_conv2d_implicit_grad_filter(df, xi, gi, &p->win)
            : v->choice[l].conv == TDM_CONV_WINOGRAD
                ? tdm_conv2d_winograd_grad_filter(df, xi, gi, v->b.col[l], &p->win)
            : v->b.col[l] ? tdm_conv2d_lowered_grad_filter(df, v->b.col[l], xi, gi, &p->win,
                                                           tdm_model_layer_halves(v, l))
                          : tdm_op_conv2d_grad_filter(df, xi, gi, &p->win);
    if (s == TDM_OK && !together)
        s = tdm_layer_channel_sums(v, l, db, v->b.g[l]);
    tdm_tensor_destroy(gi);
    tdm_tensor_destroy(xi);
    return s == TDM_OK ? tdm_layer_grads_ready(m, l, a) : s;
}

/* dx of a lowered convolution whose im2col matrix col is f16, once the filter's
 * gradient has read it: the f32 matrix the lowered way needs is twice col's bytes,
 * so col's memory holds it for half the rows at a time (pieces of images; at least
 * 2 rows). */
static tdm_status grad_input_in_halves(const tdm_layer_plan *p, const tdm_model_views *v, size_t l,
                                       tdm_tensor *dx, const tdm_tensor *f)
{
    size_t piece = v->rows / 2, in = tdm_plan_in_features(p), out = tdm_plan_out_features(p);
    size_t window = p->win.height * p->win.width * p->in_c;
    tdm_status s = TDM_OK;
    for (size_t first = 0; first < v->rows && s == TDM_OK; first += piece) {
        size_t rows = v->rows - first < piece ? v->rows - first : piece;
        tdm_tensor *dxi = NULL, *gi = NULL, *dcol = NULL;
        s = tdm_tensor_slice(dx, first * in, &TDM_SHAPE(rows, p->in_h, p->in_w, p->in_c), &dxi);
        if (s == TDM_OK)
            s = tdm_tensor_slice(v->b.g[l], first * out,
                                 &TDM_SHAPE(rows, p->out_h, p->out_w, p->out_c), &gi);
        if (s == TDM_OK)
            s = tdm_tensor_reinterpret(v->b.col[l], TDM_F32,
                                       &TDM_SHAPE(rows * p->out_h * p->out_w * window), &dcol);
        if (s == TDM_OK)
            s = tdm_conv2d_lowered_grad_input(dxi, gi, f, dcol, &p->win,
                                              tdm_model_layer_halves(v, l));
        tdm_tensor_destroy(dcol);
        tdm_tensor_destroy(gi);
        tdm_tensor_destroy(dxi);
    }
    return s;
}

/* dx = d(loss) / dx: an f16 im2col matrix holds the lowered way's f32
 * one in halves of the batch; a single row takes the direct kernel. */
static tdm_status grad_input(const tdm_model *m, const tdm_model_views *v, size_t l,
                             const tdm_tensor *f, tdm_tensor *dx)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *dxi = NULL, *gi = NULL;
    int half_col = v->b.col[l] && tdm_tensor_dtype(v->b.col[l]) == TDM_F16;
    if (half_col && v->rows >= 2)
        return grad_input_in_halves(p, v, l, dx, f);
    tdm_status s = tdm_layer_input_image(p, dx, v->rows, &dxi);
    if (s == TDM_OK)
        s = tdm_layer_output_image(p, v->b.g[l], v->rows, &gi);
    if (s == TDM_OK)
        s = v->choice[l].conv == TDM_CONV_IMPLICIT
                ? tdm_conv2d_implicit_grad_input(dxi, gi, f, &p->win)
            : v->choice[l].conv == TDM_CONV_WINOGRAD
                ? tdm_conv2d_winograd_grad_input(dxi, gi, f, &p->win)
            : v->b.col[l] && !half_col
                ? tdm_conv2d_lowered_grad_input(dxi, gi, f, v->b.col[l], &p->win,
                                                tdm_model_layer_halves(v, l))
                : tdm_op_conv2d_grad_input(dxi, gi, f, &p->win);
    tdm_tensor_destroy(gi);
    tdm_tensor_destroy(dxi);
    return s;
}

static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    tdm_status s = variable_grads(m, v, l, a, x);
    tdm_tensor *dx = tdm_model_input_grad(m, v, l, 0);
    if (s != TDM_OK || !dx)
        return s;
    return grad_input(m, v, l, tdm_variable_local(m->vars[m->plans[l].first_var], a->rc), dx);
}

static void from_kernel(tdm_layer *d, const uint64_t *dims)
{
    d->kernel_h = (size_t)dims[0];
    d->kernel_w = (size_t)dims[1];
    d->units = (size_t)dims[3];
}

/* The filter [kh, kw, c, units] as ONNX's Conv takes it, [units, c, kh, kw]. */
static tdm_status onnx_filter(tdm_onnx_graph *g, const tdm_model *m, size_t l, tdm_onnx_value *out)
{
    float *hwio = NULL;
    tdm_shape shape;
    tdm_status s = tdm_onnx_read_variable(m, l, 0, &hwio, &shape);
    if (s != TDM_OK)
        return s;
    size_t kh = shape.dims[0], kw = shape.dims[1], c = shape.dims[2], units = shape.dims[3];
    float *oihw = malloc(kh * kw * c * units * sizeof *oihw);
    if (!oihw) {
        free(hwio);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    for (size_t i = 0; i < kh; i++)
        for (size_t j = 0; j < kw; j++)
            for (size_t ch = 0; ch < c; ch++)
                for (size_t o = 0; o < units; o++)
                    oihw[((o * c + ch) * kh + i) * kw + j] =
                        hwio[((i * kw + j) * c + ch) * units + o];
    const int64_t dims[4] = {(int64_t)units, (int64_t)c, (int64_t)kh, (int64_t)kw};
    *out = tdm_onnx_floats(g, tdm_variable_name(m->vars[m->plans[l].first_var]), dims, 4, oihw);
    free(oihw);
    free(hwio);
    return TDM_OK;
}

/* Conv over the image in NCHW, its window's pads given explicitly. */
static tdm_status onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_onnx_value conv_in[3];
    tdm_status s = onnx_filter(g, m, l, &conv_in[1]);
    if (s == TDM_OK)
        s = tdm_onnx_variable(g, m, l, 1, &conv_in[2]);
    if (s != TDM_OK)
        return s;
    conv_in[0] = tdm_onnx_to_nchw(g, in[0], p->in_h, p->in_w, p->in_c);
    tdm_onnx_value y = tdm_onnx_node_begin(g, "Conv", conv_in, 3);
    tdm_onnx_window_attrs(g, &p->win, p->in_h, p->in_w, p->out_h, p->out_w);
    tdm_onnx_node_end(g);
    *out = tdm_onnx_from_nchw(g, y);
    return TDM_OK;
}

const tdm_layer_type tdm_layer_conv2d = {
    .variables = tdm_kernel_and_bias,
    .takes = TDM_TAKES_UNITS | TDM_TAKES_ACTIVATION | TDM_TAKES_WINDOW,
    .storage = TDM_STORE_HALF,
    .kernel_rank = 4,
    .check = tdm_layer_check_units,
    .plan = plan,
    .variable_shape = variable_shape,
    .product_columns = columns,
    .initial = initial,
    .reserve = reserve,
    .forward = forward,
    .backward = backward,
    .from_kernel = from_kernel,
    .onnx = onnx,
};
