/* Asynchronous collectives in replica context (docs/modules/distribute.md, "Asynchronous
 * collectives"). Each replica's k-th start in a run meets the others' k-th; it
 * records the replica's ready event and returns at once. The replica that arrives
 * last issues the plan: on its own thread when the plan only enqueues work (devices
 * that share memory), on the strategy's engine thread when it blocks (staging, host
 * folds). A wait returns once the plan is issued, which orders the replica's device
 * after the result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "collective/collectives.h"
#include "distribute/run_state.h"

enum { RUN_COLL_ARRIVING, RUN_COLL_ISSUING, RUN_COLL_DONE, RUN_COLL_FAILED };

static void free_collective(run_collective *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        tdm_event_destroy(c->ready[i]);
        tdm_event_destroy(c->finished[i]);
    }
    free(c->values);
    free(c->outputs);
    free(c->ready);
    free(c->finished);
    free(c->arrived);
    free(c->waited);
    free(c->handles);
    free(c);
}

static run_collective *new_collective(struct run_state *rs, uint64_t seq)
{
    size_t n = rs->n;
    run_collective *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->run = rs;
    c->seq = seq;
    c->values = calloc(n, sizeof *c->values);
    c->outputs = calloc(n, sizeof *c->outputs);
    c->ready = calloc(n, sizeof *c->ready);
    c->finished = calloc(n, sizeof *c->finished);
    c->arrived = calloc(n, 1);
    c->waited = calloc(n, 1);
    c->handles = calloc(n, sizeof *c->handles);
    if (!c->values || !c->outputs || !c->ready || !c->finished || !c->arrived || !c->waited ||
        !c->handles) {
        free_collective(c, n);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        c->handles[i] = (struct tdm_pending){c, i};
    run_collective **tail = &rs->collectives;
    while (*tail)
        tail = &(*tail)->next;
    *tail = c;
    return c;
}

static run_collective *find(struct run_state *rs, uint64_t seq)
{
    for (run_collective *c = rs->collectives; c; c = c->next)
        if (c->seq == seq)
            return c;
    return NULL;
}

static void unlink_collective(struct run_state *rs, run_collective *c)
{
    run_collective **p = &rs->collectives;
    while (*p != c)
        p = &(*p)->next;
    *p = c->next;
}

/* Lock held. */
static void complete(run_collective *c, tdm_status s, const char *message)
{
    c->state = s == TDM_OK ? RUN_COLL_DONE : RUN_COLL_FAILED;
    c->status = s;
    snprintf(c->message, sizeof c->message, "%s", s == TDM_OK ? "" : message);
    tdm_cond_broadcast(&c->run->collective_wake);
}

static tdm_status run_plan(run_collective *c)
{
    tdm_strategy *s = c->run->strategy;
    tdm_collective_options o = tdm_strategy_collective_options(s);
    o.dtype = c->dtype;
    int all_reduce = c->kind == TDM_COLL_REDUCE;
    tdm_collective_call call = {.kind = c->kind,
                                .func = c->func,
                                .op = c->op,
                                .inputs = c->values,
                                .count = s->replica_count,
                                .outputs = all_reduce ? c->values : c->outputs,
                                .output_count = s->replica_count,
                                .root = c->root,
                                .ready = c->ready};
    return tdm_collective(&call, &o);
}

static void engine_job(tdm_job *job)
{
    run_collective *c = (run_collective *)job;
    tdm_status s = run_plan(c);
    tdm_mutex_lock(&c->run->lock);
    complete(c, s, tdm_last_error());
    tdm_mutex_unlock(&c->run->lock);
}

/* The last replica has arrived (lock not held, state ISSUING). */
static void issue(run_collective *c)
{
    struct run_state *rs = c->run;
    tdm_worker *engine = NULL;
    /* Without an engine thread, the plan runs here: slower, never wrong. */
    tdm_collective_options o = tdm_strategy_collective_options(rs->strategy);
    if (tdm_all_reduce_blocks(c->values, rs->n, &o) &&
        tdm_strategy_engine(rs->strategy, &engine) == TDM_OK) {
        c->job.run = engine_job;
        c->on_engine = 1;
        tdm_worker_post(engine, &c->job);
        return;
    }
    tdm_status s = run_plan(c);
    tdm_mutex_lock(&rs->lock);
    complete(c, s, tdm_last_error());
    tdm_mutex_unlock(&rs->lock);
}

static tdm_status check_start(tdm_replica_context *rc, tdm_reduce_op op, const tdm_tensor *value,
                              const char *func)
{
    if (tdm_mode()->replica != rc)
        return tdm_fail(TDM_ERR_INVALID_STATE, "%s: called outside this replica's function", func);
    if ((value->dtype != TDM_F32 && value->dtype != TDM_F16) ||
        value->device != tdm_replica_device(rc))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the value must be an f32 or f16 tensor on the replica's device", func);
    if ((unsigned)op > TDM_REDUCE_MIN)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown op %d", func, (int)op);
    if (value->dtype == TDM_F16 && tdm_tensor_count(value) % 2)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: an f16 value of %zu elements; f16 collectives move pairs of halves, "
                        "so the count must be even (give the tensor one more element)",
                        func, tdm_tensor_count(value));
    return tdm_collective_check_dtype(func, op, value->dtype);
}

static const char *const op_names[] = {"SUM", "MEAN", "MAX", "MIN"};

/* Lock held: the replica's start against the first one's. */
static tdm_status match(run_collective *c, size_t id, const run_collective_args *a, size_t size)
{
    const char *func = a->func;
    tdm_reduce_op op = a->op;
    tdm_dtype dtype = a->value->dtype;
    if (c->arrivals == 0) {
        c->op = op;
        c->dtype = dtype;
        c->size = size;
        c->func = func;
        c->root = a->root;
        return TDM_OK;
    }
    if (c->op == op && c->dtype == dtype && c->size == size && c->func == func &&
        c->root == a->root)
        return TDM_OK;
    size_t first = 0;
    while (!c->arrived[first])
        first++;
    char m[TDM_RUN_MESSAGE_MAX];
    if (c->func == func && c->root != a->root)
        snprintf(m, sizeof m,
                 "collective #%llu: replica %zu called %s with root %zu, replica %zu with root "
                 "%zu: every replica must name the same root",
                 (unsigned long long)c->seq, first, func, c->root, id, a->root);
    else
        snprintf(m, sizeof m,
                 "collective #%llu: replica %zu called %s(%s, %zu bytes of %s), replica %zu "
                 "%s(%s, %zu bytes of %s): every replica must make the same collective calls in "
                 "the same order",
                 (unsigned long long)c->seq, first, c->func, op_names[c->op], c->size,
                 tdm_dtype_name(c->dtype), id, func, op_names[op], size, tdm_dtype_name(dtype));
    run_state_fail(c->run, id, TDM_ERR_INVALID_STATE, m);
    complete(c, TDM_ERR_INVALID_STATE, m);
    return tdm_fail(TDM_ERR_INVALID_STATE, "%s: %s", func, m);
}

/* Lock held: fails c, which replica `gone` returned without starting. */
static void abandon(struct run_state *rs, run_collective *c, size_t gone)
{
    char message[TDM_RUN_MESSAGE_MAX];
    snprintf(message, sizeof message,
             "replica %zu returned while others wait in %s #%llu: every replica must make "
             "the same synchronising calls",
             gone, c->func, (unsigned long long)c->seq);
    run_state_fail(rs, gone, TDM_ERR_INVALID_STATE, message);
    complete(c, TDM_ERR_INVALID_STATE, message);
}

/* Lock held: registers the replica with its next collective. *issue_it is set for
 * the last arrival. */
static tdm_status arrive(struct run_state *rs, size_t id, const run_collective_args *a,
                         const tdm_buffer_view *view, const tdm_buffer_view *output,
                         tdm_event *ready, run_collective **out, int *issue_it)
{
    const char *func = a->func;
    if (rs->failed != TDM_OK)
        return tdm_fail(TDM_ERR_CANCELLED, "%s: cancelled: replica %zu failed: %s", func,
                        rs->failed_replica, rs->failed_message);
    uint64_t seq = rs->next_seq[id]++;
    run_collective *c = find(rs, seq);
    if (!c && !(c = new_collective(rs, seq)))
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t j = 0; j < rs->n && c->state == RUN_COLL_ARRIVING; j++)
        if (rs->returned[j] && !c->arrived[j]) {
            c->func = func;
            abandon(rs, c, j);
        }
    tdm_status s = c->state == RUN_COLL_FAILED ? tdm_fail(c->status, "%s: %s", func, c->message)
                                               : match(c, id, a, view->size);
    if (s != TDM_OK)
        return s;
    c->kind = a->kind;
    c->values[id] = *view;
    c->outputs[id] = *output;
    c->ready[id] = ready;
    c->arrived[id] = 1;
    *issue_it = ++c->arrivals == rs->n;
    if (*issue_it)
        c->state = RUN_COLL_ISSUING;
    *out = c;
    return TDM_OK;
}

tdm_status run_collective_start(tdm_replica_context *rc, const run_collective_args *a,
                                tdm_pending **out)
{
    tdm_status s = check_start(rc, a->op, a->value, a->func);
    tdm_event *ready = NULL;
    if (s == TDM_OK)
        s = tdm_device_record_event(a->value->device, &ready);
    if (s != TDM_OK)
        return s;
    struct run_state *rs = rc->run;
    tdm_buffer_view view = tdm_tensor_view(a->value);
    tdm_buffer_view output = a->output ? tdm_tensor_view(a->output) : view;
    run_collective *c = NULL;
    int issue_it = 0;
    tdm_mutex_lock(&rs->lock);
    s = arrive(rs, rc->id, a, &view, &output, ready, &c, &issue_it);
    tdm_mutex_unlock(&rs->lock);
    if (s != TDM_OK) {
        tdm_event_destroy(ready);
        return s;
    }
    *out = &c->handles[rc->id];
    if (issue_it)
        issue(c);
    return TDM_OK;
}

tdm_status tdm_replica_all_reduce_start(tdm_replica_context *rc, tdm_reduce_op op,
                                        tdm_tensor *value, tdm_pending **out)
{
    static const char func[] = "tdm_replica_all_reduce";
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(rc, func);
    TDM_CHECK_ARG(value, func);
    run_collective_args a = {.kind = TDM_COLL_REDUCE, .func = func, .op = op, .value = value};
    return run_collective_start(rc, &a, out);
}

/* Lock held: blocks until c is issued (or can never be); the status for replica id. */
static tdm_status await(struct run_state *rs, run_collective *c, char *message, size_t size)
{
    while (c->state == RUN_COLL_ISSUING || (c->state == RUN_COLL_ARRIVING && rs->failed == TDM_OK))
        tdm_cond_wait(&rs->collective_wake, &rs->lock);
    if (c->state == RUN_COLL_ARRIVING) {
        snprintf(message, size, "cancelled: replica %zu failed: %.900s", rs->failed_replica,
                 rs->failed_message);
        return TDM_ERR_CANCELLED;
    }
    snprintf(message, size, "%s", c->message);
    return c->status;
}

/* Lock held: replica id is done with c. Returns 1 for the last one, which unlinks
 * it and disposes of it once unlocked. */
static int release(struct run_state *rs, run_collective *c, size_t id)
{
    c->waited[id] = 1;
    if (++c->waits < rs->n)
        return 0;
    unlink_collective(rs, c);
    return 1;
}

static void dispose(struct run_state *rs, run_collective *c)
{
    if (c->on_engine)
        tdm_worker_wait(tdm_strategy_engine_worker(rs->strategy), &c->job);
    free_collective(c, rs->n);
}

tdm_status tdm_pending_wait(tdm_pending *p)
{
    static const char func[] = "tdm_pending_wait";
    TDM_CHECK_ARG(p, func);
    run_collective *c = p->c;
    struct run_state *rs = c->run;
    char message[TDM_RUN_MESSAGE_MAX];
    tdm_mutex_lock(&rs->lock);
    const char *call = c->func;
    tdm_status s = await(rs, c, message, sizeof message);
    int last = release(rs, c, p->replica);
    tdm_mutex_unlock(&rs->lock);
    if (last)
        dispose(rs, c);
    return s == TDM_OK ? TDM_OK : tdm_fail(s, "%s: %s", call, message);
}

tdm_status tdm_pending_query(tdm_pending *p, int *done)
{
    static const char func[] = "tdm_pending_query";
    TDM_CHECK_ARG(p, func);
    TDM_CHECK_ARG(done, func);
    run_collective *c = p->c;
    struct run_state *rs = c->run;
    *done = 0;
    tdm_mutex_lock(&rs->lock);
    tdm_status s = c->state == RUN_COLL_FAILED ? c->status : TDM_OK;
    if (s != TDM_OK)
        tdm_fail(s, "%s: %s", c->func, c->message);
    if (s == TDM_OK && c->state == RUN_COLL_DONE) {
        /* Completed when every device has finished what was submitted up to now. */
        int all = 1;
        for (size_t i = 0; i < rs->n && s == TDM_OK && all; i++) {
            tdm_device *dev = rs->strategy->devices[i]; /* its buffer may be gone */
            if (!c->finished[i])
                s = tdm_device_record_event(dev, &c->finished[i]);
            if (s == TDM_OK)
                s = tdm_event_query(c->finished[i], &all);
        }
        *done = s == TDM_OK && all;
    }
    tdm_mutex_unlock(&rs->lock);
    return s;
}

void run_collectives_replica_done(struct run_state *rs, size_t replica)
{
    char message[TDM_RUN_MESSAGE_MAX];
    rs->returned[replica] = 1;
    for (run_collective *c = rs->collectives, *next; c; c = next) {
        next = c->next;
        if (c->arrived[replica] && !c->waited[replica]) {
            tdm_status s = await(rs, c, message, sizeof message);
            if (s != TDM_OK && rs->failed == TDM_OK)
                run_state_fail(rs, replica, s, message);
            c->waited[replica] = 1;
            c->waits++;             /* freed with the run */
            next = rs->collectives; /* the list may have changed while waiting */
        } else if (c->state == RUN_COLL_ARRIVING && !c->arrived[replica] && rs->failed == TDM_OK) {
            abandon(rs, c, replica); /* after a failure, the waiters are cancelled */
        }
    }
}

void run_collectives_drain(struct run_state *rs)
{
    tdm_mutex_lock(&rs->lock);
    run_collective *c = rs->collectives;
    rs->collectives = NULL;
    tdm_mutex_unlock(&rs->lock);
    while (c) {
        run_collective *next = c->next;
        dispose(rs, c);
        c = next;
    }
}

tdm_status tdm_replica_all_reduce(tdm_replica_context *rc, tdm_reduce_op op, tdm_tensor *value)
{
    tdm_pending *p;
    tdm_status s = tdm_replica_all_reduce_start(rc, op, value, &p);
    return s == TDM_OK ? tdm_pending_wait(p) : s;
}
