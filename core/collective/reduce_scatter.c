/* Reduce-scatter: shard i of every input, folded in replica order, into outputs[i].
 * Each shard is one reduction of the all-reduce's plans (values: shard i of every
 * input; destination: outputs[i]), so every plan folds exactly as all-reduce does and
 * shard i has the bits of slice i of the all-reduce. The plans, per shard:
 *   ONE_DEVICE  folded on one device (reduce_on's, else replica 0's), then copied;
 *   RING        folded on replica i's device, which receives shard i of every other
 *               input (the reduce-scatter half of the ring all-reduce);
 *   TREE, DIRECT, HOST  as all-reduce's, with the shard's one destination.
 * All shards share one set of events and one scratch list, settled once. */
#include <stdlib.h>

#include "base/error.h"
#include "collective/collective_impl.h"

static tdm_status scatter_shards(const tdm_collective_call *call, coll_job *job,
                                 tdm_buffer_view *shard)
{
    size_t n = call->outputs[0].size;
    tdm_collective_algorithm algorithm = call->opts.algorithm;
    if (algorithm == TDM_COLLECTIVE_AUTO)
        algorithm = coll_choose(call->inputs, call->count);
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < call->count && s == TDM_OK; i++) {
        for (size_t j = 0; j < call->count; j++)
            shard[j] = coll_slice(&call->inputs[j], i * n, n);
        coll_job sub = *job;
        sub.values = shard;
        sub.dsts = &call->outputs[i];
        sub.dst_count = 1;
        tdm_collective_algorithm plan = algorithm;
        if (algorithm == TDM_COLLECTIVE_RING) {
            plan = TDM_COLLECTIVE_ONE_DEVICE;
            sub.reduce_on = (int)i;
        } else if (algorithm == TDM_COLLECTIVE_ONE_DEVICE && sub.reduce_on < 0) {
            sub.reduce_on = 0;
        }
        if (call->count == 1 && shard[0].buffer == call->outputs[0].buffer &&
            shard[0].offset == call->outputs[0].offset)
            continue; /* one replica, in place: its shard is the result */
        s = coll_run_plan(&sub, plan);
    }
    return s;
}

tdm_status coll_reduce_scatter_run(const tdm_collective_call *call)
{
    tdm_status st = coll_check_shard_plan(call, 0);
    if (st == TDM_OK && coll_shard_across_ranks(call))
        return coll_reduce_scatter_ranks(call);
    if (st != TDM_OK || call->outputs[0].size == 0)
        return st;
    tdm_buffer_view *shard = malloc(call->count * sizeof *shard);
    if (!shard)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", call->func);
    coll_scratch scratch = {0};
    coll_order order;
    coll_job job = {.func = call->func,
                    .op = call->op,
                    .dtype = call->opts.dtype,
                    .values = call->inputs,
                    .count = call->count,
                    .dsts = call->outputs,
                    .dst_count = call->count,
                    .reduce_on = call->opts.reduce_on,
                    .scratch = &scratch,
                    .order = &order,
                    .algorithm = call->opts.algorithm};
    tdm_status s = coll_order_init(&order, &job, call->ready);
    if (s == TDM_OK) {
        s = scatter_shards(call, &job, shard);
        tdm_status settled = coll_order_settle(&order);
        coll_order_free(&order);
        s = s != TDM_OK ? s : settled;
    }
    coll_scratch_release(&scratch);
    free(shard);
    return s;
}
