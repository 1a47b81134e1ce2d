/* RANKS: an all-reduce or reduction across the processes of a multi-worker job
 * (docs/design/002-beyond-one-process.md). The call is announced to every rank
 * first, so a missing or different rank fails it before any data moves. Then this
 * rank's values are folded into the first by the plan their devices suit, and that
 * value crosses the ranks in chunks, pipelined: while MPI reduces chunk k on the
 * host, the copy workers read chunk k+1 from the device and write chunk k-1 to every
 * destination. Where the host addresses the device memory (CPU drivers), MPI works
 * on it in place and nothing is copied. MEAN divides once, by the job's count of
 * values. */
#include <stdlib.h>
#include <string.h>

#include "collective/collective_impl.h"
#include "device/memory/copy_worker.h"
#include "device/device_status.h"
#include "base/error.h"

#define SLOTS 3 /* chunk k is reduced while k+1 is read and k-1 written */
#define MIN_CHUNK ((size_t)256 << 10)
#define MAX_CHUNK ((size_t)4 << 20)

/* One copy between a chunk's host slot and a view, on the view device's copy worker. */
typedef struct chunk_copy {
    tdm_job job; /* first: the worker hands back this pointer */
    tdm_worker *worker;
    const tdm_buffer_view *view;
    size_t offset, bytes;
    float *slot;
    int to_device;
    tdm_status status;
} chunk_copy;

static void run_copy(tdm_job *job)
{
    chunk_copy *c = (chunk_copy *)job;
    tdm_device *dev = coll_dev(c->view);
    unsigned char *at = coll_host_address(c->view);
    if (at && c->to_device)
        memcpy(at + c->offset, c->slot, c->bytes);
    else if (c->to_device)
        c->status =
            tdm_device_result(dev, dev->ops->write(c->view->buffer, c->view->buffer->impl,
                                                   c->view->offset + c->offset, c->slot, c->bytes));
    else
        c->status =
            tdm_device_result(dev, dev->ops->read(c->view->buffer, c->view->buffer->impl,
                                                  c->view->offset + c->offset, c->slot, c->bytes));
}

static void post(chunk_copy *c)
{
    c->worker = tdm_device_copy_worker(coll_dev(c->view));
    c->job.run = run_copy;
    if (c->worker)
        tdm_worker_post(c->worker, &c->job);
    else
        run_copy(&c->job); /* no thread to be had: slower, never wrong */
}

static tdm_status finish(chunk_copy *c)
{
    if (c->worker)
        tdm_worker_wait(c->worker, &c->job);
    c->worker = NULL;
    return c->status;
}

/* The pipeline of one call: chunks of the first value, the copies that carry them. */
typedef struct ranks_plan {
    const coll_job *job;
    tdm_ranks_call *call;
    float *in_place; /* the first value at its host address, or NULL */
    size_t chunk, chunks;
    chunk_copy *reads;  /* [chunks] */
    chunk_copy *writes; /* [chunks * dst_count]; unused where a destination is in place */
    float *slots[SLOTS];
} ranks_plan;

static size_t chunk_bytes(const ranks_plan *p, size_t k)
{
    size_t size = p->job->values[0].size, offset = k * p->chunk;
    return size - offset < p->chunk ? size - offset : p->chunk;
}

static float *slot_of(const ranks_plan *p, size_t k)
{
    return p->in_place ? p->in_place + k * p->chunk / sizeof(float) : p->slots[k % SLOTS];
}

static void start_read(ranks_plan *p, size_t k)
{
    if (p->in_place)
        return;
    p->reads[k] = (chunk_copy){.view = &p->job->values[0],
                               .offset = k * p->chunk,
                               .bytes = chunk_bytes(p, k),
                               .slot = slot_of(p, k)};
    post(&p->reads[k]);
}

static void start_writes(ranks_plan *p, size_t k)
{
    const coll_job *job = p->job;
    for (size_t d = 0; d < job->dst_count; d++) {
        const tdm_buffer_view *v = &job->dsts[d];
        if (p->in_place && v->buffer == job->values[0].buffer && v->offset == job->values[0].offset)
            continue; /* reduced there */
        chunk_copy *c = &p->writes[k * job->dst_count + d];
        *c = (chunk_copy){.view = v,
                          .offset = k * p->chunk,
                          .bytes = chunk_bytes(p, k),
                          .slot = slot_of(p, k),
                          .to_device = 1};
        post(c);
    }
}

static tdm_status finish_writes(ranks_plan *p, size_t k)
{
    tdm_status first = TDM_OK;
    for (size_t d = 0; d < p->job->dst_count; d++) {
        tdm_status s = finish(&p->writes[k * p->job->dst_count + d]);
        first = first != TDM_OK ? first : s;
    }
    return first;
}

static tdm_status reduce_chunk(ranks_plan *p, size_t k)
{
    float *slot = slot_of(p, k);
    size_t n = chunk_bytes(p, k) / sizeof(float);
    tdm_status s = tdm_ranks_all_reduce(p->call, slot, n);
    if (s == TDM_OK && p->job->op == TDM_REDUCE_MEAN) /* 1/count as coll_finalize rounds it */
        tdm_fold_scale(tdm_fold_op_of(p->job->op, p->job->dtype), slot, n,
                       (float)(1.0 / (double)p->call->agreed.contributors));
    return s;
}

/* Chunk k: its read done, the next read started (once the writes of the chunk that
 * used its slot are done), reduced, its writes started. */
static tdm_status pipeline(ranks_plan *p)
{
    tdm_status s = TDM_OK, settled = TDM_OK;
    start_read(p, 0);
    size_t k = 0;
    for (; k < p->chunks && s == TDM_OK; k++) {
        if (!p->in_place)
            s = finish(&p->reads[k]);
        if (s == TDM_OK && k + 1 < p->chunks) {
            if (k + 1 >= SLOTS)
                s = finish_writes(p, k + 1 - SLOTS);
            if (s == TDM_OK)
                start_read(p, k + 1);
        }
        if (s == TDM_OK)
            s = reduce_chunk(p, k);
        if (s == TDM_OK)
            start_writes(p, k);
    }
    /* Whatever was started is waited for, failed or not: it uses the slots. */
    for (size_t j = 0; j < p->chunks; j++) {
        if (!p->in_place && p->reads[j].worker)
            finish(&p->reads[j]);
        tdm_status w = finish_writes(p, j);
        settled = settled != TDM_OK ? settled : w;
    }
    return s != TDM_OK ? s : settled;
}

/* This rank's values into its first. MEAN folds as SUM everywhere and divides once,
 * by the job's count of values. */
static tdm_status fold_locally(const coll_job *job)
{
    if (job->count == 1)
        return TDM_OK;
    coll_job local = *job;
    local.op = job->op == TDM_REDUCE_MEAN ? TDM_REDUCE_SUM : job->op;
    local.dsts = job->values;
    local.dst_count = 1;
    local.ranks = NULL;
    return coll_run_plan(&local, job->algorithm);
}

/* Before the host touches dev's memory in place: everything issued to it is done. */
static tdm_status drain(tdm_device *dev)
{
    tdm_event *done = NULL;
    tdm_status s = tdm_device_record_event(dev, &done);
    if (s == TDM_OK)
        s = tdm_event_wait(done);
    tdm_event_destroy(done);
    return s;
}

/* Devices the host will touch in place must be done with what came before. With one
 * value that is the work before its ready event, where the caller gave one (an event
 * recorded now costs a round trip through the driver, and waits for work queued
 * since); after a local fold, the fold's work too. */
static tdm_status host_ready(const coll_job *job, tdm_device *dev)
{
    return job->count == 1 ? coll_order_host_ready(job->order, dev) : drain(dev);
}

/* After a local fold every value's device, not only the first's: a plan may write the
 * first value's slices from the devices that reduced them (RING's gather), and the
 * host reads it in place. */
static tdm_status drain_in_place(const coll_job *job)
{
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < job->count && s == TDM_OK; i++)
        if (coll_host_address(&job->values[0]))
            s = host_ready(job, coll_dev(&job->values[i]));
    for (size_t d = 0; d < job->dst_count && s == TDM_OK; d++)
        if (coll_host_address(&job->dsts[d]))
            s = host_ready(job, coll_dev(&job->dsts[d]));
    return s;
}

/* The piece this rank would move at a time; every rank takes the smallest proposed.
 * In place with nothing to write elsewhere, the whole tensor: nothing would overlap
 * the exchange, and fewer, larger messages cross faster. Else small tensors in
 * smaller chunks, so that copies still overlap the exchange. */
static size_t proposed_chunk(const coll_job *job)
{
    size_t size = job->values[0].size;
    if (coll_host_address(&job->values[0]) && job->dst_count == 1)
        return size;
    size_t chunk = size / 4;
    chunk = chunk < MIN_CHUNK ? MIN_CHUNK : chunk > MAX_CHUNK ? MAX_CHUNK : chunk;
    return (chunk + 63) / 64 * 64;
}

static tdm_status exchange(const coll_job *job, tdm_ranks_call *call)
{
    size_t size = job->values[0].size;
    ranks_plan p = {.job = job,
                    .call = call,
                    .in_place = (float *)coll_host_address(&job->values[0]),
                    .chunk = call->agreed.chunk};
    p.chunks = (size + p.chunk - 1) / p.chunk;
    tdm_status s = fold_locally(job);
    if (s == TDM_OK)
        s = drain_in_place(job);
    p.reads = calloc(p.chunks * (1 + job->dst_count), sizeof *p.reads);
    p.writes = p.reads ? p.reads + p.chunks : NULL;
    float *slots = p.in_place ? NULL : tdm_ranks_slots(job->ranks, SLOTS * p.chunk);
    if (s == TDM_OK && (!p.reads || (!p.in_place && !slots)))
        s = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", job->func);
    for (size_t i = 0; slots && i < SLOTS; i++)
        p.slots[i] = slots + i * p.chunk / sizeof(float);
    if (s == TDM_OK)
        s = pipeline(&p);
    free(p.reads);
    return s;
}

tdm_status coll_ranks(const coll_job *job)
{
    tdm_ranks_call call;
    tdm_status s =
        tdm_ranks_begin(job->ranks, TDM_RANK_ALL_REDUCE, tdm_fold_op_of(job->op, job->dtype),
                        job->values[0].size, job->count, proposed_chunk(job), job->func, &call);
    if (s != TDM_OK)
        return tdm_fail_context(s, "%s", job->func);
    s = exchange(job, &call);
    tdm_ranks_end(&call);
    return s;
}
