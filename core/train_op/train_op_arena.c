/* One update launch per replica (docs/design/006-one-update-launch.md): each
 * replica's copies of the op's variables, and of their optimizer slots, moved side by
 * side into one buffer each (an arena), laid out as the gradients are in flat, so
 * that the optimizer's kernel runs once over all of them. The kernels are
 * elementwise: the bits are those of one launch per variable. With sharded state
 * only the weights move (the slots are the replicas' shards already), and the
 * all-gather writes them in place (train_op_shard.c). */
#include <stdlib.h>

#include "base/error.h"
#include "device/memory/tensor_impl.h"
#include "distribute/variable_access.h"
#include "tandem/ops.h"
#include "train_op/train_op_impl.h"

/* Whether every copy the update writes on each replica is that replica's own
 * float32 copy, computed on its own device (sharded: each replica computes its part
 * on its own device anyway): else the per-variable path (on a copy 0's device where
 * the arithmetic differs) stays. */
static int arena_applies(const tdm_train_op *op, tdm_variable *const *slots, size_t per)
{
    size_t replicas = tdm_strategy_num_local_replicas(op->strategy);
    for (size_t i = 0; i < op->var_count; i++)
        for (size_t k = 0; k <= per; k++) {
            const tdm_variable *v = k ? slots[i * per + k - 1] : op->vars[i];
            if (!tdm_variable_mirrored(v) || tdm_variable_dtype(v) != TDM_F32)
                return 0;
            for (size_t r = 0; r < replicas; r++) {
                int c = tdm_variable_copy_index(v, tdm_strategy_device(op->strategy, r));
                if (c < 0 || (!op->shards && !tdm_optimizer_computes_copy(v, (size_t)c)))
                    return 0;
            }
        }
    return 1;
}

/* Arena k of replica r (0: the weights, else slot k - 1) and every variable's copy
 * moved into its slice. */
static tdm_status fill_arena(tdm_train_op *op, tdm_train_replica *r, size_t id, size_t k,
                             tdm_variable *const *slots, size_t per)
{
    tdm_device *dev = tdm_strategy_device(op->strategy, id);
    tdm_status s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(op->flat_count), &r->arena[k]);
    if (s == TDM_OK) /* the gaps and the padding are updated too, from zeros */
        s = tdm_op_fill(r->arena[k], 0.0f);
    for (size_t i = 0; i < op->var_count && s == TDM_OK; i++) {
        tdm_variable *v = k ? slots[i * per + k - 1] : op->vars[i];
        tdm_shape shape = tdm_variable_shape(v);
        tdm_tensor *part = NULL;
        s = tdm_tensor_share(r->arena[k], op->offsets[i], &shape, &part);
        if (s == TDM_OK)
            s = tdm_variable_move_copy(v, (size_t)tdm_variable_copy_index(v, dev), part);
        if (s != TDM_OK) /* else the move took it */
            tdm_tensor_destroy(part);
    }
    return s;
}

/* The slots that have arenas: none with sharded state. */
static size_t arena_slots(const tdm_train_op *op)
{
    return op->shards ? 0 : op->opts.optimizer->slot_count;
}

static void free_gather(const tdm_train_op *op, tdm_train_replica *r)
{
    for (size_t b = 0; r->arena_gather && b < 2 * op->bucket_count; b++)
        tdm_tensor_destroy(r->arena_gather[b]);
    free(r->arena_gather);
    r->arena_gather = NULL;
}

/* Sharded: per bucket, its slice of the weight arena and this replica's part of
 * that, the all-gather's output and input. */
static tdm_status gather_slices(tdm_train_op *op, tdm_train_replica *r, size_t id)
{
    r->arena_gather = calloc(2 * op->bucket_count, sizeof *r->arena_gather);
    if (!r->arena_gather)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    tdm_status s = TDM_OK;
    for (size_t b = 0; b < op->bucket_count && s == TDM_OK; b++) {
        size_t first = b ? op->bucket_end[b - 1] : 0,
               part = (op->bucket_end[b] - first) / op->shards;
        s = tdm_tensor_slice(r->arena[0], first, &TDM_SHAPE(part * op->shards),
                             &r->arena_gather[2 * b]);
        if (s == TDM_OK)
            s = tdm_tensor_slice(r->arena[0], first + id * part, &TDM_SHAPE(part),
                                 &r->arena_gather[2 * b + 1]);
    }
    if (s != TDM_OK) /* no gather without every slice (tdm_train_arena_intact) */
        free_gather(op, r);
    return s;
}

tdm_status tdm_train_arena_make(tdm_train_op *op)
{
    size_t per = arena_slots(op);
    op->slot_vars = calloc(op->var_count * per + 1, sizeof *op->slot_vars);
    if (!op->slot_vars)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    tdm_status s = per ? tdm_optimizer_lookup_slots(op->opts.optimizer, op->vars, op->var_count,
                                                    op->slot_vars, "tdm_train_op_create")
                       : TDM_OK;
    if (s == TDM_OK && arena_applies(op, op->slot_vars, per))
        for (size_t id = 0; id < tdm_strategy_num_local_replicas(op->strategy) && s == TDM_OK;
             id++) {
            for (size_t k = 0; k <= per && s == TDM_OK; k++)
                s = fill_arena(op, &op->replicas[id], id, k, op->slot_vars, per);
            if (s == TDM_OK && op->shards)
                s = gather_slices(op, &op->replicas[id],
                                  tdm_strategy_first_replica(op->strategy) + id);
        }
    /* An arena is allocated while the copies it replaces still are: where that does
     * not fit, the replicas without a whole arena keep one launch per variable. */
    return s == TDM_ERR_OUT_OF_MEMORY ? TDM_OK : s;
}

void tdm_train_arena_free(tdm_train_op *op, tdm_train_replica *r)
{
    free_gather(op, r);
    for (size_t k = 0; k <= TDM_OPT_MAX_SLOTS; k++)
        tdm_tensor_destroy(r->arena[k]); /* the variables keep the buffer alive */
}

/* Whether every variable and slot still has its copy in the replica's arenas, at
 * its place: another train op over the same variables may have moved them into its
 * own since. (The arenas' buffers live as long as the op, so no other buffer can
 * take their address.) */
int tdm_train_arena_intact(const tdm_train_op *op, const tdm_train_replica *r, tdm_device *dev)
{
    size_t per = arena_slots(op);
    for (size_t k = 0; k <= per; k++)
        if (!r->arena[k] || (op->shards && !r->arena_gather))
            return 0;
    for (size_t i = 0; i < op->var_count; i++)
        for (size_t k = 0; k <= per; k++) {
            const tdm_variable *v = k ? op->slot_vars[i * per + k - 1] : op->vars[i];
            int c = tdm_variable_copy_index(v, dev);
            tdm_buffer_view at =
                c < 0 ? (tdm_buffer_view){0} : tdm_tensor_view(tdm_variable_copy(v, (size_t)c));
            if (at.buffer != r->arena[k]->buffer || at.offset != op->offsets[i] * sizeof(float))
                return 0;
        }
    return 1;
}

tdm_status tdm_train_arena_update(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r)
{
    tdm_optimizer *opt = op->opts.optimizer;
    size_t per = opt->slot_count;
    tdm_device *dev = tdm_replica_device(rc);
    if (!tdm_train_arena_intact(op, r, dev))
        return tdm_optimizer_apply_local(opt, rc, op->vars, r->views, op->var_count);
    tdm_buffer_view views[2 + TDM_OPT_MAX_SLOTS];
    views[0] = tdm_tensor_view(r->arena[0]);
    views[1] = tdm_tensor_view(r->all);
    for (size_t k = 0; k < per; k++)
        views[2 + k] = tdm_tensor_view(r->arena[1 + k]);
    for (size_t i = 0, in = arena_slots(op); i < op->var_count; i++)
        for (size_t k = 0; k <= in; k++) {
            tdm_variable *v = k ? op->slot_vars[i * in + k - 1] : op->vars[i];
            tdm_variable_wrote(v, (size_t)tdm_variable_copy_index(v, dev));
        }
    tdm_opt_step step = tdm_optimizer_step_params(opt, tdm_optimizer_iterations(opt));
    tdm_status s = tdm_optimizer_run_kernel(opt, &step, dev, views, op->total);
    return s == TDM_OK ? s
                       : tdm_fail_context(s, "tdm_train_op_run: replica %zu: %s update",
                                          tdm_replica_local_id(rc), tdm_optimizer_name(opt));
}
