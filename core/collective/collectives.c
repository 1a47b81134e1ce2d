/* The collectives' one entry: tdm_collective_check and tdm_collective_run pick each
 * kind's checks and path, and the public calls each make their call record and go
 * through it. They return once the plan is issued. Above every kind's file, which
 * calls nothing here. */
#include "collective/collective_impl.h"
#include "base/error.h"

tdm_status tdm_collective_check(tdm_collective_call *call, const tdm_collective_options *opts)
{
    switch (call->kind) {
    case TDM_COLL_REDUCE: return coll_reduce_check(call, opts);
    case TDM_COLL_ALL_GATHER: return coll_all_gather_check(call, opts);
    case TDM_COLL_REDUCE_SCATTER: return coll_reduce_scatter_check(call, opts);
    case TDM_COLL_ROOT_REDUCE: return coll_root_reduce_check(call, opts);
    case TDM_COLL_ROOT_BROADCAST: return coll_root_broadcast_check(call, opts);
    }
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown collective kind %d", call->func,
                    (int)call->kind);
}

tdm_status tdm_collective_run(const tdm_collective_call *call)
{
    switch (call->kind) {
    case TDM_COLL_REDUCE: return coll_reduce_run(call);
    case TDM_COLL_ALL_GATHER: return coll_all_gather_run(call);
    case TDM_COLL_REDUCE_SCATTER: return coll_reduce_scatter_run(call);
    case TDM_COLL_ROOT_REDUCE: return coll_root_reduce_run(call);
    case TDM_COLL_ROOT_BROADCAST: return coll_root_broadcast_run(call);
    }
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown collective kind %d", call->func,
                    (int)call->kind);
}

tdm_status tdm_collective(tdm_collective_call *call, const tdm_collective_options *opts)
{
    tdm_status s = tdm_collective_check(call, opts);
    return s == TDM_OK ? tdm_collective_run(call) : s;
}

tdm_status tdm_all_reduce(tdm_reduce_op op, const tdm_buffer_view *values, size_t count,
                          const tdm_collective_options *opts)
{
    tdm_collective_call call = {.kind = TDM_COLL_REDUCE,
                                .func = "tdm_all_reduce",
                                .op = op,
                                .inputs = values,
                                .count = count,
                                .outputs = values,
                                .output_count = count};
    return tdm_collective(&call, opts);
}

int tdm_all_reduce_blocks(const tdm_buffer_view *values, size_t count,
                          const tdm_collective_options *opts)
{
    return (opts->ranks && opts->ranks->count > 1) || !coll_all_share(values, count);
}

tdm_status tdm_reduce_to(tdm_reduce_op op, const tdm_buffer_view *values, size_t count,
                         const tdm_buffer_view *dsts, size_t dst_count,
                         const tdm_collective_options *opts)
{
    tdm_collective_call call = {.kind = TDM_COLL_REDUCE,
                                .func = "tdm_reduce_to",
                                .op = op,
                                .inputs = values,
                                .count = count,
                                .outputs = dsts,
                                .output_count = dst_count};
    return tdm_collective(&call, opts);
}
tdm_status tdm_all_gather(const tdm_buffer_view *inputs, const tdm_buffer_view *outputs,
                          size_t count, const tdm_collective_options *opts)
{
    tdm_collective_call call = {.kind = TDM_COLL_ALL_GATHER,
                                .func = "tdm_all_gather",
                                .inputs = inputs,
                                .outputs = outputs,
                                .count = count};
    return tdm_collective(&call, opts);
}

tdm_status tdm_reduce_scatter(tdm_reduce_op op, const tdm_buffer_view *inputs,
                              const tdm_buffer_view *outputs, size_t count,
                              const tdm_collective_options *opts)
{
    tdm_collective_call call = {.kind = TDM_COLL_REDUCE_SCATTER,
                                .func = "tdm_reduce_scatter",
                                .op = op,
                                .inputs = inputs,
                                .outputs = outputs,
                                .count = count};
    return tdm_collective(&call, opts);
}

tdm_status tdm_broadcast(const tdm_buffer_view *src, const tdm_buffer_view *dsts, size_t dst_count)
{
    const char *f = "tdm_broadcast";
    tdm_status s = coll_check_values(f, "src", src, 1);
    if (s == TDM_OK)
        s = coll_check_dsts(f, dsts, dst_count, src->size);
    if (s != TDM_OK)
        return s;
    return coll_copy_to_all(src, dsts, dst_count);
}
