/* Internal: the model's weights for its ONNX graph, read from the first copy of each
 * variable (the one prediction uses) as tdm_model_save reads them: float32. */
#ifndef TDM_MODEL_ONNX_WEIGHTS_H
#define TDM_MODEL_ONNX_WEIGHTS_H

#include "model/model_impl.h"
#include "model/onnx/onnx_graph.h"

/* Layer l's trainable variable k (its type's order: kernel, bias; gamma, beta) or
 * moving statistic k (mean, variance) read into a new host array, *out, to free; its
 * shape into *shape. */
tdm_status tdm_onnx_read_variable(const tdm_model *m, size_t l, size_t k, float **out,
                                  tdm_shape *shape);
tdm_status tdm_onnx_read_state(const tdm_model *m, size_t l, size_t k, float **out,
                               tdm_shape *shape);

/* That variable, or moving statistic, as a constant of its shape named after it
 * ("dense0/kernel", "batch_norm2/moving_mean"). */
tdm_status tdm_onnx_variable(tdm_onnx_graph *g, const tdm_model *m, size_t l, size_t k,
                             tdm_onnx_value *out);
tdm_status tdm_onnx_state(tdm_onnx_graph *g, const tdm_model *m, size_t l, size_t k,
                          tdm_onnx_value *out);

#endif
