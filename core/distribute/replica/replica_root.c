/* Reduce to one replica and broadcast from one in replica context: argument checks
 * against the replica's tensors, then the asynchronous machinery of
 * replica_collective.c, which meets every replica's k-th start and issues the
 * engine's plan (collectives.h). */
#include "base/error.h"
#include "distribute/run_state.h"

/* root names one of the job's replicas; output, unless in place, matches value. */
static tdm_status check_root(tdm_replica_context *rc, const tdm_tensor *value,
                             const tdm_tensor *output, size_t root, const char *func)
{
    size_t replicas = tdm_replica_num_replicas(rc);
    if (root >= replicas)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: root is replica %zu, but the job has %zu replicas (0 to %zu)", func,
                        root, replicas, replicas - 1);
    if (output->dtype != value->dtype || output->device != value->device ||
        tdm_tensor_count(output) != tdm_tensor_count(value))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the output is %zu elements of %s on %s, the value %zu of %s on %s: "
                        "the output must be the value's size and dtype, on the replica's device",
                        func, tdm_tensor_count(output), tdm_dtype_name(output->dtype),
                        output->device->desc.id, tdm_tensor_count(value),
                        tdm_dtype_name(value->dtype), value->device->desc.id);
    return TDM_OK;
}

static tdm_status start(tdm_replica_context *rc, tdm_collective_kind kind, tdm_reduce_op op,
                        tdm_tensor *value, tdm_tensor *output, size_t root, tdm_pending **out,
                        const char *func)
{
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(rc, func);
    TDM_CHECK_ARG(value, func);
    tdm_status s = check_root(rc, value, output ? output : value, root, func);
    if (s != TDM_OK)
        return s;
    run_collective_args a = {
        .kind = kind, .func = func, .op = op, .value = value, .output = output, .root = root};
    return run_collective_start(rc, &a, out);
}

tdm_status tdm_replica_reduce_start(tdm_replica_context *rc, tdm_reduce_op op, tdm_tensor *value,
                                    tdm_tensor *output, size_t root, tdm_pending **out)
{
    return start(rc, TDM_COLL_ROOT_REDUCE, op, value, output, root, out, "tdm_replica_reduce");
}

tdm_status tdm_replica_broadcast_start(tdm_replica_context *rc, tdm_tensor *value,
                                       tdm_tensor *output, size_t root, tdm_pending **out)
{
    return start(rc, TDM_COLL_ROOT_BROADCAST, TDM_REDUCE_SUM, value, output, root, out,
                 "tdm_replica_broadcast");
}

tdm_status tdm_replica_reduce(tdm_replica_context *rc, tdm_reduce_op op, tdm_tensor *value,
                              tdm_tensor *output, size_t root)
{
    tdm_pending *p;
    tdm_status s = tdm_replica_reduce_start(rc, op, value, output, root, &p);
    return s == TDM_OK ? tdm_pending_wait(p) : s;
}

tdm_status tdm_replica_broadcast(tdm_replica_context *rc, tdm_tensor *value, tdm_tensor *output,
                                 size_t root)
{
    tdm_pending *p;
    tdm_status s = tdm_replica_broadcast_start(rc, value, output, root, &p);
    return s == TDM_OK ? tdm_pending_wait(p) : s;
}
