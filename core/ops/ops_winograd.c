/* Winograd F(2x2, 3x3) convolutions (kernels.def): the image's 4x4 tiles and the
 * filter transformed, one GEMM per plane of the 16, and the output transform. The
 * input gradient is the same convolution of dy, padded by 2 - pad, with the filter
 * rotated by 180 degrees and its channels swapped, whose transform is the forward's
 * with its planes permuted and transposed: no kernel of its own. */
#include "base/error.h"
#include "kernel/kernel.h"
#include "kernel/kernel_args.h"
#include "device/memory/scratch_pool.h"
#include "device/memory/tensor_impl.h"
#include "ops/ops_check.h"
#include "ops/ops_images.h"
#include "tandem/ops.h"

#define PLANES 16u

int tdm_conv2d_winograd_fits(const tdm_window *win)
{
    return win && win->height == 3 && win->width == 3 && win->stride_h == 1 && win->stride_w == 1;
}

/* Plane (r, s) of the rotated filter's transform is plane (r', s') of the filter's,
 * r' and s' swapping 0 and 3 (G times the reversal is G with rows 0 and 3 swapped). */
static unsigned rotated_plane(unsigned plane)
{
    static const unsigned swap[4] = {3, 1, 2, 0};
    return 4 * swap[plane / 4] + swap[plane % 4];
}

/* out = image convolved with f's 3x3 window at stride 1 from (-pad_top, -pad_left);
 * rotated: with f rotated and its channels swapped (f is [3, 3, out's, image's]). */
static tdm_status convolve(const char *fn, tdm_tensor *out, const tdm_tensor *image,
                           const tdm_tensor *f, uint32_t pad_top, uint32_t pad_left, int rotated)
{
    const size_t *in = image->shape.dims, *o = out->shape.dims;
    const uint32_t batch = (uint32_t)in[0], oh = (uint32_t)o[1], ow = (uint32_t)o[2];
    const uint32_t c_in = (uint32_t)in[3], c_out = (uint32_t)o[3];
    const uint32_t f_rows = (uint32_t)f->shape.dims[2], f_cols = (uint32_t)f->shape.dims[3];
    const size_t tiles = (size_t)batch * ((oh + 1u) / 2u) * ((ow + 1u) / 2u);
    /* each buffer's plane, then the elements its planes start apart */
    const size_t plane[3] = {tiles * c_in, (size_t)c_in * c_out, tiles * c_out};
    size_t stride[3], bytes = 0;
    for (int b = 0; b < 3; b++) {
        stride[b] = (size_t)tdm_winograd_stride(plane[b]);
        bytes += PLANES * stride[b] * sizeof(float);
    }
    tdm_buffer *scratch = NULL;
    tdm_status s = tdm_scratch_acquire(out->device, bytes, &scratch);
    if (s != TDM_OK)
        return tdm_fail_context(s, "%s: the transformed tiles' %zu bytes", fn, bytes);
    /* the transformed tiles, filter and products, and plane p of each */
    const tdm_buffer_view tv = {scratch, 0, PLANES * stride[0] * sizeof(float)};
    const tdm_buffer_view tu = {scratch, tv.size, PLANES * stride[1] * sizeof(float)};
    const tdm_buffer_view tm = {scratch, tv.size + tu.size, PLANES * stride[2] * sizeof(float)};
#define PLANE(view, b, p)                                                                          \
    {                                                                                              \
        scratch, (view).offset + (p)*stride[b] * sizeof(float), plane[b] * sizeof(float)           \
    }

    const tdm_winograd_input_args ia = {.v = tv,
                                        .x = tdm_tensor_view(image),
                                        .batch = batch,
                                        .h = (uint32_t)in[1],
                                        .w = (uint32_t)in[2],
                                        .c = c_in,
                                        .oh = oh,
                                        .ow = ow,
                                        .pad_top = pad_top,
                                        .pad_left = pad_left};
    tdm_kernel_call call = tdm_winograd_input_call(&ia);
    s = tdm_ops_run(fn, out, &call);
    const tdm_winograd_filter_args fa = {
        .u = tu, .f = tdm_tensor_view(f), .rows = f_rows, .cols = f_cols};
    call = tdm_winograd_filter_call(&fa);
    if (s == TDM_OK)
        s = tdm_ops_run(fn, out, &call);
    for (unsigned p = 0; p < PLANES && s == TDM_OK; p++) {
        const unsigned fp = rotated ? rotated_plane(p) : p;
        tdm_gemm_args g = {.c = PLANE(tm, 2, p),
                           .a = PLANE(tv, 0, p),
                           .b = PLANE(tu, 1, fp),
                           .m = (uint32_t)tiles,
                           .n = c_out,
                           .k = c_in,
                           .lda = c_in,
                           .ldb = f_cols,
                           .ldc = c_out,
                           .trans_a = 0,
                           .trans_b = rotated ? 1u : 0u,
                           .alpha = 1.0f,
                           .beta = 0.0f};
        call = tdm_gemm_call(&g);
        s = tdm_ops_run(fn, out, &call);
    }
    const tdm_winograd_output_args oa = {
        .y = tdm_tensor_view(out), .m = tm, .batch = batch, .oh = oh, .ow = ow, .oc = c_out};
    call = tdm_winograd_output_call(&oa);
    if (s == TDM_OK)
        s = tdm_ops_run(fn, out, &call);
#undef PLANE
    tdm_scratch_release(scratch); /* issued: later users of the pool run after it */
    return s;
}

static tdm_status check_fits(const char *fn, const tdm_window *win)
{
    if (tdm_conv2d_winograd_fits(win))
        return TDM_OK;
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                    "%s: a %zu x %zu window of strides %zu x %zu; Winograd F(2x2, 3x3) computes "
                    "3 x 3 windows of stride 1",
                    fn, win->height, win->width, win->stride_h, win->stride_w);
}

tdm_status tdm_conv2d_winograd(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *f,
                               const tdm_window *win)
{
    const char *fn = "tdm_conv2d_winograd";
    tdm_image_geometry g;
    tdm_status s = tdm_check_conv_images(fn, "x", x, "y", y, f, win, &g);
    if (s == TDM_OK)
        s = check_fits(fn, win);
    if (s != TDM_OK || y->count == 0)
        return s;
    if (x->count == 0 || f->count == 0)
        return tdm_op_fill(y, 0.0f);
    return convolve(fn, y, x, f, g.pad_top, g.pad_left, 0);
}

tdm_status tdm_conv2d_winograd_grad_filter(tdm_tensor *df, const tdm_tensor *x,
                                           const tdm_tensor *dy, tdm_tensor *col,
                                           const tdm_window *win)
{
    if (!col)
        return tdm_conv2d_implicit_grad_filter(df, x, dy, win);
    const tdm_shape out = tdm_tensor_shape(dy); /* the forward left no im2col matrix */
    tdm_status s = tdm_conv2d_im2col(col, x, win, out.dims[1], out.dims[2]);
    return s == TDM_OK ? tdm_conv2d_lowered_grad_filter(df, col, x, dy, win, NULL) : s;
}

tdm_status tdm_conv2d_winograd_grad_input(tdm_tensor *dx, const tdm_tensor *dy, const tdm_tensor *f,
                                          const tdm_window *win)
{
    const char *fn = "tdm_conv2d_winograd_grad_input";
    tdm_image_geometry g;
    tdm_status s = tdm_check_conv_images(fn, "dx", dx, "dy", dy, f, win, &g);
    if (s == TDM_OK)
        s = check_fits(fn, win);
    if (s != TDM_OK || dx->count == 0)
        return s;
    if (dy->count == 0 || f->count == 0)
        return tdm_op_fill(dx, 0.0f);
    return convolve(fn, dx, dy, f, 2u - g.pad_top, 2u - g.pad_left, 1);
}
