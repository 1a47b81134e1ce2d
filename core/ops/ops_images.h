/* Internal: convolution as matrix products. Lowered (im2col, GEMM, col2im), for
 * callers that keep the im2col matrix: a model keeps one per convolution layer, so the
 * filter gradient reuses the forward's. Shapes as tdm_op_conv2d's; col holds at
 * least batch * oh * ow * kh * kw * c floats. The products are mixed precision where
 * halves is given (ops_mixed.h), else f32. Implicit: the same products without the
 * matrix, f32, on devices with the conv2d_implicit kernels (Vulkan's). */
#ifndef TDM_CORE_OPS_IMAGES_H
#define TDM_CORE_OPS_IMAGES_H

#include "ops/ops_mixed.h"
#include "tandem/nn.h"

/* The uints every image kernel takes, read off the tensors' shapes. */
typedef struct tdm_image_geometry {
    uint32_t batch, h, w, c, oh, ow, oc, kh, kw, stride_h, stride_w, pad_top, pad_left;
} tdm_image_geometry;

/* f32 image [batch, h, w, c] and out [batch, oh, ow, oc] on one device, the filter
 * [kh, kw, c, oc] matching the window (oc = c without a filter): g from their shapes. */
tdm_status tdm_check_conv_images(const char *f, const char *in_name, const tdm_tensor *image,
                                 const char *out_name, const tdm_tensor *out,
                                 const tdm_tensor *filter, const tdm_window *win,
                                 tdm_image_geometry *g);

/* col = im2col(x) for an output of oh x ow positions: the matrix that
 * tdm_conv2d_lowered_grad_filter reads, where the forward did not lower. */
tdm_status tdm_conv2d_im2col(tdm_tensor *col, const tdm_tensor *x, const tdm_window *win, size_t oh,
                             size_t ow);

/* col = im2col(x), then y = col * f. x and col may hold f16 activations (both; y
 * stays f32): the halves are then the product's operand as they are. */
tdm_status tdm_conv2d_lowered(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *f,
                              tdm_tensor *col, const tdm_window *win, const tdm_halves *halves);

/* df = col^T * dy, col the im2col matrix of x that tdm_conv2d_lowered left (x gives
 * the shapes). */
tdm_status tdm_conv2d_lowered_grad_filter(tdm_tensor *df, const tdm_tensor *col,
                                          const tdm_tensor *x, const tdm_tensor *dy,
                                          const tdm_window *win, const tdm_halves *halves);

/* col = dy * f^T, then dx = col2im(col): col (f32) is overwritten. */
tdm_status tdm_conv2d_lowered_grad_input(tdm_tensor *dx, const tdm_tensor *dy, const tdm_tensor *f,
                                         tdm_tensor *col, const tdm_window *win,
                                         const tdm_halves *halves);

/* tdm_op_pool2d_grad; with relu (max pooling), then 0 wherever x > 0 fails, in the
 * same launch: the gradient through the ReLU whose output x is as well, bitwise
 * tdm_op_activation_grad's after the pooling's. */
tdm_status tdm_pool2d_grad(tdm_pooling kind, tdm_tensor *dx, const tdm_tensor *dy,
                           const tdm_tensor *x, const tdm_window *win, int relu);

/* tdm_op_conv2d and its gradients' results as GEMMs that read the image where im2col
 * would have copied it (GEMM's rounding); TDM_ERR_UNSUPPORTED on a device without the
 * kernels. */
tdm_status tdm_conv2d_implicit(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *f,
                               const tdm_window *win);
/* y = relu(tdm_conv2d_implicit's sums + b[o]) in one launch, b [oc]: a ReLU
 * convolution layer's output (kernels.def: conv2d_implicit_bias_relu);
 * TDM_ERR_UNSUPPORTED on a device without the kernel. */
tdm_status tdm_conv2d_implicit_bias_relu(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *f,
                                         const tdm_tensor *b, const tdm_window *win);
tdm_status tdm_conv2d_implicit_grad_filter(tdm_tensor *df, const tdm_tensor *x,
                                           const tdm_tensor *dy, const tdm_window *win);
tdm_status tdm_conv2d_implicit_grad_input(tdm_tensor *dx, const tdm_tensor *dy, const tdm_tensor *f,
                                          const tdm_window *win);
/* The filter's gradient as tdm_conv2d_implicit_grad_filter's and the bias's, db [oc]
 * the sums of dy over every position, in one launch (kernels.def:
 * conv2d_implicit_grad_filter_bias); TDM_ERR_UNSUPPORTED on a device without it. */
tdm_status tdm_conv2d_implicit_grad_filter_bias(tdm_tensor *df, tdm_tensor *db, const tdm_tensor *x,
                                                const tdm_tensor *dy, const tdm_window *win);

/* Winograd F(2x2, 3x3): tdm_op_conv2d's y and its input gradient for a 3x3 window of
 * stride 1, as 16 GEMMs over transformed 4x4 tiles (2.25x fewer multiply-adds; the
 * transforms round, docs/KERNELS.md). Scratch from the device's pool holds the
 * transformed tiles and filter; TDM_ERR_INVALID_ARGUMENT for another window. */
int tdm_conv2d_winograd_fits(const tdm_window *win);
tdm_status tdm_conv2d_winograd(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *f,
                               const tdm_window *win);
tdm_status tdm_conv2d_winograd_grad_input(tdm_tensor *dx, const tdm_tensor *dy, const tdm_tensor *f,
                                          const tdm_window *win);
/* A Winograd layer's filter gradient, not Winograd's: im2col into col and GEMM where
 * col is given (devices without the implicit kernels), else implicit. */
tdm_status tdm_conv2d_winograd_grad_filter(tdm_tensor *df, const tdm_tensor *x,
                                           const tdm_tensor *dy, tdm_tensor *col,
                                           const tdm_window *win);

#endif
