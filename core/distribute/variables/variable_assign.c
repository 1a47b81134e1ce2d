/* tdm_variable_assign and tdm_variable_assign_host: assign, assign_add and
 * assign_sub with the rules of the calling thread's mode (update function, replica
 * function, cross-replica) for mirrored and sync-on-read variables. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "tandem/ops.h"
#include "distribute/variables/variable_impl.h"

/* What is written: one tensor on any device, one tensor per copy on that copy's
 * device (local), or host floats. */
typedef struct source {
    const tdm_tensor *tensor;
    tdm_tensor *const *local;
    const float *host;
} source;

/* One call; in a replica function every replica's is gathered. */
typedef struct request {
    const char *func;
    tdm_variable *var;
    tdm_assign_op op;
    int host; /* assign_host: src.host holds the data */
    source src;
} request;

/* copy i = x, += x or -= x, x brought to the copy's device first if need be. */
static tdm_status write_copy(const request *r, size_t i, const source *src)
{
    tdm_tensor *c = r->var->copies[i];
    const tdm_tensor *x = src->local ? src->local[i] : src->tensor;
    size_t bytes = r->var->count * sizeof(float);
    if (bytes == 0)
        return TDM_OK;
    if (r->op == TDM_ASSIGN)
        return x ? tdm_tensor_copy(c, x) : tdm_tensor_write(c, src->host, bytes);
    tdm_tensor *tmp = NULL;
    tdm_status s = TDM_OK;
    if (!x || x->device != c->device) {
        s = tdm_tensor_create_like(c->device, c, &tmp);
        if (s == TDM_OK)
            s = x ? tdm_tensor_copy(tmp, x) : tdm_tensor_write(tmp, src->host, bytes);
        x = tmp;
    }
    if (s == TDM_OK)
        s = r->op == TDM_ASSIGN_ADD ? tdm_op_add(c, c, x) : tdm_op_sub(c, c, x);
    tdm_tensor_destroy(tmp);
    return s;
}

static tdm_status write_one(const request *r, size_t i, const source *src)
{
    tdm_status s = write_copy(r, i, src);
    return s == TDM_OK
               ? s
               : tdm_fail_context(s, "%s: variable '%s', copy %zu", r->func, r->var->name, i);
}

/* Whether t is one of the variable's copies: adding it to every copy in turn would
 * read it after it changed. */
static int is_copy(const tdm_variable *var, const tdm_tensor *t)
{
    for (size_t i = 0; t && i < var->copy_count; i++)
        if (var->copies[i] == t)
            return 1;
    return 0;
}

/* Writes src to every copy. */
static tdm_status write_all(const request *r, const source *src)
{
    source snap = *src;
    tdm_tensor *tmp = NULL;
    tdm_status s = TDM_OK;
    if (r->op != TDM_ASSIGN && is_copy(r->var, src->tensor) && r->var->count) {
        s = tdm_tensor_create_like(src->tensor->device, src->tensor, &tmp);
        if (s == TDM_OK)
            s = tdm_tensor_copy(tmp, src->tensor);
        snap.tensor = tmp;
    }
    for (size_t i = 0; i < r->var->copy_count && s == TDM_OK; i++)
        s = write_one(r, i, &snap);
    tdm_tensor_destroy(tmp);
    return s;
}

/* ---- update function: the copy being updated only ---- */

static tdm_status write_in_update(const request *r)
{
    const tdm_update_context *uc = tdm_mode()->update;
    if (uc->var != r->var)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: %s of variable '%s' in the update function of variable '%s': an "
                        "update function writes only the copy it updates; update '%s' with its "
                        "own tdm_strategy_update, or assign it in cross-replica context",
                        r->func, tdm_assign_op_name(r->op), r->var->name, uc->var->name,
                        r->var->name);
    return write_one(r, uc->index, &r->src);
}

/* ---- cross-replica ---- */

/* A sync-on-read SUM variable's copies sum to its value: each gets x / N, divided
 * per element on the host so that the result is exactly x / N in float. */
static tdm_status assign_divided(const request *r)
{
    size_t bytes = r->var->count * sizeof(float);
    float *h = malloc(bytes ? bytes : 1);
    if (!h)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", r->func);
    tdm_status s = TDM_OK;
    if (r->host && bytes)
        memcpy(h, r->src.host, bytes);
    else if (!r->host)
        s = tdm_tensor_read(r->src.tensor, h, bytes);
    float n = (float)r->var->copy_count;
    for (size_t e = 0; s == TDM_OK && e < r->var->count; e++)
        h[e] = h[e] / n;
    source divided = {.host = h};
    if (s == TDM_OK)
        s = write_all(r, &divided);
    free(h);
    return s;
}

static tdm_status write_sync_on_read(const request *r)
{
    tdm_variable *var = r->var;
    if (var->aggregation != TDM_AGG_SUM || !tdm_variable_distributed(var))
        return write_all(r, &r->src);
    if (r->op == TDM_ASSIGN)
        return assign_divided(r);
    return tdm_fail(TDM_ERR_INVALID_STATE,
                    "%s: %s of sync-on-read variable '%s' (aggregation SUM) in cross-replica "
                    "context: its value is the sum of its %zu copies, so adding to each copy "
                    "would add the value %zu times; call it in a replica function (each replica "
                    "changes its own copy) or assign the new total with tdm_variable_assign",
                    r->func, tdm_assign_op_name(r->op), var->name, var->copy_count,
                    var->copy_count);
}

static tdm_status write_cross_replica(const request *r)
{
    tdm_status s = tdm_require_cross_replica(r->var->strategy, r->func);
    if (s != TDM_OK)
        return s;
    if (r->var->sync == TDM_SYNC_ON_READ)
        return write_sync_on_read(r);
    s = write_all(r, &r->src);
    return s != TDM_OK ? s : tdm_variable_check_if_asked(r->var, r->func);
}

/* ---- replica function, mirrored: every replica makes the same call ---- */

static tdm_status mismatch(const request *a, size_t i, const request *b)
{
    return tdm_fail(TDM_ERR_INVALID_STATE,
                    "%s: replicas made different writes: replica 0 called %s(%s) on variable "
                    "'%s', replica %zu called %s(%s) on variable '%s'; every replica must make "
                    "the same call on a mirrored variable",
                    a->func, a->func, tdm_assign_op_name(a->op), a->var->name, i, b->func,
                    tdm_assign_op_name(b->op), b->var->name);
}

/* Host data is a plain value: the same on every replica, and not something to sum. */
static tdm_status check_plain(const request *const *reqs, size_t n)
{
    const request *r = reqs[0];
    const float *h0 = r->src.host;
    for (size_t i = 1; i < n; i++)
        for (size_t e = 0; e < r->var->count; e++)
            if (memcmp(&reqs[i]->src.host[e], &h0[e], sizeof(float)))
                return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                                "%s: replicas passed different host data for variable '%s': "
                                "element %zu is %a on replica 0, %a on replica %zu; host data "
                                "is a plain value that every replica must pass identically; "
                                "pass a device tensor to combine per-replica values",
                                r->func, r->var->name, e, (double)h0[e],
                                (double)reqs[i]->src.host[e], i);
    if (r->var->aggregation == TDM_AGG_SUM && n > 1)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s of host data (a plain value, the same on every replica) to "
                        "variable '%s' with aggregation SUM would count it %zu times; use MEAN "
                        "or ONLY_FIRST_REPLICA or assign in cross-replica context",
                        r->func, tdm_assign_op_name(r->op), r->var->name, n);
    return TDM_OK;
}

static tdm_status reduce_views(const request *const *reqs, size_t n, tdm_tensor *const *dsts)
{
    const tdm_variable *var = reqs[0]->var;
    tdm_buffer_view *v = malloc((n + var->copy_count) * sizeof *v);
    if (!v)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", reqs[0]->func);
    for (size_t i = 0; i < n; i++)
        v[i] = tdm_tensor_view(reqs[i]->src.tensor);
    for (size_t i = 0; i < var->copy_count; i++)
        v[n + i] = tdm_tensor_view(dsts[i]);
    tdm_collective_options o = tdm_strategy_collective_options(var->strategy);
    tdm_reduce_op op = var->aggregation == TDM_AGG_MEAN ? TDM_REDUCE_MEAN : TDM_REDUCE_SUM;
    tdm_status s = tdm_reduce_to(op, v, n, v + n, var->copy_count, &o);
    free(v);
    return s == TDM_OK ? s : tdm_fail_context(s, "%s: variable '%s'", reqs[0]->func, var->name);
}

/* SUM or MEAN of the replicas' tensors: reduced straight into the copies for an
 * assign that reads none of them, else into temporaries on the copies' devices
 * that are then assigned, added or subtracted. */
static tdm_status reduce_and_write(const request *const *reqs, size_t n)
{
    const request *r = reqs[0];
    tdm_variable *var = r->var;
    int direct = r->op == TDM_ASSIGN;
    for (size_t i = 0; i < n; i++)
        direct = direct && !is_copy(var, reqs[i]->src.tensor);
    if (direct)
        return reduce_views(reqs, n, var->copies);
    tdm_tensor **tmp = calloc(var->copy_count, sizeof *tmp);
    tdm_status s =
        tmp ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", r->func);
    for (size_t i = 0; s == TDM_OK && i < var->copy_count; i++)
        s = tdm_tensor_create_like(var->copies[i]->device, var->copies[i], &tmp[i]);
    if (s == TDM_OK)
        s = reduce_views(reqs, n, tmp);
    source local = {.local = tmp};
    if (s == TDM_OK)
        s = write_all(r, &local);
    for (size_t i = 0; tmp && i < var->copy_count; i++)
        tdm_tensor_destroy(tmp[i]);
    free(tmp);
    return s;
}

/* The merge step, once on the coordinating thread with every replica's request. */
static tdm_status merge_write(tdm_strategy *s, void *const *items, void *user_data, void **results)
{
    (void)user_data;
    (void)results;
    const request *const *reqs = (const request *const *)items;
    const request *r = reqs[0];
    size_t n = s->replica_count;
    for (size_t i = 1; i < n; i++)
        if (reqs[i]->var != r->var || reqs[i]->op != r->op || reqs[i]->host != r->host)
            return mismatch(r, i, reqs[i]);
    tdm_status st = r->host ? check_plain(reqs, n) : TDM_OK;
    if (st != TDM_OK || r->var->count == 0)
        return st;
    if (r->host || r->var->aggregation == TDM_AGG_ONLY_FIRST_REPLICA ||
        r->var->aggregation == TDM_AGG_NONE)
        st = write_all(r, &r->src); /* replica 0's value */
    else
        st = reduce_and_write(reqs, n);
    return st != TDM_OK ? st : tdm_variable_check_if_asked(r->var, r->func);
}

static tdm_status write_in_replica(request *r)
{
    tdm_replica_context *rc = tdm_mode()->replica;
    tdm_variable *var = r->var;
    tdm_device *dev = tdm_replica_device(rc);
    if (var->strategy != rc->strategy)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s' belongs to another strategy than this replica "
                        "function's; write it from its own strategy's replica functions",
                        r->func, var->name);
    if (!r->host && r->src.tensor->device != dev)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s': replica %zu passed a tensor on another device than "
                        "its own; in a replica function pass a tensor on the replica's device "
                        "(tdm_replica_device)",
                        r->func, var->name, rc->id);
    int local = tdm_variable_copy_index(var, dev);
    if (local < 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s' has no copy on replica %zu's device; write it in "
                        "cross-replica context",
                        r->func, var->name, rc->id);
    if (!tdm_variable_mirrored(var))
        return write_one(r, (size_t)local, &r->src); /* sync-on-read: its own copy */
    if (var->aggregation == TDM_AGG_NONE && tdm_variable_distributed(var))
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: %s of mirrored variable '%s' in replica %zu's function, but its "
                        "aggregation is NONE, so the replicas' values cannot be combined; give "
                        "the variable an aggregation (SUM, MEAN or ONLY_FIRST_REPLICA) or assign "
                        "in cross-replica context (e.g. a merge function)",
                        r->func, tdm_assign_op_name(r->op), var->name, rc->id);
    void *result = NULL;
    return tdm_replica_gather(rc, merge_write, NULL, r, &result, r->func);
}

/* ---- entry points ---- */

static tdm_status assign(request *r)
{
    if ((unsigned)r->op > TDM_ASSIGN_SUB)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: variable '%s': unknown assign op %d",
                        r->func, r->var->name, (int)r->op);
    const tdm_thread_mode *m = tdm_mode();
    tdm_status s = m->update    ? write_in_update(r)
                   : m->replica ? write_in_replica(r)
                                : write_cross_replica(r);
    tdm_variable_wrote(r->var, TDM_EVERY_COPY); /* a failed write may have written some */
    return s;
}

tdm_status tdm_variable_assign(tdm_variable *var, tdm_assign_op op, const tdm_tensor *value)
{
    static const char func[] = "tdm_variable_assign";
    TDM_CHECK_ARG(var, func);
    TDM_CHECK_ARG(value, func);
    if (var->dtype != TDM_F32)
        return tdm_variable_int64_only(var, func);
    tdm_shape shape = tdm_tensor_shape(value);
    if (tdm_tensor_dtype(value) != TDM_F32 || tdm_tensor_count(value) != var->count) {
        char want[96], got[96];
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s' has shape %s (%zu f32 elements); the value is an %s "
                        "tensor of shape %s (%zu elements); pass an f32 tensor of %zu elements",
                        func, var->name, tdm_shape_format(&var->shape, want, sizeof want),
                        var->count, tdm_dtype_name(tdm_tensor_dtype(value)),
                        tdm_shape_format(&shape, got, sizeof got), tdm_tensor_count(value),
                        var->count);
    }
    request r = {.func = func, .var = var, .op = op, .src = {.tensor = value}};
    return assign(&r);
}

tdm_status tdm_variable_assign_host(tdm_variable *var, tdm_assign_op op, const float *data,
                                    size_t size)
{
    static const char func[] = "tdm_variable_assign_host";
    TDM_CHECK_ARG(var, func);
    if (var->dtype != TDM_F32)
        return tdm_variable_int64_only(var, func);
    if (size != var->count * sizeof(float)) {
        char want[96];
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s' has shape %s (%zu f32 elements, %zu bytes); got %zu "
                        "bytes",
                        func, var->name, tdm_shape_format(&var->shape, want, sizeof want),
                        var->count, var->count * sizeof(float), size);
    }
    if (size)
        TDM_CHECK_ARG(data, func);
    request r = {.func = func, .var = var, .op = op, .host = 1, .src = {.host = data}};
    return assign(&r);
}
