/* tandem: the operations a model is built from, forward and backward, run on the
 * tensors' device. With them a loss function for any model, not only a sequential
 * stack, computes its loss and the gradients of its variables (tdm_loss_fn in
 * train.h). Every tensor of one call is float32 (labels: int32) and lives on one
 * device; calls are asynchronous and ordered like every other operation there. */
#ifndef TANDEM_NN_H
#define TANDEM_NN_H

#include "tandem/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tdm_activation {
    TDM_ACT_LINEAR,
    TDM_ACT_RELU,
    TDM_ACT_TANH,
    TDM_ACT_SIGMOID,
    TDM_ACT_GELU
} tdm_activation;

/* How a loss is reduced over examples (docs/SEMANTICS.md, Losses and gradients):
 * a replica's share is the sum of its per-example losses divided by the step's
 * global batch size (SUM_OVER_BATCH_SIZE), or the plain sum (SUM), so that summing
 * the replicas' shares gives the step's loss either way. */
typedef enum tdm_loss_reduction {
    TDM_LOSS_SUM_OVER_BATCH_SIZE = 0, /* the default */
    TDM_LOSS_SUM = 1
} tdm_loss_reduction;

/* "linear", "relu", "tanh", "sigmoid", "gelu"; "unknown" out of range. */
TDM_API const char *tdm_activation_name(tdm_activation act);
/* The activation of that name; TDM_ERR_NOT_FOUND listing the names for another. */
TDM_API tdm_status tdm_activation_parse(const char *name, tdm_activation *out);
/* The names tdm_activation_parse accepts, in the enum's order, NULL-terminated
 * (static: never freed). */
TDM_API const char *const *tdm_activation_names(void);

/* c = alpha * op(a) * op(b) + beta * c for 2-D tensors, op(a) m x k, op(b) k x n,
 * c m x n; op transposes when trans_* is 1. beta 0 ignores c's old contents. c is
 * f32; a and b are both f32, or both f16 (mixed precision: every product of two
 * halves is exact in f32, and the sums are f32, as a tensor core with f32
 * accumulation; no device f16 support is needed). */
TDM_API tdm_status tdm_op_matmul(tdm_tensor *c, const tdm_tensor *a, int trans_a,
                                 const tdm_tensor *b, int trans_b, float alpha, float beta);

/* y[r, c] = x[r, c] + b[c]: x and y rows x cols, b cols. y may be f16 (an activation
 * stored in half, rounded to nearest even); x and b are f32. */
TDM_API tdm_status tdm_op_bias_add(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *b);

/* z = x + b as tdm_op_bias_add computes it, then y = act(z) as tdm_op_activation
 * computes it from z as stored: bitwise the two operations, in one launch (a layer's
 * bias and activation). y and z are rows x cols of one dtype, f32 or f16; x (which may
 * be z) and b as tdm_op_bias_add's. */
TDM_API tdm_status tdm_op_bias_activation(tdm_activation act, tdm_tensor *y, tdm_tensor *z,
                                          const tdm_tensor *x, const tdm_tensor *b);

/* out[c] = sum over r of x[r, c] (a bias gradient): x rows x cols, out cols. */
TDM_API tdm_status tdm_op_sum_rows(tdm_tensor *out, const tdm_tensor *x);

/* out (one element) = the sum of x's elements, in a fixed order. */
TDM_API tdm_status tdm_op_sum(tdm_tensor *out, const tdm_tensor *x);

/* y = min(max(x, lo), hi) element-wise (clip by value); NaN stays NaN. y may be x. */
TDM_API tdm_status tdm_op_clip(tdm_tensor *y, const tdm_tensor *x, float lo, float hi);

/* y[r, c] = (c == labels[r]) ? 1 : 0: y rows x classes, int32 labels rows; a label
 * outside [0, classes) gives a row of zeros. */
TDM_API tdm_status tdm_op_one_hot(tdm_tensor *y, const tdm_tensor *labels);

/* y = act(x) (y may be x). x and y are both f32, or both f16: activations stored in
 * half, computed in f32 and rounded to nearest even (no device f16 arithmetic). */
TDM_API tdm_status tdm_op_activation(tdm_activation act, tdm_tensor *y, const tdm_tensor *x);

/* dx = dy * act'(x), from the forward's input x and output y (the kernels use
 * whichever is cheaper; dx may be dy). dx and dy are f32; x and y both f32, or both
 * f16 (the forward's activations stored in half). */
TDM_API tdm_status tdm_op_activation_grad(tdm_activation act, tdm_tensor *dx, const tdm_tensor *dy,
                                          const tdm_tensor *x, const tdm_tensor *y);

/* A layer's activation and bias gradients: dx = dy * act'(x) as tdm_op_activation_grad
 * computes it (dx may be dy), then db[c] = the sum over r of dx[r, c] as
 * tdm_op_sum_rows computes it: bitwise the two operations, in one launch for relu.
 * dx and dy are f32 rows x cols, db f32 cols; x and y as tdm_op_activation_grad's. */
TDM_API tdm_status tdm_op_bias_activation_grad(tdm_activation act, tdm_tensor *db, tdm_tensor *dx,
                                               const tdm_tensor *dy, const tdm_tensor *x,
                                               const tdm_tensor *y);

/* Inverted dropout: y = keep ? x / (1 - rate) : 0, the mask drawn by Philox from
 * (seed, offset + i), so every device draws the same mask for the same arguments;
 * the backward pass is the same call on dy. rate in [0, 1). x and y both f32, or
 * both f16. */
TDM_API tdm_status tdm_op_dropout(tdm_tensor *y, const tdm_tensor *x, float rate, uint64_t seed,
                                  uint32_t offset);

/* Softmax cross-entropy of logits (rows x classes) against int32 labels (rows):
 * loss[r] per example; dlogits = grad_scale * (softmax - onehot). A negative label
 * masks its row (a sequence's padding): loss 0 and dlogits 0. A label of classes or
 * more gives a NaN loss (check_numerics then stops the step). */
TDM_API tdm_status tdm_op_softmax_xent(tdm_tensor *loss, tdm_tensor *dlogits,
                                       const tdm_tensor *logits, const tdm_tensor *labels,
                                       float grad_scale);

/* Squared error: loss[i] = (pred[i] - target[i])^2, dpred = grad_scale * 2 *
 * (pred - target). */
TDM_API tdm_status tdm_op_mse(tdm_tensor *loss, tdm_tensor *dpred, const tdm_tensor *pred,
                              const tdm_tensor *target, float grad_scale);

/* Absolute error: loss[i] = |pred[i] - target[i]|, dpred = grad_scale * sign(pred -
 * target), 0 where they are equal (NaN stays NaN). All four f32 of one count. */
TDM_API tdm_status tdm_op_mae(tdm_tensor *loss, tdm_tensor *dpred, const tdm_tensor *pred,
                              const tdm_tensor *target, float grad_scale);

/* Huber loss: with d = pred[i] - target[i], loss[i] = d^2 / 2 where |d| <= delta, else
 * delta * (|d| - delta / 2); dpred = grad_scale * clamp(d, -delta, delta). delta >= 0
 * (Keras' default is 1; infinity gives half the squared error). All four f32 of one
 * count. */
TDM_API tdm_status tdm_op_huber(tdm_tensor *loss, tdm_tensor *dpred, const tdm_tensor *pred,
                                const tdm_tensor *target, float delta, float grad_scale);

/* Binary (multi-label) cross-entropy on logits x against targets z in [0, 1], hard or
 * soft: loss[i] = max(x, 0) - x * z + log1p(exp(-|x|)) (no overflow for any x);
 * dlogits = grad_scale * (sigmoid(x) - z). All four f32 of one count. */
TDM_API tdm_status tdm_op_sigmoid_xent(tdm_tensor *loss, tdm_tensor *dlogits,
                                       const tdm_tensor *logits, const tdm_tensor *targets,
                                       float grad_scale);

/* Softmax cross-entropy of logits (rows x classes) against rows of one-hot or soft
 * targets t (rows x classes, f32 in [0, 1]): loss[r] = sum_c t[r, c] * (logsumexp(
 * logits[r, :]) - logits[r, c]) per example; dlogits = grad_scale * (softmax * T - t),
 * T the row's sum of t (1 for a distribution). */
TDM_API tdm_status tdm_op_softmax_xent_soft(tdm_tensor *loss, tdm_tensor *dlogits,
                                            const tdm_tensor *logits, const tdm_tensor *targets,
                                            float grad_scale);

/* ---- convolution and pooling over NHWC images ----------------------------------
 * x is [batch, h, w, c]; an output [batch, oh, ow, *] whose element (i, j) sees the
 * window of input rows i * stride_h - pad_top + (0 .. height - 1) and columns
 * j * stride_w - pad_left + (0 .. width - 1); positions outside the image are zero
 * padding. The output's shape says how many windows there are, so TensorFlow's SAME
 * and VALID padding are both the caller's arithmetic (tdm_window_same gives SAME's).
 * Every sum runs in a fixed order, so the results do not depend on the device's
 * scheduling; the gradients are gathers, without atomics. */
typedef struct tdm_window {
    size_t height, width;      /* the window (a convolution's: its filter's kh and kw) */
    size_t stride_h, stride_w; /* at least 1 */
    size_t pad_top, pad_left;  /* zero rows above and columns left of the image */
} tdm_window;

/* TensorFlow's SAME padding of a window over an image of h x w: *out_h = ceil(h /
 * stride_h) windows down (*out_w across), padding split with the extra row or column
 * at the bottom or right; the window's height, width and strides as given. */
TDM_API void tdm_window_same(tdm_window *win, size_t h, size_t w, size_t *out_h, size_t *out_w);

/* y[b, i, j, o] = sum over the window's (p, q) and channels ch of x[b, r, s, ch] *
 * f[p, q, ch, o]: x [batch, h, w, c], f [height, width, c, oc] (HWIO), y [batch, oh,
 * ow, oc]. */
TDM_API tdm_status tdm_op_conv2d(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *f,
                                 const tdm_window *win);
/* dx = d(loss) / dx of tdm_op_conv2d, from dy = d(loss) / dy. */
TDM_API tdm_status tdm_op_conv2d_grad_input(tdm_tensor *dx, const tdm_tensor *dy,
                                            const tdm_tensor *f, const tdm_window *win);
/* df = d(loss) / df of tdm_op_conv2d, from its input x and dy. */
TDM_API tdm_status tdm_op_conv2d_grad_filter(tdm_tensor *df, const tdm_tensor *x,
                                             const tdm_tensor *dy, const tdm_window *win);

typedef enum tdm_pooling {
    TDM_POOL_MAX,    /* the window's largest input: the first of equal ones, the first NaN */
    TDM_POOL_AVERAGE /* the mean of the window's inputs inside the image (SAME's rule) */
} tdm_pooling;

/* y[b, i, j, ch] = the pooling of x[b, r, s, ch] over window (i, j): x [batch, h, w,
 * c], y [batch, oh, ow, c]. A window with no input inside the image gives 0. x and y
 * both f32, or both f16. */
TDM_API tdm_status tdm_op_pool2d(tdm_pooling kind, tdm_tensor *y, const tdm_tensor *x,
                                 const tdm_window *win);
/* dx = d(loss) / dx of tdm_op_pool2d from dy; x is the forward's input (max pooling
 * routes dy to the input it chose, x f32 or f16; average pooling ignores x, which may
 * be NULL). dx and dy are f32. */
TDM_API tdm_status tdm_op_pool2d_grad(tdm_pooling kind, tdm_tensor *dx, const tdm_tensor *dy,
                                      const tdm_tensor *x, const tdm_window *win);

/* y[b, ch] = the mean of x[b, r, s, ch] over the image's h * w positions, summed in
 * order (r outermost) then divided by h * w: x [batch, h, w, channels] f32 or f16, y
 * [batch, channels] of x's dtype. Bitwise tdm_op_pool2d's average over the window of
 * the whole image (h x w, strides h x w, no padding), on every device; 0 for images of
 * no positions. A device whose driver ends long loops early (lavapipe) refuses rows of
 * 3999 columns or more (TDM_ERR_UNSUPPORTED); any number of rows runs. */
TDM_API tdm_status tdm_op_global_avg_pool(tdm_tensor *y, const tdm_tensor *x);
/* dx[b, r, s, ch] = dy[b, ch] / (h * w): dx [batch, h, w, channels] f32, dy [batch,
 * channels] f32. Bitwise tdm_op_pool2d_grad's average over the window of the whole
 * image. */
TDM_API tdm_status tdm_op_global_avg_pool_grad(tdm_tensor *dx, const tdm_tensor *dy);

#ifdef __cplusplus
}
#endif

#endif
