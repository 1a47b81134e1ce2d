/* One step of the train op: loss and gradients on every replica, one all-reduce of
 * them all, checks and transforms, then the same update on every replica. */
#include "base/clock.h"
#include "base/error.h"
#include "optimizer/optimizer_impl.h"
#include "distribute/variable_access.h"
#include "train_op/train_op_impl.h"
#include "train_op/train_trace.h"

float tdm_loss_args_scale(const tdm_loss_args *args)
{
    if (!args)
        return 1.0f;
    float scaled = args->loss_scale > 0.0f ? args->loss_scale : 1.0f;
    return args->reduction == TDM_LOSS_SUM ? scaled
                                           : scaled * tdm_loss_scale(args->global_batch_size);
}

static tdm_loss_args loss_args(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r)
{
    size_t id = tdm_replica_local_id(rc), first = op->batch->first_row;
    for (size_t i = 0; i < id; i++)
        first += op->batch->replica_rows[i];
    tdm_loss_args a = {.rc = rc,
                       .features = tdm_replica_arg(rc, 0),
                       .labels = tdm_replica_arg(rc, 1),
                       .rows = op->batch->replica_rows[id],
                       .global_batch_size = op->batch->global_batch_size,
                       .first_row = first,
                       .step = op->global_step,
                       .seed = op->opts.seed,
                       .reduction = op->opts.reduction,
                       .vars = op->vars,
                       .grads = r->grads,
                       .var_count = op->var_count,
                       .loss = r->loss,
                       .train = r,
                       .loss_scale = tdm_train_scaling(op) ? op->loss_scale : 1.0f};
    return a;
}

/* Everything after the all-reduce; nothing changes a variable before the checks.
 * With loss scaling, gradients that overflowed skip the update instead of failing. */
static tdm_status apply(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r)
{
    int skip = 0;
    tdm_status s = tdm_train_scaling(op)     ? tdm_train_unscale(op, rc, r, &skip)
                   : op->opts.check_numerics ? tdm_train_check_numerics(op, rc, r)
                                             : TDM_OK;
    if (s == TDM_OK && !skip)
        s = tdm_train_transform(op, rc, r);
    if (s == TDM_OK && !skip && op->opts.gradient_summaries && tdm_replica_local_id(rc) == 0)
        s = tdm_train_summarize(op, r);
    if (s == TDM_OK && !skip && op->shards)
        s = tdm_train_shard_update(op, rc, r);
    else if (s == TDM_OK && !skip && !op->home_grads &&
             !op->remote) /* parameter servers: after the run */
        s = tdm_train_arena_update(op, rc, r);
    if (s == TDM_OK && op->opts.update_ops)
        s = op->opts.update_ops(rc, op->opts.update_ops_user);
    return s;
}

/* Waits for the replica's device and sets *at to when it was done: by the device's
 * clock where the step is traced. */
static tdm_status phase_done(tdm_train_replica *r, tdm_replica_context *rc, double *at)
{
    tdm_device *dev = tdm_replica_device(rc);
    if (r->trace)
        return tdm_trace_time(r->trace, dev, at);
    tdm_status s = tdm_device_finish(dev);
    *at = tdm_seconds();
    return s;
}

static tdm_status replica_step(tdm_replica_context *rc, void *user)
{
    tdm_train_op *op = user;
    tdm_train_replica *r = &op->replicas[tdm_replica_local_id(rc)];
    tdm_loss_args a = loss_args(op, rc, r);
    r->f32_throughout = 0;
    r->loss_known = 0;
    tdm_train_buckets_begin(r, rc);
    /* the forward starts once the device has the batch */
    tdm_status s =
        r->trace ? tdm_trace_time(r->trace, tdm_replica_device(rc), &r->trace->loss[0]) : TDM_OK;
    if (s == TDM_OK)
        s = op->opts.loss_fn(&a, op->opts.loss_user);
    if (s == TDM_OK)
        s = tdm_train_buckets_finish(r);
    int timed = op->profiling || r->trace; /* each phase waits for the device */
    double reduced = 0.0, updated = 0.0;
    if (s == TDM_OK && timed)
        s = phase_done(r, rc, &reduced);
    if (s == TDM_OK)
        s = apply(op, rc, r);
    if (s == TDM_OK && timed)
        s = phase_done(r, rc, &updated);
    if (s == TDM_OK && timed) {
        if (op->profiling) {
            r->profile.all_reduce_seconds += reduced - (r->began + r->seconds);
            r->profile.update_seconds += updated - reduced;
            r->profile.steps++;
        }
        if (r->trace) {
            r->trace->update[0] = reduced;
            r->trace->update[1] = updated;
        }
    }
    if (s == TDM_OK && tdm_replica_local_id(rc) == 0) {
        float loss = r->loss_read;
        if (!r->loss_known)
            s = tdm_tensor_read(r->loss, &loss, sizeof loss);
        op->loss = tdm_train_scaling(op) ? loss / op->loss_scale : loss;
    }
    return s;
}

static tdm_status check_batch(const tdm_train_op *op, const tdm_distributed_batch *b)
{
    if (!b->global_batch_size || !b->features || !b->labels)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_train_op_run: the batch is empty (the end of the data)");
    if (b->num_replicas != tdm_strategy_num_local_replicas(op->strategy))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_train_op_run: the batch is split over %zu replicas, the strategy "
                        "has %zu",
                        b->num_replicas, tdm_strategy_num_local_replicas(op->strategy));
    return TDM_OK;
}

tdm_status tdm_train_op_run(tdm_train_op *op, const tdm_distributed_batch *batch, double *loss)
{
    TDM_CHECK_ARG(op, "tdm_train_op_run");
    TDM_CHECK_ARG(batch, "tdm_train_op_run");
    tdm_status s = check_batch(op, batch);
    if (s != TDM_OK)
        return s;
    tdm_value *args[] = {batch->features, batch->labels};
    tdm_strategy_note_loss_reduction(op->strategy, op->opts.reduction);
    op->batch = batch;
    op->traced = tdm_train_trace_begin(op->trace, op->global_step);
    if (op->traced) {
        op->traced->input[0] = op->input_wait[0];
        op->traced->input[1] = op->input_wait[1];
    }
    s = tdm_strategy_run(op->strategy, replica_step, op, args, 2, NULL);
    op->batch = NULL;
    uint64_t next = op->global_step + 1;
    if (s == TDM_OK && op->home_grads && !op->step_overflowed)
        s = tdm_train_update_homes(op);
    if (s == TDM_OK && op->remote)
        s = tdm_train_remote_step(op, &next);
    if (s == TDM_OK && op->resync)
        s = tdm_train_resync(op);
    else if (s != TDM_OK && s != TDM_ERR_DEVICE_LOST) {
        tdm_error_hold(); /* the step's failure stays the message's first cause */
        tdm_train_resync(op); /* a failed update may have reached some copies only */
        tdm_error_release();
    }
    if (s == TDM_OK && tdm_strategy_checks_mirrored(op->strategy)) /* the copies the step wrote */
        s = tdm_strategy_check_mirrored(op->strategy);
    if (s == TDM_OK && op->traced)
        s = tdm_train_trace_end(op->trace, op->traced, op->global_step);
    op->traced = NULL;
    op->input_wait[0] = op->input_wait[1] = 0.0; /* each note is for one step */
    if (s != TDM_OK) {
        op->step_overflowed = 0;
        return tdm_fail_context(s, "tdm_train_op_run: step %llu",
                                (unsigned long long)op->global_step);
    }
    op->have_summaries = op->opts.gradient_summaries && !op->step_overflowed;
    if (tdm_train_scaling(op))
        tdm_train_loss_scale_update(op);
    op->scale_idle = tdm_train_scale_guards_nothing(op);
    if (tdm_train_balance_measures(op))
        s = tdm_train_balance_update(op, batch);
    if (s == TDM_OK)
        s = tdm_train_op_set_global_step(op, next);
    if (s == TDM_OK && loss)
        *loss = op->loss;
    return s;
}
