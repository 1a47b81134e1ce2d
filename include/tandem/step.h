/* tandem: steps (TensorFlow's Step, StandardInputStep and StandardSingleLossStep):
 * objects that run training steps on a strategy and carry the state a checkpoint
 * needs, driven by a monitor (monitor.h). */
#ifndef TANDEM_STEP_H
#define TANDEM_STEP_H

#include "tandem/checkpoint.h"
#include "tandem/train.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_step tdm_step;

/* What one call of a step did. */
typedef struct tdm_step_result {
    size_t steps;         /* training steps run: iterations_per_step, fewer when the
                             input ended */
    int end_of_input;     /* the input ended during this call */
    double loss;          /* the mean of those steps' losses */
    size_t examples;      /* examples they consumed */
    uint64_t global_step; /* after the call */
    uint64_t epoch;       /* of the last batch run */
} tdm_step_result;

/* The Step interface: run is required; save and restore (both or neither) make
 * the step checkpointable; destroy releases self. */
typedef struct tdm_step_ops {
    tdm_status (*run)(void *self, tdm_step_result *out);
    tdm_status (*save)(void *self, tdm_checkpoint_writer *w);
    tdm_status (*restore)(void *self, const tdm_checkpoint *c);
    void (*destroy)(void *self);
} tdm_step_ops;

/* Wraps an implementation (ops is copied; self is taken over when destroy is set). */
TDM_API tdm_status tdm_step_create(const tdm_step_ops *ops, void *self, tdm_step **out);
TDM_API void tdm_step_destroy(tdm_step *step); /* NULL-safe */
TDM_API tdm_status tdm_step_run(tdm_step *step, tdm_step_result *out);
/* TDM_ERR_UNSUPPORTED for a step without save / restore. */
TDM_API tdm_status tdm_step_save(tdm_step *step, tdm_checkpoint_writer *w);
TDM_API tdm_status tdm_step_restore(tdm_step *step, const tdm_checkpoint *c);

/* StandardInputStep: owns an iterator over a distributed dataset and calls fn with
 * each step's batch; fn stores the step's loss. Its checkpoint state is the input
 * position ("input/epoch", "input/batch"). */
typedef tdm_status (*tdm_input_step_fn)(const tdm_distributed_batch *batch, void *user,
                                        double *loss);
TDM_API tdm_status tdm_standard_input_step_create(const tdm_distributed_dataset *dist,
                                                  tdm_input_step_fn fn, void *user,
                                                  size_t iterations_per_step, tdm_step **out);

/* StandardSingleLossStep(dataset_fn, loss_fn, optimizer, strategy, iterations_per_step):
 * the train op carries the loss function, the optimizer and the strategy. The input
 * is a dataset batched by the global batch size (split over the replicas), or
 * dataset_fn, called once per input pipeline and batched by the per-replica size.
 * Each call runs iterations_per_step steps. Checkpoints hold the input position, the
 * global step, the seed, every trained variable and every optimizer slot. */
typedef struct tdm_single_loss_step_options {
    size_t size;                /* sizeof(tdm_single_loss_step_options) */
    tdm_train_op *train_op;     /* borrowed */
    const tdm_dataset *dataset; /* or: */
    tdm_dataset_fn dataset_fn;
    void *dataset_user;
    size_t iterations_per_step; /* default 1 */
    tdm_distribute_options distribute;
} tdm_single_loss_step_options;

#define TDM_SINGLE_LOSS_STEP_OPTIONS_INIT                                                          \
    {                                                                                              \
        .size = sizeof(tdm_single_loss_step_options), .iterations_per_step = 1,                    \
        .distribute = TDM_DISTRIBUTE_OPTIONS_INIT                                                  \
    }

TDM_API tdm_status tdm_single_loss_step_create(const tdm_single_loss_step_options *opts,
                                               tdm_step **out);

#ifdef __cplusplus
}
#endif

#endif
