/* Reduce to the root and broadcast from it, on this process's values: the reduce is
 * the engine's reduction with the root's output as its one destination, so every
 * plan folds as the all-reduce does and gives its bits; the broadcast copies the
 * root's input to every other output, each copy by its own path (direct, or staged
 * through the host), whatever the plan: a copy folds nothing for a plan to order.
 * Across processes: shard_ranks.c. */
#include "collective/collective_impl.h"

tdm_status coll_root_reduce_run(const tdm_collective_call *call)
{
    tdm_status s = coll_check_shard_plan(call, 0); /* whatever the size */
    if (s != TDM_OK)
        return s;
    if (coll_shard_across_ranks(call))
        return coll_root_reduce_ranks(call);
    tdm_collective_call reduce = {.kind = TDM_COLL_REDUCE,
                                  .func = call->func,
                                  .op = call->op,
                                  .inputs = call->inputs,
                                  .count = call->count,
                                  .outputs = &call->outputs[call->root],
                                  .output_count = 1,
                                  .ready = call->ready,
                                  .opts = call->opts};
    return coll_reduce_run(&reduce);
}

tdm_status coll_root_broadcast_run(const tdm_collective_call *call)
{
    if (coll_shard_across_ranks(call))
        return coll_root_broadcast_ranks(call);
    if (call->inputs[0].size == 0)
        return TDM_OK;
    return coll_copy_to_all(&call->inputs[call->root], call->outputs, call->count);
}
