/* The train case's shared set-up and checks, used by its parts. */
#ifndef TDM_TEST_TRAIN_CASE_FIXTURE_H
#define TDM_TEST_TRAIN_CASE_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scratch.h"
#include "train_fixture.h"

#define STEPS 50
#define MAX_VARS 6

/* What a trainer changes from the train op's defaults. */
typedef struct trainer_config {
    size_t bucket_bytes; /* 0: the default buckets */
    int balance;
    tdm_device *const *ps; /* ps_count > 0: a parameter-server strategy with these */
    size_t ps_count;
    float loss_scale; /* > 0: dynamic loss scaling from this scale */
    uint32_t growth_steps;
} trainer_config;

extern tdm_context *tr_ctx;
extern tdm_device *tr_devs[3];
extern size_t tr_n_devs;
extern const char *tr_digits_path;

void tr_trainer_open_config(trainer *t, tdm_device *const *d, size_t n, tdm_optimizer_kind kind,
                            size_t outputs, trainer_config config);

void tr_trainer_open(trainer *t, tdm_device *const *d, size_t n, tdm_optimizer_kind kind,
                     size_t outputs);

size_t tr_train_steps(trainer *t, tdm_dataset *ds, size_t steps, double *losses);

/* train.c */
size_t tr_read_weights(const trainer *t, float *out, size_t capacity);
/* A custom loss function over the op-level API: loss = sum(w * x) over the rows of
 * the replica, so d/dw = the column sums of x, scaled for the global batch; user is
 * a linear_loss, whose nan_gradient puts a NaN in the gradients. */
typedef struct linear_loss {
    int nan_gradient;
} linear_loss;
tdm_status tr_linear_loss_fn(const tdm_loss_args *a, void *user);

/* train_runs.c */
void tr_check_errors(void);
void tr_check_trace_errors(void);
void tr_check_monitor_resume(trainer_config config);
void tr_check_eval_strategy(int mixed);
void tr_check_predict_after_load(void);

#endif
