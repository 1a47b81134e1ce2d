/* REDUCE, the kind behind tdm_all_reduce and tdm_reduce_to: its checks, and its run
 * with the events that order the plan's in-place accesses. */
#include "collective/collective_impl.h"
#include "base/error.h"

static int across_ranks(const tdm_ranks *ranks)
{
    return ranks && ranks->count > 1;
}

/* REDUCE: every output receives op over the inputs. */
tdm_status coll_reduce_run(const tdm_collective_call *call)
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

tdm_status coll_reduce_check(tdm_collective_call *call, const tdm_collective_options *opts)
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
