/* Sharded slots in checkpoints: each slot written whole under the name an unsharded
 * slot variable has ("<var>/<slot>"), and restored by every process taking its
 * replicas' parts of it; so a checkpoint resumes sharded or not, on any replica or
 * process count. To save, the replicas all-gather one slot at a time into their flat
 * buffers, which are scratch between steps, across every process of a multi-worker
 * job; the chief writes what its replica 0 gathered. */
#include <stdlib.h>

#include "base/error.h"
#include "distribute/variable_access.h"
#include "tandem/ops.h"
#include "train_op/train_op_impl.h"

typedef struct {
    const tdm_train_op *op;
    size_t slot;
} gather_call;

/* Slot k of every replica's shard, whole, into the replica's flat buffer. */
static tdm_status gather_replica(tdm_replica_context *rc, void *user)
{
    const gather_call *g = user;
    const tdm_train_op *op = g->op;
    tdm_train_replica *r = &op->replicas[tdm_replica_local_id(rc)];
    tdm_tensor **parts = calloc(op->bucket_count, sizeof *parts);
    tdm_status s = parts ? tdm_train_shard_slices(op, r->shard_slots[g->slot], parts)
                         : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    size_t started = 0;
    for (; started < op->bucket_count && s == TDM_OK; started++)
        s = tdm_replica_all_gather_start(rc, parts[started], r->buckets[started],
                                         &r->pending[started]);
    for (size_t b = 0; b < started; b++) {
        tdm_status w = tdm_pending_wait(r->pending[b]);
        s = s != TDM_OK ? s : w;
    }
    for (size_t b = 0; parts && b < op->bucket_count; b++)
        tdm_tensor_destroy(parts[b]);
    free(parts);
    return s;
}

/* Slot k of every variable from local replica 0's flat buffer into the checkpoint. */
static tdm_status write_slot(const tdm_train_op *op, size_t k, tdm_checkpoint_writer *w)
{
    const tdm_optimizer *opt = op->opts.optimizer;
    tdm_buffer_view flat = tdm_tensor_view(op->replicas[0].flat);
    float *host = malloc((op->flat_count ? op->flat_count : 1) * sizeof *host);
    tdm_status s =
        host ? tdm_buffer_read(flat.buffer, flat.offset, host, op->flat_count * sizeof *host)
             : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    for (size_t i = 0; i < op->var_count && s == TDM_OK; i++) {
        tdm_shape shape = tdm_variable_shape(op->vars[i]);
        char *name = tdm_optimizer_slot_var_name(opt, op->vars[i], k);
        s = name ? tdm_checkpoint_add(w, name, TDM_F32, &shape, host + op->offsets[i])
                 : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
        if (s != TDM_OK && name)
            tdm_fail_context(s, "slot '%s'", name);
        free(name);
    }
    free(host);
    return s;
}

tdm_status tdm_train_shard_save(const tdm_train_op *op, tdm_checkpoint_writer *w)
{
    tdm_status s = TDM_OK;
    for (size_t k = 0; k < op->opts.optimizer->slot_count && s == TDM_OK; k++) {
        gather_call g = {op, k};
        s = tdm_strategy_run(op->strategy, gather_replica, &g, NULL, 0, NULL);
        if (s == TDM_OK && w)
            s = write_slot(op, k, w);
        /* The padding of flat is summed by the next step's reduce-scatter: zeros. */
        for (size_t id = 0; id < tdm_strategy_num_local_replicas(op->strategy) && s == TDM_OK; id++)
            s = tdm_op_fill(op->replicas[id].flat, 0.0f);
    }
    return s;
}

/* Variable i's parts of its whole slot k from host into this process's replicas. */
static tdm_status scatter_parts(const tdm_train_op *op, size_t i, size_t k, const float *host)
{
    size_t base = tdm_strategy_first_replica(op->strategy);
    tdm_status s = TDM_OK;
    for (size_t id = 0; id < tdm_strategy_num_local_replicas(op->strategy) && s == TDM_OK; id++) {
        size_t first, n, at;
        if (!tdm_train_shard_range(op, i, base + id, &first, &n, &at))
            continue;
        tdm_buffer_view v = tdm_tensor_view(op->replicas[id].shard_slots[k]);
        s = tdm_buffer_write(v.buffer, v.offset + at * sizeof(float), host + first,
                             n * sizeof(float));
    }
    return s;
}

tdm_status tdm_train_shard_restore(tdm_train_op *op, const tdm_checkpoint *c)
{
    const tdm_optimizer *opt = op->opts.optimizer;
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < op->var_count && s == TDM_OK; i++) {
        size_t count = tdm_variable_count(op->vars[i]);
        tdm_shape shape = tdm_variable_shape(op->vars[i]);
        float *host = malloc((count ? count : 1) * sizeof *host);
        for (size_t k = 0; k < opt->slot_count && s == TDM_OK; k++) {
            char *name = tdm_optimizer_slot_var_name(opt, op->vars[i], k);
            if (!host || !name)
                s = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
            else
                s = tdm_checkpoint_read(c, name, TDM_F32, &shape, host, count * sizeof *host);
            if (s == TDM_OK)
                s = scatter_parts(op, i, k, host);
            if (s != TDM_OK && name)
                tdm_fail_context(s, "slot '%s'", name);
            free(name);
        }
        free(host);
    }
    return s;
}
