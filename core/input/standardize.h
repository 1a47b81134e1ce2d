/* Internal: the arithmetic of feature standardisation, shared by the dataset map and
 * the model's input standardisation, so that both give the same bits. */
#ifndef TDM_INPUT_STANDARDIZE_H
#define TDM_INPUT_STANDARDIZE_H

#include <stddef.h>

#include "tandem/status.h"

/* Every mean and std finite, every std >= 0; else TDM_ERR_INVALID_ARGUMENT naming the
 * feature. */
tdm_status tdm_standardize_check(const float *mean, const float *std, size_t feature_count,
                                 const char *func);

/* params[0, fc) = mean, params[fc, 2 fc) = the divisor: std, or 1 where std is 0 (a
 * constant feature is only centred). */
void tdm_standardize_params(const float *mean, const float *std, size_t feature_count,
                            float *params);

/* x = (x - mean) / divisor over count rows of feature_count features. */
void tdm_standardize_rows(float *rows, size_t count, size_t feature_count, const float *params);

#endif
