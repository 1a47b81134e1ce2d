/* Internal: what batch and layer normalisation share: gamma and beta per channel, an
 * output of the input's shape, and views of the activations as rows of channels. */
#ifndef TDM_MODEL_LAYERS_NORMALISE_H
#define TDM_MODEL_LAYERS_NORMALISE_H

#include "model/layers/layer_type.h"

/* "gamma", "beta" */
extern const char *const tdm_gamma_and_beta[];

/* Refuses units, an activation or dropout, an epsilon outside [0, 1) and a momentum
 * outside [0, 1). */
tdm_status tdm_norm_check(const tdm_layer *d, size_t l, const char *f);
/* The output has the input's shape. */
tdm_status tdm_norm_plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                         const char *f);
/* gamma and beta: [channels]. */
tdm_shape tdm_norm_variable_shape(const tdm_layer *d, const tdm_layer_plan *p, size_t k);
/* gamma 1, beta 0. */
void tdm_norm_initial(const tdm_model *m, size_t l, size_t k, float *value, size_t count);

/* t [rows, positions * channels] seen as [rows * positions, channels]. */
tdm_status tdm_norm_channels_view(const tdm_tensor *t, size_t rows, const tdm_layer_plan *p,
                                  tdm_tensor **out);

#endif
