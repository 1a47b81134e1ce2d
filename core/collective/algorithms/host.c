/* HOST: the tensor is folded on the host in units, by the copy workers of the
 * values' devices in parallel. Each unit reads every value at its host address
 * where the backend gives one (CPU drivers, integrated GPUs: no copy) or through a
 * blocking read into pooled staging, folds in replica order with the same float
 * operations as the kernels (so the bits match every other plan), and writes every
 * destination the same way. Host accesses in place wait for the owner's ready
 * event first; blocking reads and writes are ordered by their queues. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "collective/collective_impl.h"
#include "collective/float_fold.h"
#include "device/memory/copy_worker.h"
#include "device/device_status.h"
#include "base/error.h"
#include "device/memory/host_staging.h"

/* Small enough that a unit's accumulator and input stay in cache (the staging
 * chunk's halves), and small enough beside the tensor that every worker takes some:
 * at least four units a value, none under 16 KiB. */
#define UNIT_BYTES ((size_t)1 << 20)
#define UNIT_LEAST ((size_t)16 << 10)

typedef struct host_plan {
    const coll_job *job;
    unsigned char **value_at, **dst_at; /* host addresses of the views, or NULL */
    int acc_in_dst;                     /* dsts[0] is values[0]: fold there in place */
    int pair_in_place; /* a float32 sum of two values, each its own destination, both
                          at host addresses: one pass over the pair */
    size_t unit_bytes, units;
    atomic_size_t next;
    tdm_mutex lock; /* guards the first failure */
    tdm_status status;
    char message[512];
} host_plan;

typedef struct host_job {
    tdm_job job; /* first: the worker hands back this pointer */
    host_plan *plan;
    tdm_worker *worker; /* NULL: runs on the calling thread */
} host_job;

static tdm_status read_into(const tdm_buffer_view *v, size_t offset, float *dst, size_t bytes)
{
    tdm_device *dev = coll_dev(v);
    return tdm_device_result(
        dev, dev->ops->read(v->buffer, v->buffer->impl, v->offset + offset, dst, bytes));
}

static tdm_status write_from(const tdm_buffer_view *v, size_t offset, const float *src,
                             size_t bytes)
{
    tdm_device *dev = coll_dev(v);
    return tdm_device_result(
        dev, dev->ops->write(v->buffer, v->buffer->impl, v->offset + offset, src, bytes));
}

static tdm_status unit(host_plan *p, size_t u, float *acc_slot, float *in_slot)
{
    const coll_job *job = p->job;
    size_t offset = u * p->unit_bytes, total = job->values[0].size;
    size_t bytes = total - offset < p->unit_bytes ? total - offset : p->unit_bytes, n = bytes / 4;
    float *acc = p->acc_in_dst ? (float *)(p->dst_at[0] + offset) : acc_slot;
    tdm_status s = TDM_OK;
    if (p->pair_in_place) {
        tdm_fold_sum_into_both(acc, (float *)(p->dst_at[1] + offset), n);
        return s;
    }
    if (!p->acc_in_dst) {
        if (p->value_at[0])
            memcpy(acc, p->value_at[0] + offset, bytes);
        else
            s = read_into(&job->values[0], offset, acc, bytes);
    }
    for (size_t j = 1; j < job->count && s == TDM_OK; j++) {
        const float *x = (const float *)(p->value_at[j] ? p->value_at[j] + offset : NULL);
        if (!x && (s = read_into(&job->values[j], offset, in_slot, bytes)) == TDM_OK)
            x = in_slot;
        if (s == TDM_OK)
            tdm_fold_floats(tdm_fold_op_of(job->op, job->dtype), acc, x, n, 0);
    }
    if (s == TDM_OK && job->op == TDM_REDUCE_MEAN) /* 1/count as coll_finalize rounds it */
        tdm_fold_scale(tdm_fold_op_of(job->op, job->dtype), acc, n,
                       (float)(1.0 / (double)job->count));
    for (size_t d = p->acc_in_dst ? 1 : 0; d < job->dst_count && s == TDM_OK; d++) {
        if (p->dst_at[d])
            memcpy(p->dst_at[d] + offset, acc, bytes);
        else
            s = write_from(&job->dsts[d], offset, acc, bytes);
    }
    return s;
}

static void record_failure(host_plan *p, tdm_status s)
{
    tdm_mutex_lock(&p->lock);
    if (p->status == TDM_OK) {
        p->status = s;
        snprintf(p->message, sizeof p->message, "%s", tdm_last_error());
    }
    tdm_mutex_unlock(&p->lock);
}

/* Takes units until none is left or one failed. */
static void run_units(tdm_job *job)
{
    host_plan *p = ((host_job *)job)->plan;
    tdm_context *ctx = coll_dev(&p->job->values[0])->ctx;
    unsigned char *chunk = tdm_staging_acquire(ctx); /* accumulator, then an input */
    if (!chunk) {
        record_failure(p, TDM_ERR_OUT_OF_MEMORY);
        return;
    }
    for (size_t u; (u = atomic_fetch_add(&p->next, 1)) < p->units;) {
        tdm_status s = unit(p, u, (float *)chunk, (float *)(chunk + UNIT_BYTES));
        if (s != TDM_OK) {
            record_failure(p, s);
            atomic_store(&p->next, p->units);
        }
    }
    tdm_staging_release(ctx, chunk);
}

/* Where the host will touch device memory in place, every earlier use must be done. */
static tdm_status host_ready(const coll_job *job, const unsigned char *at, tdm_device *dev)
{
    return at ? coll_order_host_ready(job->order, dev) : TDM_OK;
}

static tdm_status prepare(const coll_job *job, host_plan *p)
{
    tdm_status s = TDM_OK;
    for (size_t j = 0; j < job->count && s == TDM_OK; j++) {
        p->value_at[j] = coll_host_address(&job->values[j]);
        s = host_ready(job, p->value_at[j], coll_dev(&job->values[j]));
    }
    for (size_t d = 0; d < job->dst_count && s == TDM_OK; d++) {
        p->dst_at[d] = coll_host_address(&job->dsts[d]);
        s = host_ready(job, p->dst_at[d], coll_dev(&job->dsts[d]));
    }
    p->acc_in_dst = p->dst_at[0] && job->dsts[0].buffer == job->values[0].buffer &&
                    job->dsts[0].offset == job->values[0].offset;
    p->pair_in_place = p->acc_in_dst && job->count == 2 && job->dst_count == 2 && p->dst_at[1] &&
                       p->dst_at[1] == p->value_at[1] && job->op == TDM_REDUCE_SUM &&
                       job->dtype == TDM_F32;
    size_t total = job->values[0].size, share = total / (4 * job->count) / 64 * 64;
    p->unit_bytes = share < UNIT_LEAST ? UNIT_LEAST : share > UNIT_BYTES ? UNIT_BYTES : share;
    p->units = (total + p->unit_bytes - 1) / p->unit_bytes;
    return s;
}

/* One job per value device's copy worker (as many as there are units), the first
 * on the calling thread if no worker can be had. */
static void run_parallel(host_plan *p, host_job *jobs)
{
    const coll_job *job = p->job;
    size_t n = job->count < p->units ? job->count : p->units, posted = 0;
    for (size_t i = 0; i < n; i++) {
        jobs[i] = (host_job){.job.run = run_units,
                             .plan = p,
                             .worker = tdm_device_copy_worker(coll_dev(&job->values[i]))};
        if (jobs[i].worker) {
            tdm_worker_post(jobs[i].worker, &jobs[i].job);
            posted++;
        }
    }
    if (!posted)
        run_units(&jobs[0].job);
    for (size_t i = 0; i < n; i++)
        if (jobs[i].worker)
            tdm_worker_wait(jobs[i].worker, &jobs[i].job);
}

tdm_status coll_host(const coll_job *job)
{
    unsigned char *at[2 * 64];
    host_job jobs[64];
    if (job->count + job->dst_count > 2 * 64 || job->count > 64)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s: HOST takes at most 64 values and 128 views",
                        job->func);
    host_plan p = {.job = job, .value_at = at, .dst_at = at + job->count};
    tdm_status s = prepare(job, &p);
    if (s != TDM_OK)
        return s;
    tdm_mutex_init(&p.lock);
    atomic_init(&p.next, 0);
    run_parallel(&p, jobs);
    tdm_mutex_destroy(&p.lock);
    return p.status == TDM_OK ? TDM_OK : tdm_fail(p.status, "%s: %s", job->func, p.message);
}
