/* Internal: what a model file holds beyond the safetensors layout (safetensors.h),
 * shared by its writer and its reader. docs/MODEL_FILES.md describes it for readers
 * in other tools.
 *
 *   tensors       "dense<l>/kernel" [in, units] and "dense<l>/bias" [units] per layer,
 *                 F32; "input/mean" and "input/std" [input_features] when the model
 *                 standardises its input
 *   __metadata__  "format": "tandem-model", "format_version": "1",
 *                 "loss", "reduction", "seed", and per layer "dense<l>/activation",
 *                 "dense<l>/dropout"; "data_crc32": the CRC-32 of the data section
 */
#ifndef TDM_TRAIN_MODEL_FILE_H
#define TDM_TRAIN_MODEL_FILE_H

#include "tandem/model.h"

#define TDM_MODEL_FORMAT "tandem-model"
#define TDM_MODEL_FORMAT_VERSION 1
#define TDM_MODEL_CRC_KEY "data_crc32"
#define TDM_MODEL_MEAN "input/mean"
#define TDM_MODEL_STD "input/std"

/* "softmax_cross_entropy", "mean_squared_error". */
const char *tdm_model_loss_name(tdm_loss_kind kind);
/* "sum_over_batch_size", "sum". */
const char *tdm_model_reduction_name(tdm_loss_reduction reduction);

/* The kind or reduction of a name; -1 if unknown. */
int tdm_model_loss_parse(const char *name);
int tdm_model_reduction_parse(const char *name);

#endif
