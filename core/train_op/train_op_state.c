/* The train op's checkpoint state: the global step, the seed, the dynamic loss
 * scale, the trained variables, the optimizer's slots and the state variables. */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "optimizer/optimizer_impl.h"
#include "train_op/step_impl.h"
#include "train_op/train_op_impl.h"

tdm_status tdm_train_each_variable(const tdm_train_op *op, tdm_train_var_fn fn, void *ctx)
{
    const char *names[TDM_OPT_MAX_SLOTS];
    size_t slots = op->shards || op->remote
                       ? 0 /* no variables; the servers keep the slots */
                       : tdm_optimizer_slot_names(op->opts.optimizer, names, TDM_OPT_MAX_SLOTS);
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < op->var_count && s == TDM_OK; i++) {
        s = fn(ctx, op->vars[i]);
        for (size_t k = 0; k < slots && s == TDM_OK; k++) {
            tdm_variable *slot = NULL;
            s = tdm_optimizer_get_slot(op->opts.optimizer, op->vars[i], names[k], &slot);
            if (s == TDM_OK)
                s = fn(ctx, slot);
        }
    }
    return s;
}

static tdm_status save_var(void *w, tdm_variable *var)
{
    return tdm_checkpoint_add_variable(w, var);
}

static tdm_status restore_var(void *c, tdm_variable *var)
{
    return tdm_checkpoint_restore_variable(c, var);
}

/* Dynamic loss scaling's state: the scale (its float bits), the finite steps in a
 * row at it and the steps skipped, so that a resumed run scales as the whole one. */
static const char *const loss_scale_records[] = {"train/loss_scale", "train/loss_scale_good_steps",
                                                 "train/loss_scale_skipped_steps"};

static tdm_status save_loss_scale(const tdm_train_op *op, tdm_checkpoint_writer *w)
{
    uint32_t bits;
    memcpy(&bits, &op->loss_scale, sizeof bits);
    const uint64_t values[] = {bits, op->good_steps, op->skipped_steps};
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < 3 && s == TDM_OK; i++)
        s = tdm_checkpoint_add_u64(w, loss_scale_records[i], values[i]);
    return s;
}

/* A checkpoint of a run without loss scaling leaves the initial state. */
static tdm_status restore_loss_scale(tdm_train_op *op, const tdm_checkpoint *c)
{
    uint64_t values[3] = {0, 0, 0};
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < 3 && s == TDM_OK; i++)
        s = tdm_checkpoint_read_u64(c, loss_scale_records[i], &values[i]);
    if (s == TDM_ERR_NOT_FOUND)
        return TDM_OK;
    uint32_t bits = (uint32_t)values[0];
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    if (s == TDM_OK && (!(scale >= 1.0f) || isinf(scale) || values[1] > UINT32_MAX))
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "the checkpoint's loss scale is %g after %llu good steps: damaged",
                        (double)scale, (unsigned long long)values[1]);
    if (s == TDM_OK) {
        op->loss_scale = scale;
        op->good_steps = (uint32_t)values[1];
        op->skipped_steps = values[2];
    }
    return s;
}

tdm_status tdm_train_op_save(const tdm_train_op *op, tdm_checkpoint_writer *w)
{
    TDM_CHECK_ARG(op, "tdm_train_op_save");
    TDM_CHECK_ARG(w, "tdm_train_op_save");
    uint64_t step = op->global_step; /* a job's worker: the step of its servers' state */
    tdm_status s = op->remote ? tdm_train_remote_state_step(op, &step) : TDM_OK;
    if (s == TDM_OK)
        s = tdm_checkpoint_add_u64(w, TDM_RECORD_GLOBAL_STEP, step);
    if (s == TDM_OK)
        s = tdm_checkpoint_add_u64(w, "train/seed", op->opts.seed);
    if (s == TDM_OK && op->opts.loss_scale > 0.0f)
        s = save_loss_scale(op, w);
    if (s == TDM_OK)
        s = tdm_strategy_scope_enter(op->strategy);
    if (s != TDM_OK)
        return tdm_fail_context(s, "tdm_train_op_save");
    s = op->remote ? tdm_train_remote_save(op, w) : tdm_train_each_variable(op, save_var, w);
    if (s == TDM_OK && op->shards)
        s = tdm_train_shard_save(op, w);
    for (size_t i = 0; i < op->state_count && s == TDM_OK; i++)
        s = tdm_checkpoint_add_variable(w, op->states[i]);
    tdm_strategy_scope_exit(op->strategy);
    return s == TDM_OK ? s : tdm_fail_context(s, "tdm_train_op_save");
}

tdm_status tdm_train_op_restore(tdm_train_op *op, const tdm_checkpoint *c)
{
    TDM_CHECK_ARG(op, "tdm_train_op_restore");
    TDM_CHECK_ARG(c, "tdm_train_op_restore");
    uint64_t step = 0, seed = 0;
    tdm_status s = tdm_checkpoint_read_u64(c, TDM_RECORD_GLOBAL_STEP, &step);
    if (s == TDM_OK)
        s = tdm_checkpoint_read_u64(c, "train/seed", &seed);
    if (s == TDM_OK && seed != op->opts.seed)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                     "the checkpoint was written with seed %llu, this "
                     "run uses %llu: resume with the same seed",
                     (unsigned long long)seed, (unsigned long long)op->opts.seed);
    if (s == TDM_OK && op->opts.loss_scale > 0.0f)
        s = restore_loss_scale(op, c);
    if (s == TDM_OK)
        s = tdm_strategy_scope_enter(op->strategy);
    if (s != TDM_OK)
        return tdm_fail_context(s, "tdm_train_op_restore");
    s = op->remote ? tdm_train_remote_restore(op, c, step)
                   : tdm_train_each_variable(op, restore_var, (void *)c);
    if (s == TDM_OK && op->shards)
        s = tdm_train_shard_restore(op, c);
    for (size_t i = 0; i < op->state_count && s == TDM_OK; i++)
        s = tdm_checkpoint_restore_variable(c, op->states[i]);
    tdm_strategy_scope_exit(op->strategy);
    if (s == TDM_OK)
        s = tdm_train_op_set_global_step(op, step);
    return s == TDM_OK ? s : tdm_fail_context(s, "tdm_train_op_restore");
}
