/* add: y = the sum of two or more inputs of one shape (Keras' Add). */
#include "model/layers/merges.h"

const tdm_layer_type tdm_layer_add = {
    .plan = tdm_merge_plan_same_shape,
    .forward = tdm_merge_add_forward,
    .backward = tdm_merge_add_backward,
    .onnx = tdm_merge_add_onnx,
};
