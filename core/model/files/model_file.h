/* Internal: what a model file holds beyond the safetensors layout (safetensors.h),
 * shared by its writer and its reader. docs/MODEL_FILES.md describes it for readers
 * in other tools.
 *
 *   tensors       per dense layer "dense<l>/kernel" [in, units] and "dense<l>/bias"
 *                 [units], per conv2d layer "conv2d<l>/kernel" [kh, kw, c, units] and
 *                 "conv2d<l>/bias" [units], F32 (l: the layer's index among all
 *                 layers); "input/mean" and "input/std" [input_features] when the model
 *                 standardises its input
 *   __metadata__  "format": "tandem-model", "format_version": "2" (a stack of
 *                 layers) or "3" (a graph: "<kind><l>/inputs", "2,input,input1"; a
 *                 model of several inputs "input_widths", "13,4"), "loss",
 *                 "reduction", "seed"; "layers": the kinds in order ("conv2d,
 *                 max_pool2d,dense"); "input_shape": "HxWxC" for an image input; per
 *                 dense or conv2d layer "<kind><l>/activation" and "<kind><l>/dropout",
 *                 per conv2d or pooling layer "<kind><l>/strides" ("2x2") and
 *                 "<kind><l>/padding" ("same", "valid"), per pooling layer
 *                 "<kind><l>/window"; "data_crc32": the CRC-32 of the data section.
 *                 Version 1 files hold dense layers only and no "layers" key.
 */
#ifndef TDM_MODEL_MODEL_FILE_H
#define TDM_MODEL_MODEL_FILE_H

#include "tandem/model.h"

#define TDM_MODEL_FORMAT "tandem-model"
#define TDM_MODEL_FORMAT_VERSION 3
/* What a stacked model writes: a reader of version 2 reads it as it always did; a
 * graph's layers name their inputs, which such a reader would pass over. */
#define TDM_MODEL_FORMAT_VERSION_STACKED 2
#define TDM_MODEL_CRC_KEY "data_crc32"
#define TDM_MODEL_MEAN "input/mean"
#define TDM_MODEL_STD "input/std"

/* "sum_over_batch_size", "sum". */
const char *tdm_model_reduction_name(tdm_loss_reduction reduction);

/* The reduction of a name; -1 if unknown. */
int tdm_model_reduction_parse(const char *name);

#endif
