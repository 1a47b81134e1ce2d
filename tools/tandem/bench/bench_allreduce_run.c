/* tandem bench allreduce's runs of the collective: the timed loop every replica runs,
 * and the check of one collective of known data (small integers, so that every op's
 * result is exact), each replica's result against the expected. */
#include <math.h>
#include <stdlib.h>

#include "bench_allreduce.h"
#include "bench_clock.h"

/* Each replica calls the all-reduce `calls` times back to back, then waits for its
 * device: a run's time covers the collectives' completion, not only their issue. */
static tdm_status replica_loop(tdm_replica_context *rc, void *user)
{
    ar_bench *b = user;
    size_t r = tdm_replica_local_id(rc);
    tdm_tensor *t = b->slice[r], *part = b->part[r];
    tdm_status s = TDM_OK;
    for (unsigned k = 0; k < b->calls && s == TDM_OK; k++)
        switch (b->kind) {
        case HOST_ALL_GATHER: s = tdm_replica_all_gather(rc, part, t); break;
        case HOST_REDUCE_SCATTER: s = tdm_replica_reduce_scatter(rc, b->op, t, part); break;
        case HOST_REDUCE: s = tdm_replica_reduce(rc, b->op, t, NULL, ROOT); break;
        case HOST_BROADCAST: s = tdm_replica_broadcast(rc, t, NULL, ROOT); break;
        case HOST_ALL_REDUCE: s = tdm_replica_all_reduce(rc, b->op, t); break;
        }
    return s == TDM_OK ? tdm_device_finish(tdm_replica_device(rc)) : s;
}

tdm_status ar_timed_run(tdm_strategy *st, ar_bench *b, unsigned calls, double *seconds)
{
    b->calls = calls;
    double t0 = bench_seconds();
    tdm_status s = tdm_strategy_run(st, replica_loop, b, NULL, 0, NULL);
    *seconds = bench_seconds() - t0;
    return s;
}

/* Small integers, so that every op's result is exact and known. */
static float pattern(size_t replica, size_t i)
{
    return (float)((int)((i * 7 + replica * 3) % 17) - 8);
}

static float expected(tdm_reduce_op op, size_t n, size_t i)
{
    float acc = pattern(0, i);
    for (size_t r = 1; r < n; r++) {
        float x = pattern(r, i);
        acc = op == TDM_REDUCE_MAX ? fmaxf(acc, x) : op == TDM_REDUCE_MIN ? fminf(acc, x) : acc + x;
    }
    return op == TDM_REDUCE_MEAN ? acc * (float)(1.0 / (double)n) : acc;
}

/* Values as floats, written to or read from t (count elements); f16 tensors
 * convert on the device through an f32 tensor. */
static tdm_status move_floats(ar_bench *b, tdm_tensor *t, float *host, size_t count, int write)
{
    size_t bytes = count * sizeof *host;
    if (b->dtype == TDM_F32)
        return write ? tdm_tensor_write(t, host, bytes) : tdm_tensor_read(t, host, bytes);
    tdm_tensor *wide = NULL;
    tdm_status s = tdm_tensor_create(tdm_tensor_device(t), TDM_F32, &TDM_SHAPE(count), &wide);
    if (s == TDM_OK && write)
        s = tdm_tensor_write(wide, host, bytes);
    if (s == TDM_OK)
        s = write ? tdm_op_cast(t, wide) : tdm_op_cast(wide, t);
    if (s == TDM_OK && !write)
        s = tdm_tensor_read(wide, host, bytes);
    tdm_tensor_destroy(wide);
    return s;
}

/* Whether got is the expected value: exactly, but for an f16 mean within its one
 * rounding to f16 (2^-11 relative). */
static int right(const ar_bench *b, float got, float want)
{
    if (b->dtype == TDM_F16 && b->op == TDM_REDUCE_MEAN)
        return fabsf(got - want) <= fabsf(want) * 0x1p-11f;
    return got == want;
}

/* Element i of replica r's result: the all-reduce's fold, the gather's replica
 * i / part, the scatter's fold of the replica's shard; the reduce's fold at the root,
 * elsewhere the replica's own value; the broadcast's root's value. */
static float result_at(const ar_bench *b, size_t r, size_t part, size_t i)
{
    if (b->kind == HOST_ALL_GATHER)
        return pattern(i / part, i % part);
    if (b->kind == HOST_BROADCAST)
        return pattern(ROOT, i);
    if (b->kind == HOST_REDUCE && b->first + r != ROOT)
        return pattern(b->first + r, i);
    return expected(b->op, b->total,
                    b->kind == HOST_REDUCE_SCATTER ? (b->first + r) * part + i : i);
}

tdm_status ar_check(tdm_strategy *st, ar_bench *b, size_t count, size_t *wrong)
{
    float *host = malloc(count * sizeof *host);
    if (!host)
        return TDM_ERR_OUT_OF_MEMORY;
    size_t part = count / b->total;
    int gather = b->kind == HOST_ALL_GATHER, scatter = b->kind == HOST_REDUCE_SCATTER;
    tdm_status s = TDM_OK;
    for (size_t r = 0; r < b->n && s == TDM_OK; r++) {
        for (size_t i = 0; i < count; i++)
            host[i] = pattern(b->first + r, i);
        s = move_floats(b, gather ? b->part[r] : b->slice[r], host, gather ? part : count, 1);
    }
    double unused;
    if (s == TDM_OK)
        s = ar_timed_run(st, b, 1, &unused);
    *wrong = 0;
    size_t got = scatter ? part : count;
    for (size_t r = 0; r < b->n && s == TDM_OK; r++) {
        s = move_floats(b, scatter ? b->part[r] : b->slice[r], host, got, 0);
        for (size_t i = 0; s == TDM_OK && i < got; i++)
            *wrong += !right(b, host[i], result_at(b, r, part, i));
    }
    free(host);
    return s;
}
