/* The collectives' one entry: tdm_collective_check and tdm_collective_run pick each
 * kind's checks and path; here too the reduction's own, with the events that order
 * the plan's in-place accesses. They return once the plan is issued. */
#include "collective/collective_impl.h"
#include "base/error.h"

static int across_ranks(const tdm_ranks *ranks)
{
    return ranks && ranks->count > 1;
}

/* REDUCE: every output receives op over the inputs. */
static tdm_status reduce_run(const tdm_collective_call *call)
{
    const tdm_collective_options *opts = &call->opts;
    if (call->inputs[0].size == 0)
        return TDM_OK;
    if (call->count == 1 && call->output_count == 1 &&
        call->outputs[0].buffer == call->inputs[0].buffer &&
        call->outputs[0].offset == call->inputs[0].offset && !across_ranks(opts->ranks))
        return TDM_OK; /* one value, reduced in place: it is already the result */
    coll_scratch scratch = {0};
    coll_order order;
    coll_job job = {.func = call->func,
                    .op = call->op,
                    .dtype = opts->dtype,
                    .values = call->inputs,
                    .count = call->count,
                    .dsts = call->outputs,
                    .dst_count = call->output_count,
                    .reduce_on = opts->reduce_on,
                    .scratch = &scratch,
                    .order = &order,
                    .algorithm = opts->algorithm,
                    .ranks = opts->ranks};
    tdm_status s = coll_order_init(&order, &job, call->ready);
    if (s != TDM_OK)
        return s;
    s = across_ranks(job.ranks) ? coll_ranks(&job) : coll_run_plan(&job, opts->algorithm);
    tdm_status settled = coll_order_settle(&order);
    coll_order_free(&order);
    coll_scratch_release(&scratch);
    return s != TDM_OK ? s : settled;
}

static tdm_status reduce_check(tdm_collective_call *call, const tdm_collective_options *opts)
{
    const char *f = call->func;
    tdm_status s = coll_check_op(f, call->op);
    if (s == TDM_OK)
        s = coll_check_values(f, "values", call->inputs, call->count);
    if (s == TDM_OK)
        s = coll_check_dsts(f, call->outputs, call->output_count, call->inputs[0].size);
    if (s == TDM_OK)
        s = coll_check_options(f, opts, call->count, &call->opts);
    return s == TDM_OK ? tdm_collective_check_dtype(f, call->op, call->opts.dtype) : s;
}

tdm_status tdm_collective_check(tdm_collective_call *call, const tdm_collective_options *opts)
{
    switch (call->kind) {
    case TDM_COLL_REDUCE: return reduce_check(call, opts);
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
    case TDM_COLL_REDUCE: return reduce_run(call);
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
    return across_ranks(opts->ranks) || !coll_all_share(values, count);
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
