/* tandem: a training run assembled in one call from its description: the strategy,
 * the model, the optimizer and train op, and the step over a dataset with its
 * monitor. Each part is either given (built by the caller, who keeps it) or described
 * (built here, destroyed with the run), so a program builds a whole run at once and
 * one that builds in stages (Keras' strategy, then model, then compile, then fit)
 * gives what it has. tandem train and the Python package assemble their runs
 * through it. */
#ifndef TANDEM_TRAINING_H
#define TANDEM_TRAINING_H

#include "tandem/model.h"
#include "tandem/monitor.h"
#include "tandem/optimizer.h"
#include "tandem/step.h"
#include "tandem/strategy.h"
#include "tandem/train.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_training tdm_training;

typedef struct tdm_training_description {
    size_t size; /* sizeof(tdm_training_description) */

    /* The strategy: `strategy` where given, else one of strategy_kind over devices
     * (device_count of them, of context; NULL and 0: the default devices): one-device
     * (the first), mirrored, multi-worker (this process's devices in an MPI job) or
     * parameter-server (its variables on ps_devices, or on the job's last
     * ps_processes processes). */
    tdm_strategy *strategy;
    tdm_context *context;
    tdm_strategy_kind strategy_kind; /* TDM_STRATEGY_MIRRORED in the INIT macro */
    tdm_device *const *devices;
    size_t device_count;
    tdm_device *const *ps_devices;
    size_t ps_device_count;
    size_t ps_processes;
    const tdm_strategy_options *strategy_options; /* NULL: the defaults */

    /* The model: given (on the strategy), else created on it from model_options
     * (NULL: no model; then train_op is given). */
    tdm_model *model;
    const tdm_model_options *model_options;

    /* The train op: given (its optimizer with it), else created over the model's
     * variables and moving statistics, with the model's loss (tdm_model_loss) and an
     * optimizer of `optimizer` (NULL: TDM_OPTIMIZER_OPTIONS_INIT's, SGD at 0.01);
     * train_op_options gives the rest (its variables, loss and optimizer fields are
     * filled here; NULL: the defaults). */
    tdm_train_op *train_op;
    const tdm_optimizer_options *optimizer;
    const tdm_train_op_options *train_op_options;

    /* The step and its monitor, where a dataset is given (batched by the global batch,
     * repeated for as long as the run goes): a single-loss step over it
     * (step_options' train op and dataset filled here; NULL: the defaults), monitored
     * as monitor_options says (NULL: the defaults, no checkpoints). NULL: neither, a
     * run of the train op alone (tdm_train_op_run on batches of the caller's). */
    const tdm_dataset *dataset;
    const tdm_single_loss_step_options *step_options;
    const tdm_monitor_options *monitor_options;
} tdm_training_description;

#define TDM_TRAINING_DESCRIPTION_INIT                                                              \
    {                                                                                              \
        .size = sizeof(tdm_training_description), .strategy_kind = TDM_STRATEGY_MIRRORED          \
    }

/* Builds the parts the description describes and does not give, in order (strategy,
 * model, optimizer and train op, step, monitor), each on the ones before. The first
 * failure's status, with the message naming the part ("tdm_training_create: model:
 * ..."); nothing is left built. A described strategy kind of TDM_STRATEGY_DEFAULT, a
 * model neither given nor described without a given train op, or a given model or
 * train op on another strategy is TDM_ERR_INVALID_ARGUMENT. */
TDM_API tdm_status tdm_training_create(const tdm_training_description *d, tdm_training **out);

/* Destroys the parts the run built, in reverse; given parts stay the caller's.
 * NULL-safe. */
TDM_API void tdm_training_destroy(tdm_training *t);

/* The run's parts, given or built; NULL for a part it has none of (no model where a
 * train op was given alone; no step or monitor without a dataset). Owned by the run
 * where it built them. */
TDM_API tdm_strategy *tdm_training_strategy(const tdm_training *t);
TDM_API tdm_model *tdm_training_model(const tdm_training *t);
TDM_API tdm_optimizer *tdm_training_optimizer(const tdm_training *t);
TDM_API tdm_train_op *tdm_training_train_op(const tdm_training *t);
TDM_API tdm_step *tdm_training_step(const tdm_training *t);
TDM_API tdm_monitor *tdm_training_monitor(const tdm_training *t);

#ifdef __cplusplus
}
#endif

#endif
