/* Strategy.reduce: a distributed value to one tensor on replica 0's device.
 * Element-wise f32 reductions run on the devices (the collectives' replica-order
 * fold); reductions along an axis and of i32 values run on the host in double,
 * where the true element count along the axis is at hand for MEAN. */
#include <math.h>
#include <stdlib.h>

#include "distribute/cross_device.h"
#include "base/error.h"

static const char func[] = "tdm_strategy_reduce";

/* A component seen as [outer, len, inner] around the reduced axis. */
typedef struct axis_split {
    size_t outer, len, inner;
} axis_split;

static axis_split split_at(const tdm_tensor *t, int axis)
{
    axis_split a = {1, 1, t->count};
    if (axis == TDM_AXIS_NONE)
        return a;
    a.inner = 1;
    for (uint32_t d = 0; d < t->shape.rank; d++) {
        size_t *part = (int)d < axis ? &a.outer : (int)d == axis ? &a.len : &a.inner;
        *part *= t->shape.dims[d];
    }
    return a;
}

/* Every component has dimension `axis`, and all other dimensions agree. */
static tdm_status check_shapes(const tdm_value *v, int axis)
{
    char a[64], b[64];
    const tdm_shape *first = &v->components[0]->shape;
    for (size_t i = 0; i < v->count; i++) {
        const tdm_tensor *t = v->components[i];
        if (t->dtype != v->components[0]->dtype)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: components 0 and %zu differ in dtype",
                            func, i);
        if (axis != TDM_AXIS_NONE && axis >= (int)t->shape.rank)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: axis %d is past the rank %u of %s",
                            func, axis, t->shape.rank, tdm_shape_format(&t->shape, a, sizeof a));
        int same = t->shape.rank == first->rank;
        for (uint32_t d = 0; same && d < first->rank; d++)
            same = (int)d == axis || t->shape.dims[d] == first->dims[d];
        if (!same && axis == TDM_AXIS_NONE)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: with axis = TDM_AXIS_NONE the shapes must match, but replica 0 "
                            "has %s and replica %zu %s; pass the axis to reduce along (0 for a "
                            "batch)",
                            func, tdm_shape_format(first, a, sizeof a), i,
                            tdm_shape_format(&t->shape, b, sizeof b));
        if (!same)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: shapes %s and %s differ outside axis %d", func,
                            tdm_shape_format(first, a, sizeof a),
                            tdm_shape_format(&t->shape, b, sizeof b), axis);
    }
    return TDM_OK;
}

static double combine(tdm_reduce_op op, double acc, double x)
{
    if (op == TDM_REDUCE_SUM || op == TDM_REDUCE_MEAN)
        return acc + x;
    if (isnan(acc) || isnan(x))
        return NAN;
    return op == TDM_REDUCE_MAX ? (x > acc ? x : acc) : (x < acc ? x : acc);
}

/* Folds one component (read to the host) into acc along the axis. */
static tdm_status fold_component(tdm_reduce_op op, const tdm_tensor *t, int axis, double *acc)
{
    axis_split a = split_at(t, axis);
    void *host = malloc(t->count ? tdm_tensor_bytes(t) : 1);
    if (!host)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    tdm_status s = tdm_tensor_read(t, host, tdm_tensor_bytes(t));
    const float *f = host;
    const int32_t *n = host;
    for (size_t o = 0; s == TDM_OK && o < a.outer; o++)
        for (size_t l = 0; l < a.len; l++)
            for (size_t i = 0; i < a.inner; i++) {
                size_t at = (o * a.len + l) * a.inner + i;
                double x = t->dtype == TDM_F32 ? (double)f[at] : (double)n[at];
                acc[o * a.inner + i] = combine(op, acc[o * a.inner + i], x);
            }
    free(host);
    return s;
}

/* The output tensor: the axis dropped; f32 for f32 inputs and for MEAN. */
static tdm_status make_output(tdm_strategy *s, tdm_reduce_op op, const tdm_tensor *like,
                              int axis, tdm_tensor **out)
{
    tdm_shape shape = {0, {0}};
    for (uint32_t d = 0; d < like->shape.rank; d++)
        if ((int)d != axis)
            shape.dims[shape.rank++] = like->shape.dims[d];
    tdm_dtype dtype = like->dtype == TDM_F32 || op == TDM_REDUCE_MEAN ? TDM_F32 : TDM_I32;
    return tdm_tensor_create(s->devices[0], dtype, &shape, out);
}

static tdm_status write_output(tdm_tensor *out, const double *acc)
{
    void *host = malloc(out->count ? tdm_tensor_bytes(out) : 1);
    if (!host)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t i = 0; i < out->count; i++)
        if (out->dtype == TDM_F32)
            ((float *)host)[i] = (float)acc[i];
        else
            ((int32_t *)host)[i] = (int32_t)(int64_t)acc[i];
    tdm_status s = tdm_tensor_write(out, host, tdm_tensor_bytes(out));
    free(host);
    return s;
}

static tdm_status reduce_on_host(tdm_strategy *s, tdm_reduce_op op, const tdm_value *v, int axis,
                                 tdm_tensor **out)
{
    tdm_status st = make_output(s, op, v->components[0], axis, out);
    if (st != TDM_OK)
        return st;
    double start = op == TDM_REDUCE_MAX ? -INFINITY : op == TDM_REDUCE_MIN ? INFINITY : 0.0;
    double *acc = malloc(((*out)->count + 1) * sizeof *acc);
    size_t total = 0;
    for (size_t i = 0; acc && i < (*out)->count; i++)
        acc[i] = start;
    st = acc ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t i = 0; i < v->count && st == TDM_OK; i++) {
        st = fold_component(op, v->components[i], axis, acc);
        total += split_at(v->components[i], axis).len;
    }
    for (size_t i = 0; st == TDM_OK && op == TDM_REDUCE_MEAN && i < (*out)->count; i++)
        acc[i] /= (double)total; /* the true count along the axis: 0/0 is NaN */
    if (st == TDM_OK)
        st = write_output(*out, acc);
    free(acc);
    if (st != TDM_OK) {
        tdm_tensor_destroy(*out);
        *out = NULL;
    }
    return st;
}

tdm_status tdm_strategy_reduce(tdm_strategy *s, tdm_reduce_op op, const tdm_value *value,
                               int axis, tdm_tensor **out)
{
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(value, func);
    tdm_status st = tdm_require_cross_replica(s, func);
    if (st == TDM_OK)
        st = xd_check_op(op, func);
    if (st == TDM_OK && axis < TDM_AXIS_NONE)
        st = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: axis %d is negative", func, axis);
    if (st == TDM_OK)
        st = xd_check_plain(s, op, value, func);
    if (st == TDM_OK)
        st = check_shapes(value, axis);
    if (st != TDM_OK)
        return st;
    if (axis != TDM_AXIS_NONE || value->components[0]->dtype != TDM_F32)
        return reduce_on_host(s, op, value, axis, out);
    tdm_tensor **t = NULL;
    st = xd_reduce_onto(s, op, value, s->devices, 1, func, &t);
    if (st == TDM_OK)
        *out = t[0];
    free(t);
    return st;
}
