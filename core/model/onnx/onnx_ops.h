/* Internal: the node patterns the ONNX export repeats: shapes and layouts,
 * activations. Every layer's value in the graph is what the passes keep, a matrix
 * [N, features], each example's features an NHWC image flattened; a layer reshapes
 * it to what its operator takes and flattens its result again. */
#ifndef TDM_MODEL_ONNX_OPS_H
#define TDM_MODEL_ONNX_OPS_H

#include "model/onnx/onnx_graph.h"
#include "tandem/nn.h"

/* x reshaped to [-1, dims...]: the batch first, whatever it is. */
tdm_onnx_value tdm_onnx_reshape(tdm_onnx_graph *g, tdm_onnx_value x, const int64_t *dims,
                                size_t rank);
/* x [N, ...] as [N, the rest's product]. */
tdm_onnx_value tdm_onnx_flatten(tdm_onnx_graph *g, tdm_onnx_value x);
tdm_onnx_value tdm_onnx_transpose(tdm_onnx_graph *g, tdm_onnx_value x, const int64_t *perm,
                                  size_t rank);

/* [N, h * w * c] as the NCHW image ONNX's convolutions and poolings take, and such an
 * image back as [N, features] of NHWC images. */
tdm_onnx_value tdm_onnx_to_nchw(tdm_onnx_graph *g, tdm_onnx_value x, size_t h, size_t w, size_t c);
tdm_onnx_value tdm_onnx_from_nchw(tdm_onnx_graph *g, tdm_onnx_value x);

/* [N, positions * channels] as [N, positions, channels]: the channels last, where
 * per-channel constants broadcast and normalisations reduce. */
tdm_onnx_value tdm_onnx_positions(tdm_onnx_graph *g, tdm_onnx_value x, size_t positions,
                                  size_t channels);

/* A float32 scalar constant. */
tdm_onnx_value tdm_onnx_scalar(tdm_onnx_graph *g, float value);

/* Softmax over x's last axis: each position's channels, each row of scores. */
tdm_onnx_value tdm_onnx_softmax(tdm_onnx_graph *g, tdm_onnx_value x);

/* act(x) as the kernels compute it; GELU the exact form, x * (1 + erf(x / sqrt(2))) / 2
 * (opset 17 has no Gelu). */
tdm_onnx_value tdm_onnx_activation(tdm_onnx_graph *g, tdm_activation act, tdm_onnx_value x);

/* The window of a convolution or pooling on its NCHW node: kernel_shape, strides and
 * the pads that give out_h x out_w windows from the top and left ones (SAME pads the
 * bottom and right with what is left; VALID none). */
void tdm_onnx_window_attrs(tdm_onnx_graph *g, const tdm_window *win, size_t in_h, size_t in_w,
                           size_t out_h, size_t out_w);

#endif
