/* All-gather and reduce-scatter in replica context: argument checks against the
 * replica's tensors, then the asynchronous machinery of replica_collective.c, which
 * meets every replica's k-th start and issues the engine's plan (collectives.h). */
#include "base/error.h"
#include "distribute/run_state.h"

/* output's element count must be `times` times value's (all-gather), or value's
 * `times` times output's (reduce-scatter: `whole_is_value`). */
static tdm_status check_output(tdm_replica_context *rc, const tdm_tensor *value,
                               const tdm_tensor *output, int whole_is_value, const char *func)
{
    if (output->dtype != value->dtype || output->device != value->device)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the output is %s on %s, the value %s on %s: the output must have "
                        "the value's dtype and be on the replica's device",
                        func, tdm_dtype_name(output->dtype), output->device->desc.id,
                        tdm_dtype_name(value->dtype), value->device->desc.id);
    size_t r = tdm_replica_num_replicas(rc);
    size_t whole = tdm_tensor_count(whole_is_value ? value : output);
    size_t part = tdm_tensor_count(whole_is_value ? output : value);
    if (whole != part * r)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the %s holds %zu elements and the %s %zu; with %zu replicas the "
                        "first must hold exactly %zu (pad the tensor to a multiple of the "
                        "replica count)",
                        func, whole_is_value ? "value" : "output", whole,
                        whole_is_value ? "output" : "value", part, r, part * r);
    if (value->dtype == TDM_F16 && part % 2)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: an f16 shard of %zu elements; f16 collectives move pairs of "
                        "halves, so each replica's part must be even",
                        func, part);
    return TDM_OK;
}

static tdm_status start(tdm_replica_context *rc, tdm_collective_kind kind, tdm_reduce_op op,
                        tdm_tensor *value, tdm_tensor *output, tdm_pending **out, const char *func)
{
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(rc, func);
    TDM_CHECK_ARG(value, func);
    TDM_CHECK_ARG(output, func);
    tdm_status s = check_output(rc, value, output, kind == TDM_COLL_REDUCE_SCATTER, func);
    if (s != TDM_OK)
        return s;
    run_collective_args a = {
        .kind = kind, .func = func, .op = op, .value = value, .output = output};
    return run_collective_start(rc, &a, out);
}

tdm_status tdm_replica_all_gather_start(tdm_replica_context *rc, tdm_tensor *value,
                                        tdm_tensor *output, tdm_pending **out)
{
    return start(rc, TDM_COLL_ALL_GATHER, TDM_REDUCE_SUM, value, output, out,
                 "tdm_replica_all_gather");
}

tdm_status tdm_replica_reduce_scatter_start(tdm_replica_context *rc, tdm_reduce_op op,
                                            tdm_tensor *value, tdm_tensor *output,
                                            tdm_pending **out)
{
    return start(rc, TDM_COLL_REDUCE_SCATTER, op, value, output, out, "tdm_replica_reduce_scatter");
}

tdm_status tdm_replica_all_gather(tdm_replica_context *rc, tdm_tensor *value, tdm_tensor *output)
{
    tdm_pending *p;
    tdm_status s = tdm_replica_all_gather_start(rc, value, output, &p);
    return s == TDM_OK ? tdm_pending_wait(p) : s;
}

tdm_status tdm_replica_reduce_scatter(tdm_replica_context *rc, tdm_reduce_op op, tdm_tensor *value,
                                      tdm_tensor *output)
{
    tdm_pending *p;
    tdm_status s = tdm_replica_reduce_scatter_start(rc, op, value, output, &p);
    return s == TDM_OK ? tdm_pending_wait(p) : s;
}
