/* Argument checks of the collectives: each failure names the argument. */
#include <stdint.h>
#include <stdio.h>

#include "device/memory/buffer_checks.h"
#include "collective/collective_impl.h"
#include "base/error.h"

#define INVALID TDM_ERR_INVALID_ARGUMENT

tdm_status coll_check_op(const char *func, tdm_reduce_op op)
{
    if ((unsigned)op > TDM_REDUCE_MIN)
        return tdm_fail(INVALID, "%s: argument 'op' is %d, not a tdm_reduce_op", func, (int)op);
    return TDM_OK;
}

/* A float32 tensor the kernels can index: 4-byte aligned, under 2^32 elements. */
static tdm_status check_tensor(const char *func, const char *what, const tdm_buffer_view *v)
{
    tdm_status s = tdm_check_view(v, func, what);
    if (s != TDM_OK)
        return s;
    if (v->size % 4 || v->offset % 4)
        return tdm_fail(INVALID,
                        "%s: %s is not float32: offset %zu and size %zu must each "
                        "be a multiple of 4 bytes",
                        func, what, v->offset, v->size);
    if (v->size / 4 > UINT32_MAX)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: %s holds %zu elements, more than kernels "
                        "index (2^32 - 1)",
                        func, what, v->size / 4);
    return TDM_OK;
}

static tdm_status check_each(const char *func, const char *name, const tdm_buffer_view *views,
                             size_t count, size_t size)
{
    char what[48];
    for (size_t i = 0; i < count; i++) {
        snprintf(what, sizeof what, "%s[%zu]", name, i);
        tdm_status s = check_tensor(func, what, &views[i]);
        if (s != TDM_OK)
            return s;
        if (views[i].size != size)
            return tdm_fail(INVALID, "%s: %s is %zu bytes, %s[0] %zu: sizes must match", func, what,
                            views[i].size, name, size);
    }
    return TDM_OK;
}

tdm_status coll_check_values(const char *func, const char *name, const tdm_buffer_view *values,
                             size_t count)
{
    if (!values)
        return tdm_fail(INVALID, "%s: argument '%s' is NULL", func, name);
    if (count == 0)
        return tdm_fail(INVALID, "%s: argument 'count' is 0: no values to reduce", func);
    tdm_status s = check_each(func, name, values, count, values[0].buffer ? values[0].size : 0);
    for (size_t i = 0; i < count && s == TDM_OK; i++)
        for (size_t j = 0; j < i; j++)
            if (coll_dev(&values[i]) == coll_dev(&values[j]))
                return tdm_fail(INVALID,
                                "%s: %s[%zu] and %s[%zu] are both on %s: one value "
                                "per device",
                                func, name, j, name, i, coll_dev(&values[i])->desc.id);
    return s;
}

tdm_status coll_check_dsts(const char *func, const tdm_buffer_view *dsts, size_t dst_count,
                           size_t size)
{
    if (!dsts)
        return tdm_fail(INVALID, "%s: argument 'dsts' is NULL", func);
    if (dst_count == 0)
        return tdm_fail(INVALID, "%s: argument 'dst_count' is 0: an empty destination set", func);
    return check_each(func, "dsts", dsts, dst_count, size);
}

tdm_status coll_check_options(const char *func, const tdm_collective_options *opts, size_t count,
                              tdm_collective_options *out)
{
    *out = (tdm_collective_options)TDM_COLLECTIVE_OPTIONS_INIT;
    if (!opts)
        return TDM_OK;
    if (opts->size != sizeof *opts)
        return tdm_fail(INVALID,
                        "%s: opts->size is %zu, expected %zu "
                        "(use TDM_COLLECTIVE_OPTIONS_INIT)",
                        func, opts->size, sizeof *opts);
    if ((unsigned)opts->algorithm > TDM_COLLECTIVE_HOST)
        return tdm_fail(INVALID, "%s: opts->algorithm is %d, not a tdm_collective_algorithm", func,
                        (int)opts->algorithm);
    if (opts->reduce_on < -1 || (opts->reduce_on >= 0 && (size_t)opts->reduce_on >= count))
        return tdm_fail(INVALID,
                        "%s: opts->reduce_on is %d, expected -1 or a value index "
                        "below %zu",
                        func, opts->reduce_on, count);
    if (opts->dtype != TDM_F32 && opts->dtype != TDM_F16)
        return tdm_fail(INVALID, "%s: opts->dtype is %d; collectives reduce TDM_F32 or TDM_F16",
                        func, (int)opts->dtype);
    *out = *opts;
    return TDM_OK;
}

tdm_status tdm_collective_check_dtype(const char *func, tdm_reduce_op op, tdm_dtype dtype)
{
    if (dtype == TDM_F16 && (op == TDM_REDUCE_MAX || op == TDM_REDUCE_MIN))
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: a float16 reduction sums (SUM or MEAN); "
                        "MAX and MIN reduce float32 values",
                        func);
    return TDM_OK;
}
