/* run: the strategy's persistent replica workers each run the function once, in
 * replica mode with their components of the arguments; the calling thread
 * coordinates merge calls meanwhile. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "distribute/run_state.h"

typedef struct replica_thread {
    tdm_job job; /* first: the worker hands back this pointer */
    tdm_replica_context rc;
    tdm_replica_fn fn;
    void *user_data;
} replica_thread;

static void replica_main(tdm_job *job)
{
    replica_thread *t = (replica_thread *)job;
    struct run_state *rs = t->rc.run;
    tdm_thread_mode *mode = tdm_mode();
    *mode = (tdm_thread_mode){.scope = t->rc.strategy, .depth = 1, .replica = &t->rc};
    tdm_status s = t->fn(&t->rc, t->user_data);
    *mode = (tdm_thread_mode){0}; /* the worker is parked in default mode */
    tdm_mutex_lock(&rs->lock);
    if (s != TDM_OK)
        run_state_fail(rs, t->rc.id, s, tdm_last_error());
    run_collectives_replica_done(rs, t->rc.id);
    rs->finished++;
    tdm_cond_signal(&rs->coordinator_wake);
    tdm_mutex_unlock(&rs->lock);
}

/* Starts the strategy's replica workers on its first run; they stay until it is
 * destroyed. */
static tdm_status start_workers(tdm_strategy *s)
{
    if (s->workers)
        return TDM_OK;
    tdm_worker *w = calloc(s->replica_count, sizeof *w);
    if (!w)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_strategy_run: out of host memory");
    tdm_status st = TDM_OK;
    for (size_t i = 0; i < s->replica_count && st == TDM_OK; i++)
        st = tdm_worker_start(&w[i]);
    if (st != TDM_OK) {
        for (size_t i = 0; i < s->replica_count; i++)
            tdm_worker_stop(&w[i]);
        free(w);
        return tdm_fail_context(st, "tdm_strategy_run: replica workers");
    }
    s->workers = w;
    return TDM_OK;
}

void tdm_strategy_stop_workers(tdm_strategy *s)
{
    for (size_t i = 0; s->workers && i < s->replica_count; i++)
        tdm_worker_stop(&s->workers[i]);
    free(s->workers);
    s->workers = NULL;
}

/* Replica i's component of each argument; plain values are copied to the replica's
 * device (owned[] marks the copies, released after the run). */
static tdm_status arg_component(tdm_strategy *s, const tdm_value *v, size_t arg, size_t i,
                                tdm_tensor **out, int *owned)
{
    static const char func[] = "tdm_strategy_run";
    tdm_device *dev = s->devices[i];
    if (!v)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: args[%zu] is NULL", func, arg);
    if (v->kind == TDM_VALUE_PLAIN && v->components[0]->device != dev) {
        tdm_status st = tdm_tensor_create_like(dev, v->components[0], out);
        if (st == TDM_OK && (st = tdm_tensor_copy(*out, v->components[0])) != TDM_OK)
            tdm_tensor_destroy(*out);
        *owned = st == TDM_OK;
        return st;
    }
    if (v->kind != TDM_VALUE_PLAIN && v->count != s->replica_count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: args[%zu] has %zu components for %zu replicas", func, arg, v->count,
                        s->replica_count);
    *out = v->components[v->kind == TDM_VALUE_PLAIN ? 0 : i];
    if ((*out)->device != dev)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: component %zu of args[%zu] is on device %s, replica %zu runs on "
                        "%s",
                        func, i, arg, (*out)->device->desc.id, i, dev->desc.id);
    return TDM_OK;
}

typedef struct run_args {
    tdm_tensor **tensors; /* [replica * count + arg] */
    int *owned;
    size_t count, replicas;
} run_args;

static void run_args_free(run_args *a)
{
    for (size_t k = 0; a->owned && k < a->count * a->replicas; k++)
        if (a->owned[k])
            tdm_tensor_destroy(a->tensors[k]);
    free(a->tensors);
    free(a->owned);
}

static tdm_status run_args_make(tdm_strategy *s, tdm_value *const *args, size_t count, run_args *a)
{
    size_t n = s->replica_count;
    *a = (run_args){.count = count, .replicas = n};
    if (count && !args)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_strategy_run: argument 'args' is NULL");
    a->tensors = calloc(count * n + 1, sizeof *a->tensors);
    a->owned = calloc(count * n + 1, sizeof *a->owned);
    if (!a->tensors || !a->owned) {
        run_args_free(a);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_strategy_run: out of host memory");
    }
    tdm_status st = TDM_OK;
    for (size_t i = 0; i < n && st == TDM_OK; i++)
        for (size_t k = 0; k < count && st == TDM_OK; k++)
            st = arg_component(s, args[k], k, i, &a->tensors[i * count + k],
                               &a->owned[i * count + k]);
    if (st != TDM_OK)
        run_args_free(a);
    return st;
}

/* Moves the replicas' results into one PER_REPLICA value (all or none must have
 * set one) and releases what is left over. */
static tdm_status collect_results(replica_thread *threads, size_t n, tdm_value **result)
{
    size_t set = 0;
    for (size_t i = 0; i < n; i++)
        set += threads[i].rc.result != NULL;
    tdm_status s = TDM_OK;
    if (set && set < n)
        s = tdm_fail(TDM_ERR_INVALID_STATE,
                     "tdm_strategy_run: %zu of %zu replicas set a result; all or none must", set,
                     n);
    else if (set && result) {
        tdm_tensor **tensors = malloc(n * sizeof *tensors);
        for (size_t i = 0; tensors && i < n; i++)
            tensors[i] = threads[i].rc.result;
        s = tensors ? tdm_value_create(TDM_VALUE_PER_REPLICA, tensors, n, result)
                    : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_strategy_run: out of host memory");
        for (size_t i = 0; s == TDM_OK && i < n; i++)
            threads[i].rc.result = NULL;
        free(tensors);
    }
    for (size_t i = 0; i < n; i++)
        tdm_tensor_destroy(threads[i].rc.result);
    return s;
}

/* Hands every worker its replica, coordinates until all have returned. */
static tdm_status run_replicas(struct run_state *rs, replica_thread *threads)
{
    for (size_t i = 0; i < rs->n; i++) {
        threads[i].job.run = replica_main;
        tdm_worker_post(&rs->strategy->workers[i], &threads[i].job);
    }
    run_state_coordinate(rs);
    run_collectives_drain(rs);
    for (size_t i = 0; i < rs->n; i++) /* the jobs' memory goes with the run */
        tdm_worker_wait(&rs->strategy->workers[i], &threads[i].job);
    if (rs->failed == TDM_OK)
        return TDM_OK;
    return tdm_fail(rs->failed, "tdm_strategy_run: replica %zu (%s): %s", rs->failed_replica,
                    rs->strategy->devices[rs->failed_replica]->desc.id, rs->failed_message);
}

static tdm_status run_with_args(tdm_strategy *s, tdm_replica_fn fn, void *user_data,
                                const run_args *a, tdm_value **result)
{
    struct run_state rs;
    tdm_status st = run_state_init(&rs, s);
    if (st != TDM_OK)
        return st;
    replica_thread *threads = calloc(s->replica_count, sizeof *threads);
    if (!threads) {
        run_state_destroy(&rs);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_strategy_run: out of host memory");
    }
    for (size_t i = 0; i < s->replica_count; i++)
        threads[i] = (replica_thread){.rc = {.strategy = s,
                                             .id = i,
                                             .run = &rs,
                                             .args = a->tensors + i * a->count,
                                             .arg_count = a->count},
                                      .fn = fn,
                                      .user_data = user_data};
    st = run_replicas(&rs, threads);
    tdm_status collected = collect_results(threads, s->replica_count, st == TDM_OK ? result : NULL);
    run_state_destroy(&rs);
    free(threads);
    return st != TDM_OK ? st : collected;
}

tdm_status tdm_strategy_run(tdm_strategy *s, tdm_replica_fn fn, void *user_data,
                            tdm_value *const *args, size_t arg_count, tdm_value **result)
{
    static const char func[] = "tdm_strategy_run";
    if (result)
        *result = NULL;
    TDM_CHECK_ARG(s, func);
    TDM_CHECK_ARG(fn, func);
    tdm_status st = tdm_require_cross_replica(s, func);
    if (st != TDM_OK)
        return st;
    if (atomic_exchange(&s->running, 1))
        return tdm_fail(TDM_ERR_INVALID_STATE, "%s: the strategy is already running", func);
    run_args a;
    st = tdm_strategy_scope_enter(s);
    if (st == TDM_OK)
        st = start_workers(s);
    if (st == TDM_OK && (st = run_args_make(s, args, arg_count, &a)) == TDM_OK) {
        st = run_with_args(s, fn, user_data, &a, result);
        run_args_free(&a);
    }
    tdm_strategy_scope_exit(s);
    atomic_store(&s->running, 0);
    return st;
}

