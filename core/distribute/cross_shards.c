/* All-gather and reduce-scatter in cross-replica mode: a value of one component per
 * replica (on the strategy's devices, in replica order) in, fresh tensors out, through
 * the engine's plans with the strategy's collective options. */
#include <stdlib.h>

#include "base/error.h"
#include "collective/collectives.h"
#include "distribute/cross_device.h"
#include "distribute/variable_access.h"

/* The value's components, one per replica on its device, f32 or f16, of one count. */
static tdm_status check_value(const tdm_strategy *s, const tdm_value *v, const char *func)
{
    TDM_CHECK_ARG(v, func);
    size_t n = tdm_value_count(v), r = s->replica_count;
    if (n != r)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the value has %zu components; the strategy has %zu replicas, and "
                        "each contributes one",
                        func, n, r);
    const tdm_tensor *first = tdm_value_component(v, 0);
    for (size_t i = 0; i < r; i++) {
        const tdm_tensor *t = tdm_value_component(v, i);
        if (t->device != s->devices[i])
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: component %zu is on %s, replica %zu's device is %s", func, i,
                            t->device->desc.id, i, s->devices[i]->desc.id);
        if ((t->dtype != TDM_F32 && t->dtype != TDM_F16) || t->dtype != first->dtype ||
            tdm_tensor_count(t) != tdm_tensor_count(first))
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: component %zu is %zu elements of %s, component 0 %zu of %s: "
                            "the components must be f32 or f16 of one dtype and count",
                            func, i, tdm_tensor_count(t), tdm_dtype_name(t->dtype),
                            tdm_tensor_count(first), tdm_dtype_name(first->dtype));
    }
    return TDM_OK;
}

/* Flat output tensors of `count` elements, one per replica. */
static tdm_status make_outputs(tdm_strategy *s, tdm_dtype dtype, size_t count, const char *func,
                               tdm_tensor ***out)
{
    size_t r = s->replica_count;
    tdm_tensor **t = calloc(r, sizeof *t);
    if (!t)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    tdm_shape shape = TDM_SHAPE(count);
    tdm_status st = TDM_OK;
    for (size_t i = 0; i < r && st == TDM_OK; i++)
        st = tdm_tensor_create(s->devices[i], dtype, &shape, &t[i]);
    if (st != TDM_OK) {
        xd_destroy_tensors(t, r);
        return tdm_fail_context(st, "%s", func);
    }
    *out = t;
    return TDM_OK;
}

static tdm_status run(tdm_strategy *s, int gather, tdm_reduce_op op, const tdm_value *value,
                      const char *func, tdm_value **out)
{
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    tdm_status st = tdm_require_cross_replica(s, func);
    if (st == TDM_OK && !gather)
        st = xd_check_op(op, func);
    if (st == TDM_OK)
        st = check_value(s, value, func);
    if (st != TDM_OK)
        return st;
    /* r: this process's replicas; g: the job's (every process's, multi-worker) */
    size_t r = s->replica_count, g = s->global_replicas;
    size_t n = tdm_tensor_count(tdm_value_component(value, 0));
    if (!gather && n % g)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: components of %zu elements do not split into %zu equal shards: "
                        "pad them to a multiple of the replica count",
                        func, n, g);
    tdm_dtype dtype = tdm_value_component(value, 0)->dtype;
    tdm_tensor **in = malloc(r * sizeof *in), **t = NULL;
    tdm_buffer_view *inputs = NULL, *outputs = NULL;
    if (!in)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t i = 0; i < r; i++)
        in[i] = tdm_value_component(value, i);
    st = make_outputs(s, dtype, gather ? n * g : n / g, func, &t);
    if (st == TDM_OK)
        st = xd_views(in, r, func, &inputs);
    if (st == TDM_OK)
        st = xd_views(t, r, func, &outputs);
    tdm_collective_options o = tdm_strategy_collective_options(s);
    o.dtype = dtype;
    tdm_collective_call call = {.kind = gather ? TDM_COLL_ALL_GATHER : TDM_COLL_REDUCE_SCATTER,
                                .func = func,
                                .op = op,
                                .inputs = inputs,
                                .outputs = outputs,
                                .count = r};
    if (st == TDM_OK)
        st = tdm_collective(&call, &o);
    free(in);
    free(inputs);
    free(outputs);
    if (st != TDM_OK) {
        if (t)
            xd_destroy_tensors(t, r);
        return st;
    }
    if (gather)
        return xd_mirrored(t, r, func, out);
    st = tdm_value_create(TDM_VALUE_PER_REPLICA, t, r, out);
    if (st != TDM_OK)
        xd_destroy_tensors(t, r);
    else
        free(t);
    return st;
}

tdm_status tdm_strategy_all_gather(tdm_strategy *s, const tdm_value *value, tdm_value **out)
{
    return run(s, 1, TDM_REDUCE_SUM, value, "tdm_strategy_all_gather", out);
}

tdm_status tdm_strategy_reduce_scatter(tdm_strategy *s, tdm_reduce_op op, const tdm_value *value,
                                       tdm_value **out)
{
    return run(s, 0, op, value, "tdm_strategy_reduce_scatter", out);
}
