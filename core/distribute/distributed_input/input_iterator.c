/* Distributed iterators. With prefetch, a thread per iterator gathers and uploads
 * step k + 1 while the caller holds step k (double buffering: at most two steps are
 * on the devices); next hands the ready step over and the previous one's slot to the
 * producer, which writes a later step into its tensors where their shapes fit.
 * The iterator's position is that of the next step it delivers, tracked apart from
 * the host iterators, which run a step ahead while one is prefetched; seek stops the
 * producer, drops its step, moves the host iterators and starts it again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "distribute/distributed_input/input_impl.h"
#include "platform/tdm_thread.h"

/* A step as it passes from the producer to the caller. */
typedef struct tdm_step_slot {
    tdm_distributed_batch batch;
    size_t *rows;               /* [replicas], what batch.replica_rows points to */
    tdm_dataset_position after; /* where the pipelines stand after this step */
    tdm_status status;
    char error[512]; /* the producer's message, when status is a failure */
} tdm_step_slot;

struct tdm_distributed_iterator {
    tdm_strategy *strategy;
    tdm_step_source src;
    int prefetch;
    tdm_dataset_position pos;    /* of the next step delivered (the caller's thread's) */
    tdm_step_slot current, next; /* the caller's step; the producer's (prefetch) */
    int next_full, done, stop, thread_started;
    tdm_thread thread;
    tdm_mutex lock; /* guards next, next_full, stop and stats */
    tdm_cond changed;
    tdm_input_stats stats;
};

static void slot_release(tdm_step_slot *slot)
{
    tdm_value_destroy(slot->batch.features);
    tdm_value_destroy(slot->batch.labels);
    slot->batch.features = slot->batch.labels = NULL;
    slot->batch.global_batch_size = 0;
}

/* Gathers and uploads the next step into slot; returns the seconds it took. */
static double produce(tdm_distributed_iterator *it, tdm_step_slot *slot)
{
    double start = tdm_seconds();
    tdm_status s = tdm_step_source_next(&it->src);
    const tdm_host_step *st = &it->src.step;
    if (s == TDM_OK && st->total)
        s = tdm_step_upload(it->strategy, &it->src, &slot->batch.features, &slot->batch.labels);
    else
        slot_release(slot); /* the end, or a failure: no earlier step shows through */
    slot->status = s;
    if (s != TDM_OK) {
        snprintf(slot->error, sizeof slot->error, "%s", tdm_last_error());
        return tdm_seconds() - start;
    }
    slot->after = tdm_step_source_position(&it->src);
    memcpy(slot->rows, st->rows, it->src.replicas * sizeof *slot->rows);
    slot->batch.global_batch_size = st->total;
    slot->batch.first_row = st->skip;
    slot->batch.epoch = st->epoch;
    slot->batch.index = st->index;
    return tdm_seconds() - start;
}

static int slot_final(const tdm_step_slot *slot)
{
    return slot->status != TDM_OK || slot->batch.global_batch_size == 0;
}

static void producer_main(void *arg)
{
    tdm_distributed_iterator *it = arg;
    tdm_mutex_lock(&it->lock);
    for (;;) {
        while (it->next_full && !it->stop)
            tdm_cond_wait(&it->changed, &it->lock);
        if (it->stop)
            break;
        tdm_mutex_unlock(&it->lock);
        double seconds = produce(it, &it->next);
        tdm_mutex_lock(&it->lock);
        it->stats.upload_seconds += seconds;
        it->stats.steps_uploaded += it->next.batch.global_batch_size != 0;
        it->next_full = 1;
        tdm_cond_broadcast(&it->changed);
        if (slot_final(&it->next))
            break;
    }
    tdm_mutex_unlock(&it->lock);
}

/* Swaps the two slots' contents: the caller takes the producer's step. */
static void take_next(tdm_distributed_iterator *it)
{
    tdm_step_slot spare = it->current;
    it->current = it->next;
    it->next = spare;
    it->next_full = 0;
}

static void next_prefetched(tdm_distributed_iterator *it)
{
    double start = tdm_seconds();
    tdm_mutex_lock(&it->lock);
    int ready = it->next_full;
    while (!it->next_full)
        tdm_cond_wait(&it->changed, &it->lock);
    take_next(it);
    it->stats.steps_ready += ready && it->current.batch.global_batch_size;
    it->stats.wait_seconds += tdm_seconds() - start;
    tdm_cond_broadcast(&it->changed);
    tdm_mutex_unlock(&it->lock);
}

/* Without prefetch the caller waits for the whole upload. */
static void next_direct(tdm_distributed_iterator *it)
{
    double seconds = produce(it, &it->next);
    tdm_mutex_lock(&it->lock);
    it->stats.upload_seconds += seconds;
    it->stats.wait_seconds += seconds;
    it->stats.steps_uploaded += it->next.batch.global_batch_size != 0;
    take_next(it);
    tdm_mutex_unlock(&it->lock);
}

tdm_status tdm_distributed_iterator_next(tdm_distributed_iterator *it,
                                         const tdm_distributed_batch **out)
{
    const char *func = "tdm_distributed_iterator_next";
    TDM_CHECK_ARG(it, func);
    TDM_CHECK_ARG(out, func);
    *out = &it->current.batch;
    if (!it->done) {
        if (it->prefetch)
            next_prefetched(it);
        else
            next_direct(it);
        it->done = slot_final(&it->current);
        if (it->current.status == TDM_OK)
            it->pos = it->current.after;
        tdm_mutex_lock(&it->lock);
        it->stats.steps += it->current.batch.global_batch_size != 0;
        tdm_mutex_unlock(&it->lock);
    }
    if (it->current.status != TDM_OK)
        return tdm_fail(it->current.status, "%s", it->current.error);
    return TDM_OK;
}

tdm_status tdm_distributed_iterator_stats(tdm_distributed_iterator *it, tdm_input_stats *out)
{
    TDM_CHECK_ARG(it, "tdm_distributed_iterator_stats");
    TDM_CHECK_ARG(out, "tdm_distributed_iterator_stats");
    tdm_mutex_lock(&it->lock);
    *out = it->stats;
    tdm_mutex_unlock(&it->lock);
    return TDM_OK;
}

/* Stops the prefetch thread, if it runs; it finishes the step it is producing. */
static void stop_producer(tdm_distributed_iterator *it)
{
    if (!it->thread_started)
        return;
    tdm_mutex_lock(&it->lock);
    it->stop = 1;
    tdm_cond_broadcast(&it->changed);
    tdm_mutex_unlock(&it->lock);
    tdm_thread_join(&it->thread);
    it->thread_started = 0;
    it->stop = 0;
}

static tdm_status start_producer(tdm_distributed_iterator *it, const char *func)
{
    if (!it->prefetch)
        return TDM_OK;
    it->thread_started = tdm_thread_start(&it->thread, producer_main, it) == 0;
    return it->thread_started
               ? TDM_OK
               : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: cannot start the prefetch thread", func);
}

tdm_status tdm_distributed_iterator_position(const tdm_distributed_iterator *it,
                                             tdm_dataset_position *pos)
{
    TDM_CHECK_ARG(it, "tdm_distributed_iterator_position");
    TDM_CHECK_ARG(pos, "tdm_distributed_iterator_position");
    *pos = it->pos;
    return TDM_OK;
}

tdm_status tdm_distributed_iterator_seek(tdm_distributed_iterator *it,
                                         const tdm_dataset_position *pos)
{
    const char *func = "tdm_distributed_iterator_seek";
    TDM_CHECK_ARG(it, func);
    TDM_CHECK_ARG(pos, func);
    stop_producer(it);
    slot_release(&it->next); /* a prefetched step: the host iterators are past it */
    it->next_full = 0;
    tdm_status s = tdm_step_source_seek(&it->src, pos);
    if (s == TDM_OK) {
        it->pos = *pos;
        it->done = 0; /* resumes after the end, or after a failure */
        it->current.status = TDM_OK;
    } else {
        s = tdm_fail_context(s, "%s", func);
        tdm_step_source_seek(&it->src, &it->pos); /* where the caller stands: valid */
    }
    if (!it->done) {
        tdm_status started = start_producer(it, func);
        if (started != TDM_OK) { /* next would wait forever: fail it instead */
            it->done = 1;
            it->current.status = started;
            snprintf(it->current.error, sizeof it->current.error, "%s", tdm_last_error());
            s = started;
        }
    }
    return s;
}

void tdm_distributed_iterator_destroy(tdm_distributed_iterator *it)
{
    if (!it)
        return;
    stop_producer(it);
    slot_release(&it->current);
    slot_release(&it->next);
    free(it->current.rows);
    free(it->next.rows);
    tdm_step_source_free(&it->src);
    tdm_cond_destroy(&it->changed);
    tdm_mutex_destroy(&it->lock);
    free(it);
}

static tdm_status init_slots(tdm_distributed_iterator *it, size_t replicas)
{
    it->current.rows = calloc(replicas, sizeof *it->current.rows);
    it->next.rows = calloc(replicas, sizeof *it->next.rows);
    if (!it->current.rows || !it->next.rows)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_distributed_iterator_create: no host memory");
    it->current.batch.replica_rows = it->current.rows;
    it->current.batch.num_replicas = it->next.batch.num_replicas = replicas;
    it->next.batch.replica_rows = it->next.rows;
    return TDM_OK;
}

tdm_status tdm_distributed_iterator_create(const tdm_distributed_dataset *dist,
                                           tdm_distributed_iterator **out)
{
    const char *func = "tdm_distributed_iterator_create";
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(dist, func);
    tdm_distributed_iterator *it = calloc(1, sizeof *it);
    if (!it)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: no host memory", func);
    tdm_mutex_init(&it->lock);
    tdm_cond_init(&it->changed);
    it->strategy = dist->strategy;
    it->prefetch = dist->opts.prefetch != 0;
    tdm_status s = init_slots(it, tdm_strategy_num_local_replicas(dist->strategy));
    if (s == TDM_OK)
        s = tdm_step_source_init(&it->src, dist);
    if (s == TDM_OK)
        it->pos = tdm_step_source_position(&it->src);
    if (s == TDM_OK)
        s = start_producer(it, func);
    if (s != TDM_OK) {
        tdm_distributed_iterator_destroy(it);
        return s;
    }
    *out = it;
    return TDM_OK;
}
