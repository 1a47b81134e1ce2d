/* The Step interface: a table of functions and the object they act on. */
#include <stdlib.h>

#include "base/error.h"
#include "train_op/step_impl.h"

struct tdm_step {
    tdm_step_ops ops;
    void *self;
    tdm_train_op *train_op; /* a single-loss step's, for the monitor's trace */
};

tdm_status tdm_step_create(const tdm_step_ops *ops, void *self, tdm_step **out)
{
    TDM_CHECK_ARG(out, "tdm_step_create");
    *out = NULL;
    TDM_CHECK_ARG(ops, "tdm_step_create");
    if (!ops->run || !ops->save != !ops->restore)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_step_create: run is required, and save and restore go together");
    tdm_step *step = malloc(sizeof *step);
    if (!step)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_step_create: out of host memory");
    *step = (tdm_step){*ops, self, NULL};
    *out = step;
    return TDM_OK;
}

void tdm_step_destroy(tdm_step *step)
{
    if (!step)
        return;
    if (step->ops.destroy)
        step->ops.destroy(step->self);
    free(step);
}

tdm_status tdm_step_run(tdm_step *step, tdm_step_result *out)
{
    TDM_CHECK_ARG(step, "tdm_step_run");
    TDM_CHECK_ARG(out, "tdm_step_run");
    *out = (tdm_step_result){0};
    return step->ops.run(step->self, out);
}

tdm_status tdm_step_save(tdm_step *step, tdm_checkpoint_writer *w)
{
    TDM_CHECK_ARG(step, "tdm_step_save");
    TDM_CHECK_ARG(w, "tdm_step_save");
    if (!step->ops.save)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "tdm_step_save: this step keeps no checkpoint state");
    return step->ops.save(step->self, w);
}

tdm_status tdm_step_restore(tdm_step *step, const tdm_checkpoint *c)
{
    TDM_CHECK_ARG(step, "tdm_step_restore");
    TDM_CHECK_ARG(c, "tdm_step_restore");
    if (!step->ops.restore)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "tdm_step_restore: this step keeps no checkpoint state");
    return step->ops.restore(step->self, c);
}

int tdm_step_checkpointable(const tdm_step *step)
{
    return step && step->ops.save;
}

void tdm_step_set_train_op(tdm_step *step, tdm_train_op *op)
{
    step->train_op = op;
}

tdm_train_op *tdm_step_train_op(const tdm_step *step)
{
    return step->train_op;
}
