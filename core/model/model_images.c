/* The passes of the image layers (conv2d and pooling): the model keeps every
 * activation as a [rows, features] matrix, which these view as NHWC images. */
#include "base/error.h"
#include "device/tensor_impl.h"
#include "ops/ops_images.h"
#include "model/model_impl.h"

/* t's first rows * h * w * c elements as an image; the passes only read a const t. */
static tdm_status image(const tdm_tensor *t, size_t rows, size_t h, size_t w, size_t c,
                        tdm_tensor **out)
{
    return tdm_tensor_slice((tdm_tensor *)t, 0, &TDM_SHAPE(rows, h, w, c), out);
}

static tdm_status input_image(const tdm_layer_plan *p, const tdm_tensor *t, size_t rows,
                              tdm_tensor **out)
{
    return image(t, rows, p->in_h, p->in_w, p->in_c, out);
}

static tdm_status output_image(const tdm_layer_plan *p, const tdm_tensor *t, size_t rows,
                               tdm_tensor **out)
{
    return image(t, rows, p->out_h, p->out_w, p->out_c, out);
}

static tdm_pooling pooling_of(const tdm_layer *d)
{
    return d->kind == TDM_LAYER_MAX_POOL2D ? TDM_POOL_MAX : TDM_POOL_AVERAGE;
}

/* z[l] = conv2d(x, f) + b, or the pooling of x. */
tdm_status tdm_model_image_forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                                   const tdm_tensor *x, size_t copy)
{
    const tdm_layer *d = &m->layers[l];
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *xi = NULL, *zi = NULL, *rows = NULL, *product = NULL;
    tdm_status s = input_image(p, x, v->rows, &xi);
    if (s == TDM_OK && d->kind != TDM_LAYER_CONV2D)
        s = output_image(p, v->b.z[l], v->rows, &zi);
    if (s == TDM_OK && d->kind != TDM_LAYER_CONV2D)
        s = tdm_op_pool2d(pooling_of(d), zi, xi, &p->win);
    if (s == TDM_OK && d->kind == TDM_LAYER_CONV2D) {
        tdm_tensor *f = tdm_variable_copy(m->vars[p->first_var], copy);
        /* the product, then the bias of every position: the output as rows of channels */
        const size_t positions = v->rows * p->out_h * p->out_w;
        s = tdm_model_product(m, v, l, &TDM_SHAPE(v->rows, p->out_h, p->out_w, p->out_c), &zi);
        if (s == TDM_OK)
            s = v->b.col[l] ? tdm_conv2d_lowered(zi, xi, f, v->b.col[l], &p->win, &v->halves)
                            : tdm_op_conv2d(zi, xi, f, &p->win);
        if (s == TDM_OK)
            s = tdm_model_product(m, v, l, &TDM_SHAPE(positions, p->out_c), &product);
        if (s == TDM_OK)
            s = tdm_tensor_slice(v->b.z[l], 0, &TDM_SHAPE(positions, p->out_c), &rows);
        if (s == TDM_OK)
            s = tdm_op_bias_add(rows, product, tdm_variable_copy(m->vars[p->first_var + 1], copy));
    }
    tdm_tensor_destroy(product);
    tdm_tensor_destroy(rows);
    tdm_tensor_destroy(zi);
    tdm_tensor_destroy(xi);
    return s;
}

/* conv2d's gradients from g[l] = d(loss) / dz: the filter's, and the bias's as a sum
 * over the batch of every position, then over the positions (two short sums rather
 * than one over rows * positions, which would loop past lavapipe's limit). */
tdm_status tdm_model_conv_grads(const tdm_model *m, const tdm_model_views *v, size_t l,
                                const tdm_tensor *x, tdm_tensor *df, tdm_tensor *db)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *xi = NULL, *gi = NULL;
    tdm_status s = input_image(p, x, v->rows, &xi);
    if (s == TDM_OK)
        s = output_image(p, v->b.g[l], v->rows, &gi);
    if (s == TDM_OK)
        s = v->b.col[l]
                ? tdm_conv2d_lowered_grad_filter(df, v->b.col[l], xi, gi, &p->win, &v->halves)
                : tdm_op_conv2d_grad_filter(df, xi, gi, &p->win);
    if (s == TDM_OK)
        s = tdm_model_channel_sums(v, l, db, v->b.g[l]);
    tdm_tensor_destroy(gi);
    tdm_tensor_destroy(xi);
    return s;
}

/* dx = d(loss) / d(x) of a lowered convolution whose im2col matrix col is f16, once
 * the filter's gradient has read it: the f32 matrix the lowered way needs is twice
 * col's bytes, so col's memory holds it for half the rows at a time (pieces of
 * images; at least 2 rows). */
static tdm_status conv_grad_input_in_halves(const tdm_layer_plan *p, const tdm_model_views *v,
                                            size_t l, tdm_tensor *dx, const tdm_tensor *f)
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
            s = tdm_conv2d_lowered_grad_input(dxi, gi, f, dcol, &p->win, &v->halves);
        tdm_tensor_destroy(dcol);
        tdm_tensor_destroy(gi);
        tdm_tensor_destroy(dxi);
    }
    return s;
}

/* dx = d(loss) / d(the layer's input x) from g[l]. */
tdm_status tdm_model_image_grad_input(const tdm_model *m, const tdm_model_views *v, size_t l,
                                      const tdm_tensor *x, tdm_tensor *dx, const tdm_tensor *f)
{
    const tdm_layer *d = &m->layers[l];
    const tdm_layer_plan *p = &m->plans[l];
    tdm_tensor *xi = NULL, *dxi = NULL, *gi = NULL;
    tdm_status s = input_image(p, x, v->rows, &xi);
    if (s == TDM_OK)
        s = input_image(p, dx, v->rows, &dxi);
    if (s == TDM_OK)
        s = output_image(p, v->b.g[l], v->rows, &gi);
    /* an f16 im2col matrix holds the lowered way's f32 one in halves of the batch; a
     * single row takes the direct kernel */
    int half_col = v->b.col[l] && tdm_tensor_dtype(v->b.col[l]) == TDM_F16;
    if (s == TDM_OK && d->kind == TDM_LAYER_CONV2D && half_col && v->rows >= 2)
        s = conv_grad_input_in_halves(p, v, l, dx, f);
    else if (s == TDM_OK && d->kind == TDM_LAYER_CONV2D)
        s = v->b.col[l] && !half_col
                ? tdm_conv2d_lowered_grad_input(dxi, gi, f, v->b.col[l], &p->win, &v->halves)
                : tdm_op_conv2d_grad_input(dxi, gi, f, &p->win);
    else if (s == TDM_OK)
        s = tdm_op_pool2d_grad(pooling_of(d), dxi, gi, xi, &p->win);
    tdm_tensor_destroy(gi);
    tdm_tensor_destroy(dxi);
    tdm_tensor_destroy(xi);
    return s;
}
