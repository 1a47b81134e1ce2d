#include <stdlib.h>
#include <string.h>

#include "bench_ceiling.h"
#include "bench_clock.h"
#include "platform/tdm_thread.h"

struct host_ceiling {
    float **buf;
    size_t buffers;
    host_collective kind;
    unsigned threads;    /* the caller and threads - 1 helpers */
    unsigned started;    /* helpers running */
    tdm_thread *helpers; /* [t - 1] runs slice t */
    tdm_mutex lock;
    tdm_cond go, finished;
    unsigned long generation; /* one per call */
    unsigned pending;         /* helpers still summing the current call */
    size_t count;             /* elements of the current call */
    int quit;
};

typedef struct helper_arg {
    host_ceiling *c;
    unsigned index;
} helper_arg;

/* Thread t's range of the call's elements. */
static void slice_range(const host_ceiling *c, unsigned t, size_t *lo, size_t *hi)
{
    size_t per = (c->count + c->threads - 1) / c->threads;
    *lo = t * per < c->count ? t * per : c->count;
    *hi = *lo + per < c->count ? *lo + per : c->count;
}

static void reduce_slice(host_ceiling *c, unsigned t)
{
    size_t lo, hi;
    slice_range(c, t, &lo, &hi);
    float *const *b = c->buf;
    if (c->buffers == 2) {
        /* Blocks of a fixed count, which GCC 12 vectorises at -O2 as it does the
         * library's host fold (core/distribute/float_fold.h), then the rest: a
         * ceiling summed one float at a time would be no ceiling. */
        float *x = b[0], *y = b[1];
        size_t i = lo;
        for (; i + 16 <= hi; i += 16) {
            float *px = x + i, *py = y + i;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
            for (size_t j = 0; j < 16; j++) {
                float sum = px[j] + py[j];
                px[j] = sum;
                py[j] = sum;
            }
        }
        for (; i < hi; i++)
            x[i] = y[i] = x[i] + y[i];
        return;
    }
    for (size_t i = lo; i < hi; i++) {
        float s = b[0][i];
        for (size_t k = 1; k < c->buffers; k++)
            s += b[k][i];
        for (size_t k = 0; k < c->buffers; k++)
            b[k][i] = s;
    }
}

/* Thread t's range of each of the `buffers` slices of the call's elements. */
static void shard_range(const host_ceiling *c, unsigned t, size_t *lo, size_t *hi)
{
    size_t part = c->count / c->buffers, per = (part + c->threads - 1) / c->threads;
    *lo = t * per < part ? t * per : part;
    *hi = *lo + per < part ? *lo + per : part;
}

static void gather_range(host_ceiling *c, unsigned t)
{
    size_t lo, hi, part = c->count / c->buffers;
    shard_range(c, t, &lo, &hi);
    for (size_t j = 0; j < c->buffers && hi > lo; j++)
        for (size_t i = 0; i < c->buffers; i++)
            if (i != j)
                memcpy(c->buf[j] + i * part + lo, c->buf[i] + i * part + lo, (hi - lo) * 4);
}

/* dst[e] = elements at + e of every buffer summed in replica order, for e in
 * [lo, hi): in blocks of a fixed count, which GCC 12 vectorises at -O2 (as
 * reduce_slice's), then the rest one float at a time. */
static void sum_range(host_ceiling *c, float *dst, size_t at, size_t lo, size_t hi)
{
    size_t e = lo;
    for (; e + 16 <= hi; e += 16) {
        float acc[16];
        memcpy(acc, c->buf[0] + at + e, sizeof acc);
        for (size_t i = 1; i < c->buffers; i++) {
            const float *src = c->buf[i] + at + e;
            for (size_t j = 0; j < 16; j++)
                acc[j] += src[j];
        }
        memcpy(dst + e, acc, sizeof acc);
    }
    for (; e < hi; e++) {
        float s = c->buf[0][at + e];
        for (size_t i = 1; i < c->buffers; i++)
            s += c->buf[i][at + e];
        dst[e] = s;
    }
}

static void scatter_range(host_ceiling *c, unsigned t)
{
    size_t lo, hi, part = c->count / c->buffers;
    shard_range(c, t, &lo, &hi);
    for (size_t k = 0; k < c->buffers; k++)
        sum_range(c, c->buf[k] + k * part, k * part, lo, hi);
}

/* Reduce to buffer 0, and broadcast from it. */
static void root_range(host_ceiling *c, unsigned t)
{
    size_t lo, hi;
    slice_range(c, t, &lo, &hi);
    if (c->kind == HOST_REDUCE)
        sum_range(c, c->buf[0], 0, lo, hi);
    for (size_t k = 1; c->kind == HOST_BROADCAST && k < c->buffers && hi > lo; k++)
        memcpy(c->buf[k] + lo, c->buf[0] + lo, (hi - lo) * 4);
}

static void work(host_ceiling *c, unsigned t)
{
    if (c->kind == HOST_ALL_GATHER)
        gather_range(c, t);
    else if (c->kind == HOST_REDUCE_SCATTER)
        scatter_range(c, t);
    else if (c->kind == HOST_REDUCE || c->kind == HOST_BROADCAST)
        root_range(c, t);
    else
        reduce_slice(c, t);
}

static void helper_main(void *arg)
{
    helper_arg h = *(helper_arg *)arg;
    host_ceiling *c = h.c;
    unsigned long seen = 0;
    free(arg);
    tdm_mutex_lock(&c->lock);
    for (;;) {
        while (c->generation == seen && !c->quit)
            tdm_cond_wait(&c->go, &c->lock);
        if (c->quit)
            break;
        seen = c->generation;
        tdm_mutex_unlock(&c->lock);
        work(c, h.index);
        tdm_mutex_lock(&c->lock);
        if (--c->pending == 0)
            tdm_cond_signal(&c->finished);
    }
    tdm_mutex_unlock(&c->lock);
}

static void call(host_ceiling *c)
{
    tdm_mutex_lock(&c->lock);
    c->generation++;
    c->pending = c->threads - 1;
    tdm_cond_broadcast(&c->go);
    tdm_mutex_unlock(&c->lock);
    work(c, 0);
    tdm_mutex_lock(&c->lock);
    while (c->pending)
        tdm_cond_wait(&c->finished, &c->lock);
    tdm_mutex_unlock(&c->lock);
}

void host_ceiling_destroy(host_ceiling *c)
{
    if (!c)
        return;
    tdm_mutex_lock(&c->lock);
    c->quit = 1;
    tdm_cond_broadcast(&c->go);
    tdm_mutex_unlock(&c->lock);
    for (unsigned t = 0; t < c->started; t++)
        tdm_thread_join(&c->helpers[t]);
    tdm_mutex_destroy(&c->lock);
    tdm_cond_destroy(&c->go);
    tdm_cond_destroy(&c->finished);
    for (size_t k = 0; c->buf && k < c->buffers; k++)
        free(c->buf[k]);
    free(c->buf);
    free(c->helpers);
    free(c);
}

host_ceiling *host_ceiling_create(size_t buffers, size_t max_bytes, unsigned threads,
                                  host_collective kind)
{
    host_ceiling *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    tdm_mutex_init(&c->lock);
    tdm_cond_init(&c->go);
    tdm_cond_init(&c->finished);
    c->buffers = buffers;
    c->kind = kind;
    c->threads = threads ? threads : 1;
    c->buf = calloc(buffers, sizeof *c->buf);
    c->helpers = calloc(c->threads, sizeof *c->helpers);
    int ok = c->buf && c->helpers;
    for (size_t k = 0; ok && k < buffers; k++) {
        /* Touched once here, so that no call pays for fresh pages. */
        ok = (c->buf[k] = malloc(max_bytes ? max_bytes : 1)) != NULL;
        if (ok)
            memset(c->buf[k], 0, max_bytes);
    }
    for (unsigned t = 1; ok && t < c->threads; t++) {
        helper_arg *h = malloc(sizeof *h);
        if (h)
            *h = (helper_arg){c, t};
        ok = h && tdm_thread_start(&c->helpers[t - 1], helper_main, h) == 0;
        if (ok)
            c->started++;
        else
            free(h);
    }
    if (!ok) {
        host_ceiling_destroy(c);
        return NULL;
    }
    return c;
}

double host_ceiling_time(host_ceiling *c, size_t bytes, unsigned warmup, unsigned iters)
{
    c->count = bytes / sizeof(float);
    for (unsigned i = 0; i < warmup; i++)
        call(c);
    double t0 = bench_seconds();
    for (unsigned i = 0; i < iters; i++)
        call(c);
    return (bench_seconds() - t0) / (iters ? iters : 1);
}
