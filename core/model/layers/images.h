/* Internal: what the image layers share (conv2d and the poolings). The model keeps
 * every activation as a [rows, features] matrix, which these view as NHWC images. */
#ifndef TDM_MODEL_LAYERS_IMAGES_H
#define TDM_MODEL_LAYERS_IMAGES_H

#include "model/layers/layer_type.h"
#include "tandem/nn.h"

/* t's first rows rows as the layer's input image [rows, in_h, in_w, in_c]; the
 * passes only read a const t. */
tdm_status tdm_layer_input_image(const tdm_layer_plan *p, const tdm_tensor *t, size_t rows,
                                 tdm_tensor **out);
/* Likewise as its output image. */
tdm_status tdm_layer_output_image(const tdm_layer_plan *p, const tdm_tensor *t, size_t rows,
                                  tdm_tensor **out);

/* The window of a conv2d or pooling layer (its default stride: 1, or the window for
 * pooling) and its output image, of out_c channels. */
tdm_status tdm_layer_plan_window(const tdm_layer *d, tdm_layer_plan *p, int pool, size_t out_c,
                                 const char *f, size_t l);

/* A pooling layer's plan: windows of its input image out, channel by channel. */
tdm_status tdm_layer_pool_plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                               const char *f);
/* z[l] = the pooling of x; and its backward pass, d(loss) / dx into its input's
 * gradient, through the input's ReLU too where its plan says so (relu_grad_by_reader). */
tdm_status tdm_layer_pool_forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                                  const tdm_tensor *x, tdm_pooling kind);
tdm_status tdm_layer_pool_backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                                   const tdm_tensor *x, tdm_pooling kind);

/* A pooling's ONNX node, MaxPool or AveragePool, on the NCHW image; padding is never
 * counted, as here. */
tdm_status tdm_layer_pool_onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, tdm_pooling kind,
                               tdm_onnx_value x, tdm_onnx_value *out);

/* out[channels] = the sums over rows and positions of t [rows, positions * channels],
 * in two short passes through layer l's partial buffer (one over rows * positions
 * would loop past lavapipe's limit). */
tdm_status tdm_layer_channel_sums(const tdm_model_views *v, size_t l, tdm_tensor *out,
                                  const tdm_tensor *t);
/* Layer l's partial buffer, [out_h * out_w, out_c], for tdm_layer_channel_sums. */
tdm_status tdm_layer_reserve_partial(const tdm_model *m, size_t l, tdm_model_scratch *sc);

#endif
