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

/* "linear", "relu", "tanh", "sigmoid", "gelu". */
TDM_API const char *tdm_activation_name(tdm_activation act);
TDM_API tdm_status tdm_activation_parse(const char *name, tdm_activation *out);

/* c = alpha * op(a) * op(b) + beta * c for 2-D tensors, op(a) m x k, op(b) k x n,
 * c m x n; op transposes when trans_* is 1. beta 0 ignores c's old contents. */
TDM_API tdm_status tdm_op_matmul(tdm_tensor *c, const tdm_tensor *a, int trans_a,
                                 const tdm_tensor *b, int trans_b, float alpha, float beta);

/* y[r, c] = x[r, c] + b[c]: x and y rows x cols, b cols. */
TDM_API tdm_status tdm_op_bias_add(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *b);

/* out[c] = sum over r of x[r, c] (a bias gradient): x rows x cols, out cols. */
TDM_API tdm_status tdm_op_sum_rows(tdm_tensor *out, const tdm_tensor *x);

/* out (one element) = the sum of x's elements, in a fixed order. */
TDM_API tdm_status tdm_op_sum(tdm_tensor *out, const tdm_tensor *x);

/* y = min(max(x, lo), hi) element-wise (clip by value); NaN stays NaN. y may be x. */
TDM_API tdm_status tdm_op_clip(tdm_tensor *y, const tdm_tensor *x, float lo, float hi);

/* y[r, c] = (c == labels[r]) ? 1 : 0: y rows x classes, int32 labels rows; a label
 * outside [0, classes) gives a row of zeros. */
TDM_API tdm_status tdm_op_one_hot(tdm_tensor *y, const tdm_tensor *labels);

/* y = act(x) (y may be x). */
TDM_API tdm_status tdm_op_activation(tdm_activation act, tdm_tensor *y, const tdm_tensor *x);

/* dx = dy * act'(x), from the forward's input x and output y (the kernels use
 * whichever is cheaper; dx may be dy). */
TDM_API tdm_status tdm_op_activation_grad(tdm_activation act, tdm_tensor *dx, const tdm_tensor *dy,
                                          const tdm_tensor *x, const tdm_tensor *y);

/* Inverted dropout: y = keep ? x / (1 - rate) : 0, the mask drawn by Philox from
 * (seed, offset + i), so every device draws the same mask for the same arguments;
 * the backward pass is the same call on dy. rate in [0, 1). */
TDM_API tdm_status tdm_op_dropout(tdm_tensor *y, const tdm_tensor *x, float rate, uint64_t seed,
                                  uint32_t offset);

/* Softmax cross-entropy of logits (rows x classes) against int32 labels (rows):
 * loss[r] per example; dlogits = grad_scale * (softmax - onehot). A label outside
 * [0, classes) gives a NaN loss (check_numerics then stops the step). */
TDM_API tdm_status tdm_op_softmax_xent(tdm_tensor *loss, tdm_tensor *dlogits,
                                       const tdm_tensor *logits, const tdm_tensor *labels,
                                       float grad_scale);

/* Squared error: loss[i] = (pred[i] - target[i])^2, dpred = grad_scale * 2 *
 * (pred - target). */
TDM_API tdm_status tdm_op_mse(tdm_tensor *loss, tdm_tensor *dpred, const tdm_tensor *pred,
                              const tdm_tensor *target, float grad_scale);

#ifdef __cplusplus
}
#endif

#endif
