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

/* tdm_op_conv2d and its gradients' results as GEMMs that read the image where im2col
 * would have copied it (GEMM's rounding); TDM_ERR_UNSUPPORTED on a device without the
 * kernels. */
tdm_status tdm_conv2d_implicit(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *f,
                               const tdm_window *win);
tdm_status tdm_conv2d_implicit_grad_filter(tdm_tensor *df, const tdm_tensor *x,
                                           const tdm_tensor *dy, const tdm_window *win);
tdm_status tdm_conv2d_implicit_grad_input(tdm_tensor *dx, const tdm_tensor *dy, const tdm_tensor *f,
                                          const tdm_window *win);

#endif
