/* The collectives' entry points: argument checks, once, the choice of algorithm, and
 * the events that order the plan's in-place accesses; they return once the plan is
 * issued. */
#include "collective/collective_impl.h"
#include "base/error.h"

static int across_ranks(const tdm_ranks *ranks)
{
    return ranks && ranks->count > 1;
}

tdm_status tdm_collective_run(const tdm_collective_call *call)
{
    const tdm_collective_options *opts = &call->opts;
    if (call->values[0].size == 0)
        return TDM_OK;
    if (call->count == 1 && call->dst_count == 1 &&
        call->dsts[0].buffer == call->values[0].buffer &&
        call->dsts[0].offset == call->values[0].offset && !across_ranks(opts->ranks))
        return TDM_OK; /* one value, reduced in place: it is already the result */
    coll_scratch scratch = {0};
    coll_order order;
    coll_job job = {.func = call->func,
                    .op = call->op,
                    .dtype = opts->dtype,
                    .values = call->values,
                    .count = call->count,
                    .dsts = call->dsts,
                    .dst_count = call->dst_count,
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

tdm_status tdm_collective_check(tdm_collective_call *call, const tdm_collective_options *opts)
{
    const char *f = call->func;
    tdm_status s = coll_check_op(f, call->op);
    if (s == TDM_OK)
        s = coll_check_values(f, "values", call->values, call->count);
    if (s == TDM_OK)
        s = coll_check_dsts(f, call->dsts, call->dst_count, call->values[0].size);
    if (s == TDM_OK)
        s = coll_check_options(f, opts, call->count, &call->opts);
    return s == TDM_OK ? tdm_collective_check_dtype(f, call->op, call->opts.dtype) : s;
}

static tdm_status check_and_run(tdm_collective_call *call, const tdm_collective_options *opts)
{
    tdm_status s = tdm_collective_check(call, opts);
    return s == TDM_OK ? tdm_collective_run(call) : s;
}

tdm_status tdm_all_reduce(tdm_reduce_op op, const tdm_buffer_view *values, size_t count,
                          const tdm_collective_options *opts)
{
    tdm_collective_call call = {.func = "tdm_all_reduce",
                                .op = op,
                                .values = values,
                                .count = count,
                                .dsts = values,
                                .dst_count = count};
    return check_and_run(&call, opts);
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
    tdm_collective_call call = {.func = "tdm_reduce_to",
                                .op = op,
                                .values = values,
                                .count = count,
                                .dsts = dsts,
                                .dst_count = dst_count};
    return check_and_run(&call, opts);
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
