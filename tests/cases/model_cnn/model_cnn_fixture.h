/* The model_cnn case's shared set-up and checks, used by its parts. */
#ifndef TDM_TEST_MODEL_CNN_FIXTURE_H
#define TDM_TEST_MODEL_CNN_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scratch.h"
#include "train_fixture.h"

#define STEPS 30
#define FEATURES 64
#define CLASSES 10

/* conv 6 filters 3x3 SAME, max pool 2 (4x4), conv 8 filters 3x3 stride 1 VALID (2x2),
 * average pool 2 over SAME (1x1), dense 16 with dropout, dense 10. */
extern const tdm_layer mc_cnn[6];

#define CNN_LAYERS 6

extern tdm_context *mc_ctx;
extern tdm_device *mc_devs[3];
extern size_t mc_n_devs;
extern const char *mc_digits_path;

tdm_model_options mc_cnn_options(void);

/* loss_scale > 0: dynamic loss scaling from that scale; gradients all-reduced as
 * all_reduce (f32 or f16; f16 in buckets of 1 KiB, several per step). */
void mc_trainer_open_reduced(trainer *t, tdm_device *const *d, size_t n, float lr,
                             const tdm_model_options *mo, float loss_scale, tdm_dtype all_reduce);

void mc_trainer_open_model(trainer *t, tdm_device *const *d, size_t n, float lr,
                           const tdm_model_options *mo, float loss_scale);

void mc_trainer_open(trainer *t, tdm_device *const *d, size_t n, float lr);

size_t mc_train_steps(trainer *t, tdm_dataset *ds, size_t steps, double *losses);

/* The largest |got - want| / |want| over the steps' losses. */
double mc_worst_relative(const double *got, const double *want);

/* model_cnn.c */
void mc_check_equivalence_of(const char *what, const tdm_model_options *mo, int raw, float lr);

/* model_cnn_gradients.c */
void mc_check_gradients(void);
void mc_check_embedding(void);
void mc_check_global_pooling(void);
void mc_check_graph(void);
void mc_check_file(void);
void mc_check_batch_norm(int mixed);
void mc_check_ops(void);
void mc_check_refusals(void);

#endif
