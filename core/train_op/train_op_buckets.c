/* Gradient buckets (docs/modules/train.md, "Gradient buckets"): the flat gradient
 * buffer in reverse variable order, cut into buckets whose all-reduces start as
 * soon as their gradients are ready, in bucket order on every replica, so that each
 * replica's k-th collective is the same bucket. With a float16 all-reduce each
 * bucket's gradients are cast to float16 before it starts and back once it is done;
 * the loss, which a loss scale would take past float16's range, follows the last
 * bucket in float32. */
#include <stdint.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/error.h"
#include "tandem/ops.h"
#include "train_op/train_op_impl.h"
#include "train_op/train_trace.h"

/* Unsharded, each variable starts at a multiple of 4 floats, in the flat gradients
 * and in the arenas laid out alike: Vulkan's GEMM loads and stores 4 floats at a
 * time only from views aligned so (gemm.glsl). The gaps start as zeros and nothing
 * reads them: the all-reduces sum them and the update runs over them (an epsilon of
 * 0 makes them 0/0 there), but no variable's view covers them. */
enum { VARIABLE_ALIGN = 4 };

tdm_status tdm_train_layout(tdm_train_op *op)
{
    size_t n = op->var_count;
    op->offsets = calloc(n, sizeof *op->offsets);
    op->bucket_of = calloc(n, sizeof *op->bucket_of);
    op->bucket_end = calloc(n + 1, sizeof *op->bucket_end);
    op->bucket_vars = calloc(n + 1, sizeof *op->bucket_vars);
    if (!op->offsets || !op->bucket_of || !op->bucket_end || !op->bucket_vars)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    size_t at = 0, first = 0, bucket = 0, cap = op->opts.first_bucket_bytes / 4;
    for (size_t i = n; i-- > 0;) {
        tdm_shape shape = tdm_variable_shape(op->vars[i]);
        size_t count = tdm_shape_count(&shape);
        if (!op->shards) /* sharded, the all-gather's slices set the layout */
            at = (at + VARIABLE_ALIGN - 1) / VARIABLE_ALIGN * VARIABLE_ALIGN;
        if (at > first && at - first + count > cap) { /* close the bucket before i */
            op->bucket_end[bucket++] = at;
            first = at;
            cap = op->opts.bucket_bytes / 4;
        }
        op->offsets[i] = at;
        op->bucket_of[i] = bucket;
        op->bucket_vars[bucket]++;
        at += count;
    }
    op->bucket_end[bucket++] = at + !op->shards; /* unsharded, the last carries the loss */
    op->bucket_count = bucket;
    op->flat_count = at;
    if (op->shards)
        tdm_train_shard_pad(op);
    else
        op->total = at;
    return TDM_OK;
}

/* Bucket b's gradients, their float16 copy (a zero after them where their count is
 * odd: the all-reduce moves pairs) and the copy's slice over them. */
static tdm_status make_halves(const tdm_train_op *op, tdm_train_replica *r, size_t b)
{
    size_t first = b ? op->bucket_end[b - 1] : 0;
    size_t count = op->bucket_end[b] - first - (b + 1 == op->bucket_count);
    size_t even = count + count % 2;
    tdm_status s = tdm_tensor_slice(r->flat, first, &TDM_SHAPE(count), &r->bucket_grads[b]);
    if (s == TDM_OK)
        s = tdm_tensor_create(tdm_tensor_device(r->flat), TDM_F16, &TDM_SHAPE(even),
                              &r->bucket_halves[b]);
    if (s == TDM_OK && even != count) {
        uint16_t *zeros = calloc(even, sizeof *zeros);
        s = zeros ? tdm_tensor_write(r->bucket_halves[b], zeros, even * sizeof *zeros)
                  : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
        free(zeros);
    }
    return s == TDM_OK
               ? tdm_tensor_slice(r->bucket_halves[b], 0, &TDM_SHAPE(count), &r->halves_used[b])
               : s;
}

tdm_status tdm_train_buckets_make(tdm_train_op *op, tdm_train_replica *r)
{
    size_t k = op->bucket_count;
    r->op = op;
    r->buckets = calloc(k, sizeof *r->buckets);
    r->pending = calloc(k + 1, sizeof *r->pending);
    r->unready = calloc(k, sizeof *r->unready);
    r->ready = calloc(op->var_count, 1);
    if (!r->buckets || !r->pending || !r->unready || !r->ready)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    tdm_status s = TDM_OK;
    for (size_t b = 0; b < k && s == TDM_OK; b++) {
        size_t first = b ? op->bucket_end[b - 1] : 0;
        s = tdm_tensor_slice(r->flat, first, &TDM_SHAPE(op->bucket_end[b] - first), &r->buckets[b]);
    }
    if (s != TDM_OK || op->opts.all_reduce_dtype != TDM_F16)
        return s;
    r->bucket_grads = calloc(k, sizeof *r->bucket_grads);
    r->bucket_halves = calloc(k, sizeof *r->bucket_halves);
    r->halves_used = calloc(k, sizeof *r->halves_used);
    if (!r->bucket_grads || !r->bucket_halves || !r->halves_used)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    for (size_t b = 0; b < k && s == TDM_OK; b++)
        s = make_halves(op, r, b);
    return s;
}

static void destroy_all(tdm_tensor **tensors, size_t n)
{
    for (size_t i = 0; tensors && i < n; i++)
        tdm_tensor_destroy(tensors[i]);
    free(tensors);
}

void tdm_train_buckets_free(tdm_train_op *op, tdm_train_replica *r)
{
    destroy_all(r->halves_used, op->bucket_count); /* slices before their parents */
    destroy_all(r->bucket_halves, op->bucket_count);
    destroy_all(r->bucket_grads, op->bucket_count);
    destroy_all(r->buckets, op->bucket_count);
    free(r->pending);
    free(r->unready);
    free(r->ready);
}

void tdm_train_buckets_begin(tdm_train_replica *r, tdm_replica_context *rc)
{
    const tdm_train_op *op = r->op;
    r->rc = rc;
    r->started = 0;
    r->trace = op->traced ? &op->traced->replicas[tdm_replica_local_id(rc)] : NULL;
    r->timed = op->profiling || r->trace || tdm_train_balance_measures(op);
    r->began = tdm_seconds();
    for (size_t i = 0; i < op->var_count; i++)
        r->ready[i] = 0;
    for (size_t b = 0; b < op->bucket_count; b++)
        r->unready[b] = op->bucket_vars[b] + (b + 1 == op->bucket_count);
    for (size_t b = 0; b <= op->bucket_count; b++)
        r->pending[b] = NULL;
}

/* Bucket b's all-reduce (as float16: its gradients', then the loss's), or with
 * shards its reduce-scatter into the replica's shard, then the loss's all-reduce. */
static tdm_status start_bucket(tdm_train_replica *r, size_t b)
{
    size_t k = r->op->bucket_count;
    if (r->shard) {
        tdm_status s = tdm_replica_reduce_scatter_start(r->rc, TDM_REDUCE_SUM, r->buckets[b],
                                                        r->shard_parts[b], &r->pending[b]);
        if (s == TDM_OK && b + 1 == k)
            s = tdm_replica_all_reduce_start(r->rc, TDM_REDUCE_SUM, r->loss, &r->pending[k]);
        return s;
    }
    if (!r->bucket_halves)
        return tdm_replica_all_reduce_start(r->rc, TDM_REDUCE_SUM, r->buckets[b], &r->pending[b]);
    tdm_status s = tdm_op_cast(r->halves_used[b], r->bucket_grads[b]);
    if (s == TDM_OK)
        s = tdm_replica_all_reduce_start(r->rc, TDM_REDUCE_SUM, r->bucket_halves[b],
                                         &r->pending[b]);
    if (s == TDM_OK && b + 1 == k)
        s = tdm_replica_all_reduce_start(r->rc, TDM_REDUCE_SUM, r->loss, &r->pending[k]);
    return s;
}

/* Waits for bucket b's all-reduce, and brings float16 sums back into the gradients. */
static tdm_status finish_bucket(tdm_train_replica *r, size_t b)
{
    tdm_status s = tdm_pending_wait(r->pending[b]);
    if (s == TDM_OK && r->bucket_halves)
        s = tdm_op_cast(r->bucket_grads[b], r->halves_used[b]);
    return s;
}

/* Starts, in order, every bucket whose gradients are all ready (none while the loss
 * function is being timed). */
static tdm_status start_ready(tdm_train_replica *r)
{
    tdm_status s = TDM_OK;
    if (r->timed)
        return s;
    while (s == TDM_OK && r->started < r->op->bucket_count && !r->unready[r->started]) {
        s = start_bucket(r, r->started);
        if (s == TDM_OK)
            r->started++; /* only started buckets are waited for */
    }
    return s;
}

static void mark(tdm_train_replica *r, size_t i)
{
    if (!r->ready[i]) {
        r->ready[i] = 1;
        r->unready[r->op->bucket_of[i]]--;
    }
}

tdm_status tdm_loss_args_gradient_ready(const tdm_loss_args *args, size_t i)
{
    static const char func[] = "tdm_loss_args_gradient_ready";
    TDM_CHECK_ARG(args, func);
    tdm_train_replica *r = args->train;
    if (!r || !r->rc)
        return TDM_OK; /* a loss function called on its own: nothing to overlap */
    if (i >= r->op->var_count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: gradient %zu of %zu", func, i,
                        r->op->var_count);
    mark(r, i);
    return start_ready(r);
}

/* The device has run the loss function alone: nothing of other replicas held it. */
static tdm_status time_loss_function(tdm_train_replica *r)
{
    tdm_event *done = NULL;
    tdm_status s = tdm_device_record_event(tdm_replica_device(r->rc), &done);
    if (s == TDM_OK)
        s = tdm_event_wait(done);
    tdm_event_destroy(done);
    r->seconds = tdm_seconds() - r->began;
    r->profile.loss_seconds += r->seconds;
    r->timed = 0;
    return s;
}

/* Starts what is left and waits for every bucket started. */
static tdm_status run_buckets(tdm_train_replica *r, tdm_status s)
{
    size_t k = r->op->bucket_count;
    if (s == TDM_OK)
        s = start_ready(r);
    for (size_t b = 0; b < r->started; b++) {
        tdm_status w = finish_bucket(r, b);
        s = s != TDM_OK ? s : w;
    }
    if (r->pending[k]) { /* the loss, apart */
        tdm_status w = tdm_pending_wait(r->pending[k]);
        s = s != TDM_OK ? s : w;
    }
    return s;
}

/* A traced step: each bucket from its start until its sums are on the device, before
 * the next starts, so that its time is its own. */
static tdm_status trace_buckets(tdm_train_replica *r)
{
    size_t k = r->op->bucket_count;
    tdm_device *dev = tdm_replica_device(r->rc);
    tdm_status s = tdm_trace_time(r->trace, dev, &r->trace->loss[1]);
    for (size_t b = 0; b < k && s == TDM_OK; b++) {
        s = tdm_trace_time(r->trace, dev, &r->trace->buckets[2 * b]);
        if (s == TDM_OK)
            s = start_bucket(r, b);
        if (s == TDM_OK)
            s = finish_bucket(r, b);
        if (s == TDM_OK && r->pending[k]) /* the loss, apart, with the last */
            s = tdm_pending_wait(r->pending[k]);
        if (s == TDM_OK)
            s = tdm_trace_time(r->trace, dev, &r->trace->buckets[2 * b + 1]);
    }
    return s;
}

tdm_status tdm_train_buckets_finish(tdm_train_replica *r)
{
    const tdm_train_op *op = r->op;
    for (size_t i = 0; i < op->var_count; i++)
        mark(r, i);
    r->unready[op->bucket_count - 1]--; /* the loss */
    tdm_status s = r->timed ? time_loss_function(r) : TDM_OK;
    if (r->trace)
        s = s == TDM_OK ? trace_buckets(r) : s;
    else
        s = run_buckets(r, s);
    r->rc = NULL;
    return s;
}
