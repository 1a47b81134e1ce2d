/* Cross-device operations of a strategy (TensorFlow's CrossDeviceOps): reduce_to,
 * batch_reduce_to and broadcast, over the collectives. */
#include <stdlib.h>

#include "distribute/cross_device.h"
#include "base/error.h"

tdm_status xd_check_op(tdm_reduce_op op, const char *func)
{
    if (op > TDM_REDUCE_MIN)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown reduce op %d", func, (int)op);
    return TDM_OK;
}

/* A float32 distributed value whose components have one element count. */
static tdm_status check_value(const tdm_value *v, const char *func)
{
    TDM_CHECK_ARG(v, func);
    for (size_t i = 0; i < v->count; i++) {
        if (v->components[i]->dtype != TDM_F32)
            return tdm_fail(TDM_ERR_UNSUPPORTED,
                            "%s: cross-device reductions take f32 values (use "
                            "tdm_strategy_reduce for i32)",
                            func);
        if (v->components[i]->count != v->components[0]->count)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: components 0 and %zu have %zu and %zu elements", func, i,
                            v->components[0]->count, v->components[i]->count);
    }
    return TDM_OK;
}

void xd_destroy_tensors(tdm_tensor **t, size_t n)
{
    for (size_t i = 0; t && i < n; i++)
        tdm_tensor_destroy(t[i]);
    free(t);
}

/* n tensors like `like`, one on each device (distinct devices required). */
static tdm_status make_tensors(tdm_device *const *devs, size_t n, const tdm_tensor *like,
                               const char *func, tdm_tensor ***out)
{
    tdm_tensor **t = calloc(n, sizeof *t);
    if (!t)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < n && s == TDM_OK; i++) {
        for (size_t j = 0; j < i && s == TDM_OK; j++)
            if (devs[j] == devs[i])
                s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: destination %s is listed twice",
                             func, devs[i]->desc.id);
        if (s == TDM_OK && !devs[i])
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: destination %zu is NULL", func, i);
        if (s == TDM_OK)
            s = tdm_tensor_create_like(devs[i], like, &t[i]);
    }
    if (s != TDM_OK) {
        xd_destroy_tensors(t, n);
        return s;
    }
    *out = t;
    return TDM_OK;
}

tdm_status xd_mirrored(tdm_tensor **t, size_t n, const char *func, tdm_value **out)
{
    tdm_status s = tdm_value_create(TDM_VALUE_MIRRORED, t, n, out);
    if (s != TDM_OK) {
        xd_destroy_tensors(t, n);
        return tdm_fail_context(s, "%s", func);
    }
    free(t);
    return TDM_OK;
}

tdm_status xd_views(tdm_tensor *const *t, size_t n, const char *func, tdm_buffer_view **out)
{
    *out = malloc((n ? n : 1) * sizeof **out);
    if (!*out)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t i = 0; i < n; i++)
        (*out)[i] = tdm_tensor_view(t[i]);
    return TDM_OK;
}

/* The destination devices: the value's own for NULL; an empty set is an error. */
static tdm_status resolve_dests(const tdm_value *v, tdm_device *const *dests, size_t n,
                                const char *func, tdm_device ***out, size_t *count)
{
    if (dests && n == 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the destination set is empty; pass NULL for the value's own devices",
                        func);
    if (!dests && n)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: 'dests' is NULL with dest_count %zu",
                        func, n);
    *count = dests ? n : v->count;
    *out = malloc(*count * sizeof **out);
    if (!*out)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t i = 0; i < *count; i++)
        (*out)[i] = dests ? dests[i] : v->components[i]->device;
    return TDM_OK;
}

/* Reduces v onto fresh tensors on devs (no argument checks). */
tdm_status xd_reduce_onto(tdm_strategy *s, tdm_reduce_op op, const tdm_value *v,
                          tdm_device *const *devs, size_t n, const char *func, tdm_tensor ***out)
{
    tdm_status st = make_tensors(devs, n, v->components[0], func, out);
    if (st != TDM_OK || v->components[0]->count == 0)
        return st;
    tdm_buffer_view *values = NULL, *dsts = NULL;
    st = xd_views(v->components, v->count, func, &values);
    if (st == TDM_OK)
        st = xd_views(*out, n, func, &dsts);
    tdm_collective_options o = tdm_strategy_collective_options(s);
    if (o.reduce_on >= (int)v->count)
        o.reduce_on = -1;
    if (st == TDM_OK && (st = tdm_reduce_to(op, values, v->count, dsts, n, &o)) != TDM_OK)
        tdm_fail_context(st, "%s", func);
    free(values);
    free(dsts);
    if (st != TDM_OK)
        xd_destroy_tensors(*out, n);
    return st;
}

/* A plain value reduced over N replicas (TF's reduce_non_distributed_value): it is
 * the same on every replica, so only SUM with N > 1 changes it, and that is an error. */
tdm_status xd_check_plain(const tdm_strategy *s, tdm_reduce_op op, const tdm_value *v,
                          const char *func)
{
    if (v->kind == TDM_VALUE_PLAIN && op == TDM_REDUCE_SUM && s->replica_count > 1)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: SUM of a plain value over %zu replicas would count it %zu times; "
                        "pass a per-replica value, or reduce with MEAN",
                        func, s->replica_count, s->replica_count);
    return TDM_OK;
}

tdm_status tdm_strategy_reduce_to(tdm_strategy *s, tdm_reduce_op op, const tdm_value *value,
                                  tdm_device *const *dests, size_t dest_count, tdm_value **out)
{
    static const char func[] = "tdm_strategy_reduce_to";
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    tdm_status st = tdm_require_cross_replica(s, func);
    if (st == TDM_OK)
        st = xd_check_op(op, func);
    if (st == TDM_OK)
        st = check_value(value, func);
    if (st == TDM_OK)
        st = xd_check_plain(s, op, value, func);
    tdm_device **devs = NULL;
    size_t n = 0;
    if (st == TDM_OK)
        st = resolve_dests(value, dests, dest_count, func, &devs, &n);
    tdm_tensor **t = NULL;
    if (st == TDM_OK)
        st = xd_reduce_onto(s, op, value, devs, n, func, &t);
    free(devs);
    return st == TDM_OK ? xd_mirrored(t, n, func, out) : st;
}

tdm_status tdm_strategy_broadcast(tdm_strategy *s, const tdm_tensor *t,
                                  tdm_device *const *dests, size_t dest_count, tdm_value **out)
{
    static const char func[] = "tdm_strategy_broadcast";
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(t, func);
    tdm_status st = tdm_require_cross_replica(s, func);
    if (st != TDM_OK)
        return st;
    if (dests && dest_count == 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: the destination set is empty", func);
    tdm_device *const *devs = dests ? dests : s->devices;
    size_t n = dests ? dest_count : s->replica_count;
    tdm_tensor **copies = NULL;
    st = make_tensors(devs, n, t, func, &copies);
    for (size_t i = 0; i < n && st == TDM_OK; i++)
        st = tdm_tensor_copy(copies[i], t);
    if (st != TDM_OK) {
        xd_destroy_tensors(copies, n);
        return tdm_fail_context(st, "%s", func);
    }
    return xd_mirrored(copies, n, func, out);
}
