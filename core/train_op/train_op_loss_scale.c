/* Dynamic loss scaling, as TensorFlow's LossScaleOptimizer: the loss function scales
 * the loss and its gradients (tdm_loss_args_scale); after the all-reduce the sums are
 * divided by the scale, or the step is skipped when they overflowed; then the scale
 * halves after an overflow and doubles after a run of finite steps. While the loss
 * function says its gradients are f32 throughout, in a job where nothing else rounds
 * them to f16, the scale idles: a power of two that guards nothing costs a check, a
 * read back to the host and a pass over the gradients each step. */
#include <math.h>

#include "base/error.h"
#include "tandem/ops.h"
#include "train_op/train_op_impl.h"

tdm_status tdm_train_unscale(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r,
                             int *skip)
{
    int finite = 0;
    tdm_status s = tdm_train_all_finite(op, rc, r, 0, &finite);
    *skip = s == TDM_OK && !finite;
    if (s != TDM_OK || *skip) {
        if (*skip && tdm_replica_local_id(rc) == 0)
            op->step_overflowed = 1; /* every replica saw the same sums */
        return s;
    }
    return tdm_op_scale(r->all, r->all, 1.0f / op->loss_scale);
}

tdm_status tdm_loss_args_f32_throughout(const tdm_loss_args *args)
{
    TDM_CHECK_ARG(args, "tdm_loss_args_f32_throughout");
    if (args->train)
        args->train->f32_throughout = 1;
    return TDM_OK;
}

int tdm_train_scale_guards_nothing(const tdm_train_op *op)
{
    if (op->opts.loss_scale <= 0.0f || op->opts.all_reduce_dtype != TDM_F32 || op->remote ||
        tdm_strategy_num_workers(op->strategy) > 1)
        return 0;
    for (size_t i = 0; i < tdm_strategy_num_local_replicas(op->strategy); i++)
        if (!op->replicas[i].f32_throughout)
            return 0;
    return 1;
}

void tdm_train_loss_scale_update(tdm_train_op *op)
{
    uint32_t growth = op->opts.loss_scale_growth_steps ? op->opts.loss_scale_growth_steps : 2000;
    if (op->step_overflowed) {
        op->skipped_steps++;
        op->good_steps = 0;
        op->loss_scale = op->loss_scale / 2.0f < 1.0f ? 1.0f : op->loss_scale / 2.0f;
    } else if (++op->good_steps >= growth) {
        op->good_steps = 0;
        if (isfinite(op->loss_scale * 2.0f))
            op->loss_scale *= 2.0f;
    }
    op->step_overflowed = 0;
}

tdm_status tdm_train_op_loss_scale(const tdm_train_op *op, float *scale, uint64_t *skipped_steps)
{
    TDM_CHECK_ARG(op, "tdm_train_op_loss_scale");
    if (scale)
        *scale = op->opts.loss_scale > 0.0f ? op->loss_scale : 1.0f;
    if (skipped_steps)
        *skipped_steps = op->skipped_steps;
    return TDM_OK;
}
