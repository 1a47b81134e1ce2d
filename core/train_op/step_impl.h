/* Internal: the input step that the single-loss step is built on. */
#ifndef TDM_TRAIN_STEP_IMPL_H
#define TDM_TRAIN_STEP_IMPL_H

#include "tandem/step.h"

/* The records that hold a step's global step, which the monitor checks against the
 * step a checkpoint is named for: the train op's, and a plain input step's count. */
#define TDM_RECORD_GLOBAL_STEP "train/global_step"
#define TDM_RECORD_INPUT_STEPS "input/steps"

/* Whether the step can save and restore its state. */
int tdm_step_checkpointable(const tdm_step *step);

/* The train op of a single-loss step (which sets it), NULL for other steps. */
void tdm_step_set_train_op(tdm_step *step, tdm_train_op *op);
tdm_train_op *tdm_step_train_op(const tdm_step *step);

typedef struct tdm_input_step {
    tdm_distributed_iterator *it;
    tdm_input_step_fn fn;
    void *user;
    size_t iterations;
    uint64_t steps;   /* run so far: the global step of a plain input step */
    double waited[2]; /* when fn's batch was asked for and came (tdm_seconds) */
} tdm_input_step;

tdm_status tdm_input_step_init(tdm_input_step *in, const tdm_distributed_dataset *dist,
                               tdm_input_step_fn fn, void *user, size_t iterations);
void tdm_input_step_free(tdm_input_step *in);
tdm_status tdm_input_step_run(void *self, tdm_step_result *out);
tdm_status tdm_input_step_save(void *self, tdm_checkpoint_writer *w);
tdm_status tdm_input_step_restore(void *self, const tdm_checkpoint *c);

#endif
