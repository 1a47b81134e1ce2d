/* A replica context as its function and the module read it: which replica, on which
 * device, with which arguments, and the result it hands back. */
#include "base/error.h"
#include "distribute/strategy_impl.h"

size_t tdm_replica_id(const tdm_replica_context *rc)
{
    return rc ? rc->strategy->first_replica + rc->id : 0;
}

size_t tdm_replica_local_id(const tdm_replica_context *rc)
{
    return rc ? rc->id : 0;
}

size_t tdm_replica_num_replicas(const tdm_replica_context *rc)
{
    return rc ? rc->strategy->global_replicas : 0;
}

tdm_device *tdm_replica_device(const tdm_replica_context *rc)
{
    return rc ? rc->strategy->devices[rc->id] : NULL;
}

tdm_strategy *tdm_replica_strategy(const tdm_replica_context *rc)
{
    return rc ? rc->strategy : NULL;
}

tdm_tensor *tdm_replica_arg(const tdm_replica_context *rc, size_t i)
{
    return rc && i < rc->arg_count ? rc->args[i] : NULL;
}

tdm_status tdm_replica_set_result(tdm_replica_context *rc, tdm_tensor *t)
{
    TDM_CHECK_ARG(rc, "tdm_replica_set_result");
    TDM_CHECK_ARG(t, "tdm_replica_set_result");
    if (t->device != tdm_replica_device(rc))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_replica_set_result: the tensor is on %s, replica %zu runs on %s",
                        t->device->desc.id, rc->id, tdm_replica_device(rc)->desc.id);
    tdm_tensor_destroy(rc->result);
    rc->result = t;
    return TDM_OK;
}
