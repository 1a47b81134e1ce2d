/* Gathers: every replica pauses at the same call, one function runs once on the
 * coordinating thread with every replica's item, and each replica resumes with its
 * result. A replica that fails or returns early releases the others with an error
 * instead of leaving them waiting forever. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "distribute/run_state.h"

tdm_status run_state_init(struct run_state *rs, tdm_strategy *s)
{
    size_t n = s->replica_count;
    memset(rs, 0, sizeof *rs);
    rs->strategy = s;
    rs->n = n;
    rs->fns = calloc(n, sizeof *rs->fns);
    rs->funcs = calloc(n, sizeof *rs->funcs);
    rs->users = calloc(n, sizeof *rs->users);
    rs->items = calloc(n, sizeof *rs->items);
    rs->results = calloc(n, sizeof *rs->results);
    rs->next_seq = calloc(n, sizeof *rs->next_seq);
    rs->returned = calloc(n, 1);
    int sync_failed = tdm_mutex_init(&rs->lock) || tdm_cond_init(&rs->coordinator_wake) ||
                      tdm_cond_init(&rs->replicas_wake) || tdm_cond_init(&rs->collective_wake);
    if (sync_failed || !rs->fns || !rs->funcs || !rs->users || !rs->items || !rs->results ||
        !rs->next_seq || !rs->returned) {
        run_state_destroy(rs);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_strategy_run: out of host memory");
    }
    return TDM_OK;
}

void run_state_destroy(struct run_state *rs)
{
    tdm_mutex_destroy(&rs->lock);
    tdm_cond_destroy(&rs->coordinator_wake);
    tdm_cond_destroy(&rs->replicas_wake);
    tdm_cond_destroy(&rs->collective_wake);
    free(rs->next_seq);
    free(rs->returned);
    free(rs->fns);
    free(rs->funcs);
    free(rs->users);
    free(rs->items);
    free(rs->results);
}

void run_state_fail(struct run_state *rs, size_t replica, tdm_status status, const char *message)
{
    if (rs->failed == TDM_OK) {
        rs->failed = status;
        rs->failed_replica = replica;
        snprintf(rs->failed_message, sizeof rs->failed_message, "%s", message);
    }
    tdm_cond_signal(&rs->coordinator_wake);
    tdm_cond_broadcast(&rs->collective_wake);
}

/* Ends the pending gather with status and message for every waiting replica. */
static void release(struct run_state *rs, tdm_status status, const char *message)
{
    rs->gather_status = status;
    snprintf(rs->gather_message, sizeof rs->gather_message, "%s", message);
    rs->waiting = 0;
    rs->generation++;
    tdm_cond_broadcast(&rs->replicas_wake);
}

/* Every replica is waiting: the same function? Then run it, unlocked. */
static void run_gather(struct run_state *rs)
{
    for (size_t i = 1; i < rs->n; i++)
        if (rs->fns[i] != rs->fns[0]) {
            char m[TDM_RUN_MESSAGE_MAX];
            snprintf(m, sizeof m,
                     "replicas 0 and %zu made different calls (%s and %s) at the same point: "
                     "every replica must make the same synchronising calls in the same order",
                     i, rs->funcs[0], rs->funcs[i]);
            run_state_fail(rs, i, TDM_ERR_INVALID_STATE, m);
            release(rs, TDM_ERR_INVALID_STATE, m);
            return;
        }
    tdm_mutex_unlock(&rs->lock);
    tdm_status s = rs->fns[0](rs->strategy, rs->items, rs->users[0], rs->results);
    tdm_mutex_lock(&rs->lock);
    release(rs, s, s == TDM_OK ? "" : tdm_last_error());
}

/* Some replicas wait in a gather that others will never reach: one failed, or
 * returned without making the call. */
static void release_stranded(struct run_state *rs)
{
    char m[TDM_RUN_MESSAGE_MAX];
    tdm_status status = TDM_ERR_CANCELLED;
    if (rs->failed != TDM_OK) {
        snprintf(m, sizeof m, "cancelled: replica %zu failed: %.900s", rs->failed_replica,
                 rs->failed_message);
    } else {
        snprintf(m, sizeof m,
                 "%zu replica(s) returned while %zu wait in %s: every replica must make the "
                 "same synchronising calls",
                 rs->finished, rs->waiting, rs->pending_func);
        status = TDM_ERR_INVALID_STATE;
        run_state_fail(rs, 0, status, m);
    }
    release(rs, status, m);
}

void run_state_coordinate(struct run_state *rs)
{
    tdm_mutex_lock(&rs->lock);
    while (rs->finished < rs->n) {
        if (rs->waiting && rs->waiting + rs->finished == rs->n && rs->failed == TDM_OK &&
            rs->finished == 0)
            run_gather(rs);
        else if (rs->waiting && (rs->failed != TDM_OK || rs->waiting + rs->finished == rs->n))
            release_stranded(rs);
        else
            tdm_cond_wait(&rs->coordinator_wake, &rs->lock);
    }
    tdm_mutex_unlock(&rs->lock);
}

/* Sets the gather's message as this replica's error, naming the call unless the
 * message already starts with it. */
static void report(tdm_status status, const char *func, const char *message)
{
    size_t len = strlen(func);
    if (!strncmp(message, func, len) && !strncmp(message + len, ": ", 2))
        tdm_fail(status, "%s", message);
    else
        tdm_fail(status, "%s: %s", func, message);
}

tdm_status tdm_replica_gather(tdm_replica_context *rc, tdm_gather_fn fn, void *user_data,
                              void *item, void **result, const char *func)
{
    struct run_state *rs = rc->run;
    size_t id = rc->id;
    tdm_mutex_lock(&rs->lock);
    if (rs->failed != TDM_OK) {
        tdm_status s = tdm_fail(TDM_ERR_CANCELLED, "%s: cancelled: replica %zu failed: %s", func,
                                rs->failed_replica, rs->failed_message);
        tdm_mutex_unlock(&rs->lock);
        return s;
    }
    rs->fns[id] = fn;
    rs->funcs[id] = func;
    rs->pending_func = func;
    rs->users[id] = user_data;
    rs->items[id] = item;
    rs->results[id] = NULL;
    uint64_t generation = rs->generation;
    rs->waiting++;
    tdm_cond_signal(&rs->coordinator_wake);
    while (rs->generation == generation)
        tdm_cond_wait(&rs->replicas_wake, &rs->lock);
    tdm_status s = rs->gather_status;
    void *mine = rs->results[id];
    rs->results[id] = NULL;
    if (s != TDM_OK)
        report(s, func, rs->gather_message);
    tdm_mutex_unlock(&rs->lock);
    if (result)
        *result = s == TDM_OK ? mine : NULL;
    return s;
}
