/* The public convolution and pooling operations over NHWC images: shape checks, then
 * the table's kernels. */
#include "base/error.h"
#include "kernel/kernel_args.h"
#include "device/memory/scratch_pool.h"
#include "device/memory/tensor_impl.h"
#include "ops/ops_check.h"
#include "ops/ops_images.h"
#include "tandem/nn.h"
#include "tandem/ops.h"

void tdm_window_same(tdm_window *win, size_t h, size_t w, size_t *out_h, size_t *out_w)
{
    size_t sh = win->stride_h ? win->stride_h : 1, sw = win->stride_w ? win->stride_w : 1;
    *out_h = (h + sh - 1) / sh;
    *out_w = (w + sw - 1) / sw;
    size_t need_h = (*out_h ? *out_h - 1 : 0) * sh + win->height;
    size_t need_w = (*out_w ? *out_w - 1 : 0) * sw + win->width;
    win->pad_top = need_h > h ? (need_h - h) / 2 : 0;
    win->pad_left = need_w > w ? (need_w - w) / 2 : 0;
}

static tdm_status check_rank4(const char *f, const char *what, const tdm_tensor *t)
{
    char got[64];
    if (t->shape.rank != 4)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: '%s' has shape %s, expected rank 4", f, what,
                        tdm_shape_format(&t->shape, got, sizeof got));
    return TDM_OK;
}

static tdm_status check_window(const char *f, const tdm_window *win)
{
    if (!win)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument 'win' is NULL", f);
    if (!win->height || !win->width || !win->stride_h || !win->stride_w ||
        win->height > UINT32_MAX || win->width > UINT32_MAX || win->stride_h > UINT32_MAX ||
        win->stride_w > UINT32_MAX)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: a window of %zu x %zu with strides %zu x %zu: each must be at least "
                        "1",
                        f, win->height, win->width, win->stride_h, win->stride_w);
    if (win->pad_top >= win->height || win->pad_left >= win->width)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: padding %zu above and %zu left of the image: each must be less "
                        "than the window (%zu x %zu), or whole windows would see only padding",
                        f, win->pad_top, win->pad_left, win->height, win->width);
    return TDM_OK;
}

/* The uints of an image of dims x, an output of oh x ow positions of oc channels and
 * the window. */
static tdm_image_geometry geometry_of(const size_t *x, size_t oh, size_t ow, size_t oc,
                                      const tdm_window *win)
{
    return (tdm_image_geometry){(uint32_t)x[0],
                                (uint32_t)x[1],
                                (uint32_t)x[2],
                                (uint32_t)x[3],
                                (uint32_t)oh,
                                (uint32_t)ow,
                                (uint32_t)oc,
                                (uint32_t)win->height,
                                (uint32_t)win->width,
                                (uint32_t)win->stride_h,
                                (uint32_t)win->stride_w,
                                (uint32_t)win->pad_top,
                                (uint32_t)win->pad_left};
}

/* image [batch, h, w, c] and out [batch, oh, ow, oc] (oc = c for pooling, filter
 * NULL) on one device, with the filter [kh, kw, c, oc] matching the window. */
static tdm_status check_images_as(const char *f, const char *in_name, const tdm_tensor *image,
                                  tdm_dtype in_dtype, const char *out_name, const tdm_tensor *out,
                                  tdm_dtype out_dtype, const tdm_tensor *filter,
                                  const tdm_window *win, tdm_image_geometry *g)
{
    *g = (tdm_image_geometry){0}; /* set on every path, for the optimiser's flow analysis */
    tdm_status s = tdm_ops_check(f, out_name, out, out_dtype, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, in_name, image, in_dtype, out->device);
    if (s == TDM_OK && filter)
        s = tdm_ops_check(f, "f", filter, TDM_F32, out->device);
    if (s == TDM_OK)
        s = check_window(f, win);
    if (s == TDM_OK)
        s = check_rank4(f, in_name, image);
    if (s == TDM_OK)
        s = check_rank4(f, out_name, out);
    if (s == TDM_OK && filter)
        s = check_rank4(f, "f", filter);
    if (s != TDM_OK)
        return s;
    const size_t *x = image->shape.dims, *y = out->shape.dims;
    size_t oc = filter ? filter->shape.dims[3] : x[3];
    if (y[0] != x[0] || y[3] != oc)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: '%s' is [%zu, %zu, %zu, %zu]; with '%s' of batch %zu it must be "
                        "[%zu, *, *, %zu]",
                        f, out_name, y[0], y[1], y[2], y[3], in_name, x[0], x[0], oc);
    if (filter && (filter->shape.dims[0] != win->height || filter->shape.dims[1] != win->width ||
                   filter->shape.dims[2] != x[3]))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the filter is [%zu, %zu, %zu, %zu]; a %zu x %zu window over %zu "
                        "channels needs [%zu, %zu, %zu, out]",
                        f, filter->shape.dims[0], filter->shape.dims[1], filter->shape.dims[2],
                        filter->shape.dims[3], win->height, win->width, x[3], win->height,
                        win->width, x[3]);
    *g = geometry_of(x, y[1], y[2], oc, win);
    return TDM_OK;
}

tdm_status tdm_check_conv_images(const char *f, const char *in_name, const tdm_tensor *image,
                                 const char *out_name, const tdm_tensor *out,
                                 const tdm_tensor *filter, const tdm_window *win,
                                 tdm_image_geometry *g)
{
    return check_images_as(f, in_name, image, TDM_F32, out_name, out, TDM_F32, filter, win, g);
}

#define CONV_UINTS(g)                                                                              \
    .batch = (g).batch, .h = (g).h, .w = (g).w, .c = (g).c, .oh = (g).oh, .ow = (g).ow,            \
    .oc = (g).oc, .kh = (g).kh, .kw = (g).kw, .stride_h = (g).stride_h, .stride_w = (g).stride_w,  \
    .pad_top = (g).pad_top, .pad_left = (g).pad_left
#define POOL_UINTS(g)                                                                              \
    .batch = (g).batch, .h = (g).h, .w = (g).w, .c = (g).c, .oh = (g).oh, .ow = (g).ow,            \
    .kh = (g).kh, .kw = (g).kw, .stride_h = (g).stride_h, .stride_w = (g).stride_w,                \
    .pad_top = (g).pad_top, .pad_left = (g).pad_left

/* conv2d's three products by the direct kernels or as implicit GEMMs: the kernels of
 * each pair take the same arguments, so one call serves both. */
static tdm_status conv_forward(const char *fn, tdm_kernel kernel, tdm_tensor *y,
                               const tdm_tensor *x, const tdm_tensor *f, const tdm_window *win)
{
    tdm_image_geometry g;
    tdm_status s = tdm_check_conv_images(fn, "x", x, "y", y, f, win, &g);
    if (s != TDM_OK || y->count == 0)
        return s;
    if (x->count == 0 || f->count == 0) /* no terms: every sum is 0 */
        return tdm_op_fill(y, 0.0f);
    const tdm_conv2d_args a = {
        .y = tdm_tensor_view(y), .x = tdm_tensor_view(x), .f = tdm_tensor_view(f), CONV_UINTS(g)};
    tdm_kernel_call call = tdm_conv2d_call(&a);
    call.kernel = kernel;
    return tdm_ops_run(fn, y, &call);
}

static tdm_status conv_grad_input(const char *fn, tdm_kernel kernel, tdm_tensor *dx,
                                  const tdm_tensor *dy, const tdm_tensor *f, const tdm_window *win)
{
    tdm_image_geometry g;
    tdm_status s = tdm_check_conv_images(fn, "dx", dx, "dy", dy, f, win, &g);
    if (s != TDM_OK || dx->count == 0)
        return s;
    if (dy->count == 0 || f->count == 0)
        return tdm_op_fill(dx, 0.0f);
    const tdm_conv2d_grad_input_args a = {.dx = tdm_tensor_view(dx),
                                          .dy = tdm_tensor_view(dy),
                                          .f = tdm_tensor_view(f),
                                          CONV_UINTS(g)};
    tdm_kernel_call call = tdm_conv2d_grad_input_call(&a);
    call.kernel = kernel;
    return tdm_ops_run(fn, dx, &call);
}

static tdm_status conv_grad_filter(const char *fn, tdm_kernel kernel, tdm_tensor *df,
                                   const tdm_tensor *x, const tdm_tensor *dy, const tdm_window *win)
{
    tdm_image_geometry g;
    tdm_status s = df ? tdm_check_conv_images(fn, "x", x, "dy", dy, df, win, &g)
                      : tdm_ops_check(fn, "df", df, TDM_F32, NULL);
    if (s != TDM_OK || df->count == 0)
        return s;
    /* The kernel adds to df: the gradient alone starts from zeros. */
    s = tdm_op_fill(df, 0.0f);
    if (s != TDM_OK || x->count == 0 || dy->count == 0)
        return s;
    const tdm_conv2d_grad_filter_args a = {.df = tdm_tensor_view(df),
                                           .x = tdm_tensor_view(x),
                                           .dy = tdm_tensor_view(dy),
                                           CONV_UINTS(g)};
    tdm_kernel_call call = tdm_conv2d_grad_filter_call(&a);
    call.kernel = kernel;
    return tdm_ops_run(fn, df, &call);
}

tdm_status tdm_op_conv2d(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *f,
                         const tdm_window *win)
{
    return conv_forward("tdm_op_conv2d", TDM_KERNEL_conv2d, y, x, f, win);
}

tdm_status tdm_op_conv2d_grad_input(tdm_tensor *dx, const tdm_tensor *dy, const tdm_tensor *f,
                                    const tdm_window *win)
{
    return conv_grad_input("tdm_op_conv2d_grad_input", TDM_KERNEL_conv2d_grad_input, dx, dy, f,
                           win);
}

tdm_status tdm_op_conv2d_grad_filter(tdm_tensor *df, const tdm_tensor *x, const tdm_tensor *dy,
                                     const tdm_window *win)
{
    return conv_grad_filter("tdm_op_conv2d_grad_filter", TDM_KERNEL_conv2d_grad_filter, df, x, dy,
                            win);
}

tdm_status tdm_conv2d_implicit(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *f,
                               const tdm_window *win)
{
    return conv_forward("tdm_conv2d_implicit", TDM_KERNEL_conv2d_implicit, y, x, f, win);
}

/* tdm_check_conv_images, then a bias [oc] (or its gradient) on the output's device. */
static tdm_status check_conv_bias(const char *fn, const char *in_name, const tdm_tensor *image,
                                  const char *out_name, const tdm_tensor *out,
                                  const tdm_tensor *filter, const tdm_window *win,
                                  const char *bias_name, const tdm_tensor *bias,
                                  tdm_image_geometry *g)
{
    tdm_status s = tdm_check_conv_images(fn, in_name, image, out_name, out, filter, win, g);
    if (s == TDM_OK)
        s = tdm_ops_check(fn, bias_name, bias, TDM_F32, out->device);
    return s == TDM_OK ? tdm_ops_check_count(fn, bias_name, bias, g->oc) : s;
}

tdm_status tdm_conv2d_implicit_bias_relu(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *f,
                                         const tdm_tensor *b, const tdm_window *win)
{
    const char *fn = "tdm_conv2d_implicit_bias_relu";
    tdm_image_geometry g;
    tdm_status s = check_conv_bias(fn, "x", x, "y", y, f, win, "b", b, &g);
    if (s != TDM_OK || y->count == 0)
        return s;
    const tdm_conv2d_implicit_bias_relu_args a = {.y = tdm_tensor_view(y),
                                                  .x = tdm_tensor_view(x),
                                                  .f = tdm_tensor_view(f),
                                                  .b = tdm_tensor_view(b),
                                                  CONV_UINTS(g)};
    tdm_kernel_call call = tdm_conv2d_implicit_bias_relu_call(&a);
    return tdm_ops_run(fn, y, &call);
}

tdm_status tdm_conv2d_implicit_grad_filter_bias(tdm_tensor *df, tdm_tensor *db, const tdm_tensor *x,
                                                const tdm_tensor *dy, const tdm_window *win)
{
    const char *fn = "tdm_conv2d_implicit_grad_filter_bias";
    tdm_image_geometry g;
    tdm_status s = check_conv_bias(fn, "x", x, "dy", dy, df, win, "db", db, &g);
    /* The kernel adds to both: the gradients alone start from zeros. */
    if (s == TDM_OK)
        s = tdm_op_fill(df, 0.0f);
    if (s == TDM_OK)
        s = tdm_op_fill(db, 0.0f);
    if (s != TDM_OK || dy->count == 0)
        return s;
    const tdm_conv2d_implicit_grad_filter_bias_args a = {.df = tdm_tensor_view(df),
                                                         .x = tdm_tensor_view(x),
                                                         .dy = tdm_tensor_view(dy),
                                                         .db = tdm_tensor_view(db),
                                                         CONV_UINTS(g)};
    tdm_kernel_call call = tdm_conv2d_implicit_grad_filter_bias_call(&a);
    return tdm_ops_run(fn, df, &call);
}

tdm_status tdm_conv2d_implicit_grad_input(tdm_tensor *dx, const tdm_tensor *dy, const tdm_tensor *f,
                                          const tdm_window *win)
{
    return conv_grad_input("tdm_conv2d_implicit_grad_input", TDM_KERNEL_conv2d_implicit_grad_input,
                           dx, dy, f, win);
}

tdm_status tdm_conv2d_implicit_grad_filter(tdm_tensor *df, const tdm_tensor *x,
                                           const tdm_tensor *dy, const tdm_window *win)
{
    return conv_grad_filter("tdm_conv2d_implicit_grad_filter",
                            TDM_KERNEL_conv2d_implicit_grad_filter, df, x, dy, win);
}

static tdm_status check_kind(const char *fn, tdm_pooling kind)
{
    if ((unsigned)kind > TDM_POOL_AVERAGE)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown pooling %d", fn, (int)kind);
    return TDM_OK;
}

tdm_status tdm_op_pool2d(tdm_pooling kind, tdm_tensor *y, const tdm_tensor *x,
                         const tdm_window *win)
{
    const char *fn = "tdm_op_pool2d";
    const tdm_dtype storage = tdm_ops_storage(y); /* y and x: f32, or f16 activations */
    tdm_image_geometry g;
    tdm_status s = check_kind(fn, kind);
    if (s == TDM_OK)
        s = check_images_as(fn, "x", x, storage, "y", y, storage, NULL, win, &g);
    if (s != TDM_OK || y->count == 0)
        return s;
    if (x->count == 0) /* every window lies outside an empty image */
        return tdm_op_fill(y, 0.0f);
    tdm_kernel_call call;
    if (kind == TDM_POOL_MAX) {
        const tdm_max_pool2d_args a = {
            .y = tdm_tensor_view(y), .x = tdm_tensor_view(x), POOL_UINTS(g)};
        call = tdm_max_pool2d_call(&a);
    } else {
        const tdm_avg_pool2d_args a = {
            .y = tdm_tensor_view(y), .x = tdm_tensor_view(x), POOL_UINTS(g)};
        call = tdm_avg_pool2d_call(&a);
    }
    tdm_kernel_store_as(&call, storage);
    return tdm_ops_run(fn, y, &call);
}

tdm_status tdm_op_pool2d_grad(tdm_pooling kind, tdm_tensor *dx, const tdm_tensor *dy,
                              const tdm_tensor *x, const tdm_window *win)
{
    return tdm_pool2d_grad(kind, dx, dy, x, win, 0);
}

tdm_status tdm_pool2d_grad(tdm_pooling kind, tdm_tensor *dx, const tdm_tensor *dy,
                           const tdm_tensor *x, const tdm_window *win, int relu)
{
    const char *fn = "tdm_op_pool2d_grad";
    tdm_image_geometry g;
    tdm_status s = check_kind(fn, kind);
    if (s == TDM_OK && relu && kind != TDM_POOL_MAX)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: a ReLU's gradient joins max pooling's only",
                     fn);
    if (s == TDM_OK)
        s = tdm_check_conv_images(fn, "dx", dx, "dy", dy, NULL, win, &g);
    const tdm_dtype storage = tdm_ops_storage(x); /* max pooling's x: f32 or f16 */
    if (s == TDM_OK && kind == TDM_POOL_MAX) {
        s = tdm_ops_check(fn, "x", x, storage, dx->device);
        if (s == TDM_OK && !tdm_shape_equal(&x->shape, &dx->shape))
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                         "%s: 'x' must have the shape of 'dx', the forward's input", fn);
    }
    if (s != TDM_OK || dx->count == 0)
        return s;
    if (dy->count == 0)
        return tdm_op_fill(dx, 0.0f);
    tdm_kernel_call call;
    if (kind == TDM_POOL_MAX) {
        const tdm_max_pool2d_grad_args a = {.dx = tdm_tensor_view(dx),
                                            .dy = tdm_tensor_view(dy),
                                            .x = tdm_tensor_view(x),
                                            POOL_UINTS(g),
                                            .relu = relu != 0};
        call = tdm_max_pool2d_grad_call(&a);
        tdm_kernel_store_as(&call, storage);
    } else {
        const tdm_avg_pool2d_grad_args a = {
            .dx = tdm_tensor_view(dx), .dy = tdm_tensor_view(dy), POOL_UINTS(g)};
        call = tdm_avg_pool2d_grad_call(&a);
    }
    return tdm_ops_run(fn, dx, &call);
}

/* A global pooling's output and input, both of dtype on the output's device: the image
 * [batch, h, w, c] (the output where out_is_image) and its mean per channel [batch, c].
 * The image's dimensions into g. */
static tdm_status check_global(const char *f, const char *out_name, const tdm_tensor *out,
                               const char *in_name, const tdm_tensor *in, tdm_dtype dtype,
                               int out_is_image, tdm_image_geometry *g)
{
    *g = (tdm_image_geometry){0};
    tdm_status s = tdm_ops_check(f, out_name, out, dtype, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, in_name, in, dtype, out->device);
    const tdm_tensor *image = out_is_image ? out : in, *pooled = out_is_image ? in : out;
    if (s == TDM_OK)
        s = check_rank4(f, out_is_image ? out_name : in_name, image);
    if (s != TDM_OK)
        return s;
    const size_t *d = image->shape.dims;
    s = tdm_ops_check_matrix(f, out_is_image ? in_name : out_name, pooled, d[0], d[3]);
    if (s == TDM_OK)
        *g = (tdm_image_geometry){
            .batch = (uint32_t)d[0], .h = (uint32_t)d[1], .w = (uint32_t)d[2], .c = (uint32_t)d[3]};
    return s;
}

#define GLOBAL_UINTS(g) .batch = (g).batch, .h = (g).h, .w = (g).w, .c = (g).c

tdm_status tdm_op_global_avg_pool(tdm_tensor *y, const tdm_tensor *x)
{
    const char *fn = "tdm_op_global_avg_pool";
    const tdm_dtype storage = tdm_ops_storage(y); /* y and x: f32, or f16 activations */
    tdm_image_geometry g;
    tdm_status s = check_global(fn, "y", y, "x", x, storage, 0, &g);
    if (s != TDM_OK || y->count == 0)
        return s;
    if (x->count == 0) /* images of no positions */
        return tdm_op_fill(y, 0.0f);
    /* The sums in float, carried from one piece of rows to the next (kernel_run.c). */
    const size_t bytes = y->count * sizeof(float);
    tdm_buffer *sum = NULL;
    s = tdm_scratch_acquire(y->device, bytes, &sum);
    if (s != TDM_OK)
        return tdm_fail_context(s, "%s: the sums' %zu bytes", fn, bytes);
    const tdm_global_avg_pool_args a = {.y = tdm_tensor_view(y),
                                        .x = tdm_tensor_view(x),
                                        .sum = {sum, 0, bytes},
                                        GLOBAL_UINTS(g),
                                        .row0 = 0,
                                        .rows = g.h};
    tdm_kernel_call call = tdm_global_avg_pool_call(&a);
    tdm_kernel_store_as(&call, storage);
    s = tdm_ops_run(fn, y, &call);
    tdm_scratch_release(sum); /* issued: later users of the pool run after it */
    return s;
}

tdm_status tdm_op_global_avg_pool_grad(tdm_tensor *dx, const tdm_tensor *dy)
{
    const char *fn = "tdm_op_global_avg_pool_grad";
    tdm_image_geometry g;
    tdm_status s = check_global(fn, "dx", dx, "dy", dy, TDM_F32, 1, &g);
    if (s != TDM_OK || dx->count == 0)
        return s;
    const tdm_global_avg_pool_grad_args a = {
        .dx = tdm_tensor_view(dx), .dy = tdm_tensor_view(dy), GLOBAL_UINTS(g)};
    tdm_kernel_call call = tdm_global_avg_pool_grad_call(&a);
    return tdm_ops_run(fn, dx, &call);
}

/* t's first count elements as a rows x cols matrix; the lowered passes only read a
 * const t. */
static tdm_status matrix_view(const tdm_tensor *t, size_t rows, size_t cols, tdm_tensor **out)
{
    return tdm_tensor_slice((tdm_tensor *)t, 0, &TDM_SHAPE(rows, cols), out);
}

/* col holds the im2col matrix of g's positions. */
static tdm_status check_col(const char *fn, const tdm_tensor *col, tdm_dtype dtype,
                            const tdm_image_geometry *g, const tdm_device *dev)
{
    size_t need = (size_t)g->batch * g->oh * g->ow * g->kh * g->kw * g->c;
    tdm_status s = tdm_ops_check(fn, "col", col, dtype, dev);
    if (s == TDM_OK && col->count < need)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                     "%s: 'col' has %zu elements, the im2col matrix needs %zu", fn, col->count,
                     need);
    return s;
}

/* The matrices of a lowered convolution: the im2col matrix [positions, window], the
 * filter [window, oc] and the output [positions, oc]. */
typedef struct lowered {
    tdm_tensor *col, *filter, *out;
} lowered;

static void lowered_free(lowered *m)
{
    tdm_tensor_destroy(m->out);
    tdm_tensor_destroy(m->filter);
    tdm_tensor_destroy(m->col);
}

static tdm_status lowered_views(const tdm_image_geometry *g, const tdm_tensor *col,
                                const tdm_tensor *filter, const tdm_tensor *out, lowered *m)
{
    size_t positions = (size_t)g->batch * g->oh * g->ow, window = (size_t)g->kh * g->kw * g->c;
    *m = (lowered){0};
    tdm_status s = matrix_view(col, positions, window, &m->col);
    if (s == TDM_OK)
        s = matrix_view(filter, window, g->oc, &m->filter);
    if (s == TDM_OK)
        s = matrix_view(out, positions, g->oc, &m->out);
    if (s != TDM_OK)
        lowered_free(m);
    return s;
}

static tdm_status run_im2col(const char *fn, tdm_tensor *col, const tdm_tensor *x,
                             tdm_dtype storage, const tdm_image_geometry *g)
{
    const tdm_im2col_args a = {
        .col = tdm_tensor_view(col), .x = tdm_tensor_view(x), POOL_UINTS(*g)};
    tdm_kernel_call call = tdm_im2col_call(&a);
    tdm_kernel_store_as(&call, storage);
    return tdm_ops_run(fn, col, &call);
}

tdm_status tdm_conv2d_im2col(tdm_tensor *col, const tdm_tensor *x, const tdm_window *win, size_t oh,
                             size_t ow)
{
    const char *fn = "tdm_conv2d_im2col";
    const tdm_dtype storage = tdm_ops_storage(x); /* x and col: f32, or f16 activations */
    tdm_status s = tdm_ops_check(fn, "x", x, storage, NULL);
    if (s == TDM_OK)
        s = check_window(fn, win);
    if (s == TDM_OK)
        s = check_rank4(fn, "x", x);
    if (s != TDM_OK)
        return s;
    const tdm_image_geometry g = geometry_of(x->shape.dims, oh, ow, 0, win);
    s = check_col(fn, col, storage, &g, x->device);
    return s == TDM_OK && col->count ? run_im2col(fn, col, x, storage, &g) : s;
}

tdm_status tdm_conv2d_lowered(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *f,
                              tdm_tensor *col, const tdm_window *win, const tdm_halves *halves)
{
    const char *fn = "tdm_conv2d_lowered";
    const tdm_dtype storage = tdm_ops_storage(x); /* x and col: f32, or f16 activations */
    tdm_image_geometry g;
    tdm_status s = check_images_as(fn, "x", x, storage, "y", y, TDM_F32, f, win, &g);
    if (s == TDM_OK)
        s = check_col(fn, col, storage, &g, y->device);
    if (s != TDM_OK || y->count == 0)
        return s;
    if (x->count == 0 || f->count == 0)
        return tdm_op_fill(y, 0.0f);
    s = run_im2col(fn, col, x, storage, &g);
    lowered m;
    if (s == TDM_OK && (s = lowered_views(&g, col, f, y, &m)) == TDM_OK) {
        s = tdm_matmul_mixed(halves, m.out, m.col, 0, m.filter, 0, 1.0f, 0.0f);
        lowered_free(&m);
    }
    return s;
}

tdm_status tdm_conv2d_lowered_grad_filter(tdm_tensor *df, const tdm_tensor *col,
                                          const tdm_tensor *x, const tdm_tensor *dy,
                                          const tdm_window *win, const tdm_halves *halves)
{
    const char *fn = "tdm_conv2d_lowered_grad_filter";
    const tdm_dtype storage = tdm_ops_storage(x); /* x and col: f32, or f16 activations */
    tdm_image_geometry g;
    tdm_status s = check_images_as(fn, "x", x, storage, "dy", dy, TDM_F32, df, win, &g);
    if (s == TDM_OK)
        s = check_col(fn, col, storage, &g, df->device);
    if (s != TDM_OK || df->count == 0)
        return s;
    lowered m;
    if ((s = lowered_views(&g, col, df, dy, &m)) == TDM_OK) {
        s = tdm_matmul_mixed(halves, m.filter, m.col, 1, m.out, 0, 1.0f, 0.0f);
        lowered_free(&m);
    }
    return s;
}

tdm_status tdm_conv2d_lowered_grad_input(tdm_tensor *dx, const tdm_tensor *dy, const tdm_tensor *f,
                                         tdm_tensor *col, const tdm_window *win,
                                         const tdm_halves *halves)
{
    const char *fn = "tdm_conv2d_lowered_grad_input";
    tdm_image_geometry g;
    tdm_status s = tdm_check_conv_images(fn, "dx", dx, "dy", dy, f, win, &g);
    if (s == TDM_OK)
        s = check_col(fn, col, TDM_F32, &g, dx->device); /* it holds d(loss) / dcol */
    if (s != TDM_OK || dx->count == 0)
        return s;
    if (dy->count == 0 || f->count == 0)
        return tdm_op_fill(dx, 0.0f);
    lowered m;
    if ((s = lowered_views(&g, col, f, dy, &m)) == TDM_OK) {
        s = tdm_matmul_mixed(halves, m.col, m.out, 0, m.filter, 1, 1.0f, 0.0f);
        lowered_free(&m);
    }
    if (s != TDM_OK)
        return s;
    const tdm_col2im_args a = {
        .dx = tdm_tensor_view(dx), .col = tdm_tensor_view(col), POOL_UINTS(g)};
    tdm_kernel_call call = tdm_col2im_call(&a);
    return tdm_ops_run(fn, dx, &call);
}
