/* The train op's global step, which the optimizer's iterations follow. Apart from
 * the state's save and restore, which set it, and the parameter-server worker, which
 * takes its servers' step, so that neither file needs the other. */
#include "base/error.h"
#include "train_op/train_op_impl.h"

uint64_t tdm_train_op_global_step(const tdm_train_op *op)
{
    return op ? op->global_step : 0;
}

tdm_status tdm_train_op_set_global_step(tdm_train_op *op, uint64_t step)
{
    TDM_CHECK_ARG(op, "tdm_train_op_set_global_step");
    tdm_status s = tdm_optimizer_set_iterations(op->opts.optimizer, step);
    if (s == TDM_OK)
        op->global_step = step;
    return s;
}
