/* Sharded slots in checkpoints: each slot written whole under the name an unsharded
 * slot variable has ("<var>/<slot>"), its parts read from the replicas' shards, and
 * restored by scattering it back; so a checkpoint resumes sharded or not, on any
 * replica count. */
#include <stdlib.h>

#include "base/error.h"
#include "distribute/variable_access.h"
#include "train/train_op_impl.h"

/* Copies variable i's owned parts between the host buffer of its whole slot k and
 * every local replica's shard (to_host: gathering). */
static tdm_status move_parts(const tdm_train_op *op, size_t i, size_t k, float *host, int to_host)
{
    tdm_status s = TDM_OK;
    for (size_t id = 0; id < tdm_strategy_num_local_replicas(op->strategy) && s == TDM_OK; id++) {
        size_t first, n, at;
        if (!tdm_train_shard_range(op, i, id, &first, &n, &at))
            continue;
        tdm_buffer_view v = tdm_tensor_view(op->replicas[id].shard_slots[k]);
        size_t offset = v.offset + at * sizeof(float), bytes = n * sizeof(float);
        s = to_host ? tdm_buffer_read(v.buffer, offset, host + first, bytes)
                    : tdm_buffer_write(v.buffer, offset, host + first, bytes);
    }
    return s;
}

/* Every slot of every variable, saved or restored. */
static tdm_status each_slot(const tdm_train_op *op, tdm_checkpoint_writer *w,
                            const tdm_checkpoint *c)
{
    /* Another process's replicas hold the rest of each slot. */
    if (tdm_strategy_num_workers(op->strategy) > 1)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "shard_optimizer in a job of %zu processes: each holds its replicas' "
                        "slices of the slots, which checkpoints do not gather yet",
                        tdm_strategy_num_workers(op->strategy));
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
            else if (w) {
                s = move_parts(op, i, k, host, 1);
                if (s == TDM_OK)
                    s = tdm_checkpoint_add(w, name, TDM_F32, &shape, host);
            } else {
                s = tdm_checkpoint_read(c, name, TDM_F32, &shape, host, count * sizeof *host);
                if (s == TDM_OK)
                    s = move_parts(op, i, k, host, 0);
            }
            if (s != TDM_OK && name)
                tdm_fail_context(s, "slot '%s'", name);
            free(name);
        }
        free(host);
    }
    return s;
}

tdm_status tdm_train_shard_save(const tdm_train_op *op, tdm_checkpoint_writer *w)
{
    return each_slot(op, w, NULL);
}

tdm_status tdm_train_shard_restore(tdm_train_op *op, const tdm_checkpoint *c)
{
    return each_slot(op, NULL, c);
}
