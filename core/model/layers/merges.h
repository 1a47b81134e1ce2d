/* Internal: what the merges share (add, concatenate, multiply, and residual, the
 * stacked models' add): layers of two or more inputs and no variables. */
#ifndef TDM_MODEL_LAYERS_MERGES_H
#define TDM_MODEL_LAYERS_MERGES_H

#include "model/layers/layer_type.h"

/* A merge whose inputs have one shape, which its output keeps (add, multiply). */
tdm_status tdm_merge_plan_same_shape(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                                     const char *f);

/* Refuses a merge of inputs stored as f16 activations where its kernels take f32
 * only (concatenate, multiply). */
tdm_status tdm_merge_needs_f32(const tdm_model_options *o, size_t l, const char *f);

/* z[l] = the sum of the inputs; and d(loss) / d(each input) = g[l]. */
tdm_status tdm_merge_add_forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                                 const tdm_tensor *x, const tdm_forward_args *fa);
tdm_status tdm_merge_add_backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                                  const tdm_loss_args *a, const tdm_tensor *x);

/* The inputs folded in their order with a binary ONNX op ("Add", "Mul"). */
tdm_status tdm_merge_onnx_chain(const tdm_model *m, size_t l, tdm_onnx_graph *g, const char *op,
                                const tdm_onnx_value *in, tdm_onnx_value *out);
/* The sums of add and residual: "Add" chained. */
tdm_status tdm_merge_add_onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g,
                              const tdm_onnx_value *in, tdm_onnx_value *out);

#endif
