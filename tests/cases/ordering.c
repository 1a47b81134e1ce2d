/* Operations on one device take effect in the order they were issued, however a
 * backend groups them into submissions: long chains of dependent launches, fills
 * and copies (slices of one buffer included), writes after reads, host writes and
 * reads in between, two threads issuing work at once, and an event waited for or
 * queried by a thread other than the one that recorded it while nothing else makes
 * the device run (for Vulkan, ctest switches the batch timer off for that).
 *
 *   ordering reference|opencl|vulkan
 *
 * runs on the backend's first device. Every value is a small integer, so every
 * result is exact. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "harness.h"

#define N 1001 /* floats: slices of one buffer start off any alignment */
#define CHAIN_STEPS 150
#define EVENT_TIMEOUT_S 60

static float values[4 * N];

static int all_equal(const float *v, size_t n, float want)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != want)
            return 0;
    return 1;
}

static void check_tensor(const tdm_tensor *t, float want)
{
    size_t n = tdm_tensor_count(t);
    float *v = malloc(n * sizeof *v);
    CHECK(v != NULL);
    if (!v)
        return;
    CHECK_OK(tdm_tensor_read(t, v, n * sizeof *v));
    CHECK(all_equal(v, n, want));
    free(v);
}

/* Four slices of one buffer, each op reading what the one before wrote. */
typedef struct chain {
    tdm_tensor *flat, *s[4];
} chain;

static void chain_create(tdm_device *dev, chain *c)
{
    tdm_shape whole = TDM_SHAPE(4 * N), slice = TDM_SHAPE(N);
    *c = (chain){0};
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &whole, &c->flat));
    for (size_t k = 0; c->flat && k < 4; k++)
        CHECK_OK(tdm_tensor_slice(c->flat, k * N, &slice, &c->s[k]));
}

static void chain_destroy(chain *c)
{
    for (size_t k = 0; k < 4; k++)
        tdm_tensor_destroy(c->s[k]);
    tdm_tensor_destroy(c->flat);
}

/* After step k: s0 = k, s1 = 2k, s2 = 2k, s3 = 3k. Returns the first failure. */
static tdm_status chain_run(chain *c, const tdm_tensor *ones, int steps)
{
    tdm_status s = tdm_op_fill(c->s[0], 0.0f);
    for (int k = 0; k < steps && s == TDM_OK; k++) {
        s = tdm_op_axpy(c->s[0], 1.0f, ones);
        if (s == TDM_OK)
            s = tdm_op_scale(c->s[1], c->s[0], 2.0f);
        if (s == TDM_OK)
            s = tdm_tensor_copy(c->s[2], c->s[1]);
        if (s == TDM_OK)
            s = tdm_op_add(c->s[3], c->s[2], c->s[0]);
        if (s == TDM_OK) /* overwrites s0, which scale and add read */
            s = tdm_op_sub(c->s[0], c->s[3], c->s[1]);
    }
    return s;
}

static void chain_check(const chain *c, int steps)
{
    const float want[4] = {(float)steps, 2.0f * steps, 2.0f * steps, 3.0f * steps};
    CHECK_OK(tdm_tensor_read(c->flat, values, sizeof values));
    for (size_t k = 0; k < 4; k++)
        CHECK(all_equal(values + k * N, N, want[k]));
}

static tdm_tensor *new_tensor(tdm_device *dev, float value)
{
    tdm_shape shape = TDM_SHAPE(N);
    tdm_tensor *t = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &shape, &t));
    if (t)
        CHECK_OK(tdm_op_fill(t, value));
    return t;
}

/* A long chain of launches and copies on one device, then one read. */
static void check_chain(tdm_device *dev, const tdm_tensor *ones)
{
    chain c;
    chain_create(dev, &c);
    if (c.s[3]) {
        CHECK_OK(chain_run(&c, ones, CHAIN_STEPS));
        chain_check(&c, CHAIN_STEPS);
    }
    chain_destroy(&c);
}

/* A launch reads x, then a fill or a copy overwrites x: the launch saw the old x. */
static void check_write_after_read(tdm_device *dev)
{
    tdm_tensor *x = new_tensor(dev, 5.0f), *y = new_tensor(dev, 0.0f), *z = new_tensor(dev, 0.0f),
               *other = new_tensor(dev, 9.0f);
    if (x && y && z && other) {
        tdm_buffer_view xv = tdm_tensor_view(x);
        /* Two words (the Vulkan fill shader), then one (vkCmdFillBuffer). */
        const float pattern[2] = {7.0f, 7.0f};
        size_t head = xv.size / sizeof pattern * sizeof pattern;
        CHECK_OK(tdm_op_scale(y, x, 2.0f));
        CHECK_OK(tdm_buffer_fill(xv.buffer, xv.offset, pattern, sizeof pattern, head));
        CHECK_OK(tdm_buffer_fill(xv.buffer, xv.offset + head, pattern, sizeof pattern[0],
                                 xv.size - head));
        CHECK_OK(tdm_op_scale(z, x, 3.0f));
        CHECK_OK(tdm_tensor_copy(x, other));
        check_tensor(y, 10.0f);
        check_tensor(z, 21.0f);
        check_tensor(x, 9.0f);
    }
    tdm_tensor_destroy(x);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(z);
    tdm_tensor_destroy(other);
}

/* Host writes right after launches that read the old contents, reads in between. */
static void check_host_interleaving(tdm_device *dev)
{
    tdm_tensor *a = new_tensor(dev, 0.0f), *b = new_tensor(dev, 0.0f), *c = new_tensor(dev, 0.0f);
    for (int j = 0; a && b && c && j < 20; j++) {
        float first[N], second[N];
        for (size_t i = 0; i < N; i++) {
            first[i] = (float)(j + 1);
            second[i] = (float)(100 + j);
        }
        CHECK_OK(tdm_tensor_write(a, first, sizeof first));
        CHECK_OK(tdm_op_scale(b, a, 2.0f));
        CHECK_OK(tdm_tensor_write(a, second, sizeof second));
        CHECK_OK(tdm_op_scale(c, a, 3.0f));
        if (j % 2)
            check_tensor(b, 2.0f * (j + 1));
        check_tensor(c, 3.0f * (100 + j));
    }
    tdm_tensor_destroy(a);
    tdm_tensor_destroy(b);
    tdm_tensor_destroy(c);
}

typedef struct chain_thread {
    tdm_device *dev;
    const tdm_tensor *ones;
    chain c;
    tdm_status status;
} chain_thread;

static void *run_chain_thread(void *arg)
{
    chain_thread *t = arg;
    t->status = chain_run(&t->c, t->ones, CHAIN_STEPS);
    return NULL;
}

/* Two threads issue chains on one device at once, both reading one shared tensor. */
static void check_two_threads(tdm_device *dev, const tdm_tensor *ones)
{
    chain_thread t[2] = {{dev, ones, {0}, TDM_OK}, {dev, ones, {0}, TDM_OK}};
    pthread_t thread[2];
    for (int i = 0; i < 2; i++)
        chain_create(dev, &t[i].c);
    if (!t[0].c.s[3] || !t[1].c.s[3])
        goto out;
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&thread[i], NULL, run_chain_thread, &t[i]) == 0);
    for (int i = 0; i < 2; i++) {
        pthread_join(thread[i], NULL);
        CHECK(t[i].status == TDM_OK);
        chain_check(&t[i].c, CHAIN_STEPS);
    }
out:
    for (int i = 0; i < 2; i++)
        chain_destroy(&t[i].c);
}

/* One thread records a chain and an event and then leaves the device alone; another
 * waits for or polls the event. */
typedef struct event_handoff {
    tdm_device *dev;
    const tdm_tensor *ones;
    chain c;
    int poll;
    tdm_event *event;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int recorded, finished, done;
    tdm_status status;
} event_handoff;

/* Sets the flag and wakes its waiters; what was written before goes with it. */
static void raise_flag(event_handoff *h, int *flag)
{
    pthread_mutex_lock(&h->lock);
    *flag = 1;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
}

static void *record_then_leave(void *arg)
{
    event_handoff *h = arg;
    h->status = chain_run(&h->c, h->ones, CHAIN_STEPS);
    if (h->status == TDM_OK)
        h->status = tdm_device_record_event(h->dev, &h->event);
    raise_flag(h, &h->recorded);
    return NULL;
}

/* Polling gives up after the timeout and reports what it saw. */
static tdm_status poll_event(tdm_event *event, int *done)
{
    double give_up = test_seconds() + EVENT_TIMEOUT_S / 2;
    tdm_status s = TDM_OK;
    *done = 0;
    while (s == TDM_OK && !*done && test_seconds() < give_up) {
        s = tdm_event_query(event, done);
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    return s;
}

static void *wait_for_event(void *arg)
{
    event_handoff *h = arg;
    pthread_mutex_lock(&h->lock);
    while (!h->recorded)
        pthread_cond_wait(&h->changed, &h->lock);
    tdm_event *event = h->event;
    pthread_mutex_unlock(&h->lock);
    int done = 0;
    tdm_status s = !event    ? TDM_ERR_INVALID_ARGUMENT
                   : h->poll ? poll_event(event, &done)
                             : tdm_event_wait(event);
    if (s == TDM_OK && !h->poll)
        s = tdm_event_query(event, &done);
    h->status = s;
    h->done = done;
    raise_flag(h, &h->finished);
    return NULL;
}

/* A wait that never returns cannot be cancelled: the test ends there. */
static void await_finished(event_handoff *h)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += EVENT_TIMEOUT_S;
    pthread_mutex_lock(&h->lock);
    int err = 0;
    while (!h->finished && err == 0)
        err = pthread_cond_timedwait(&h->changed, &h->lock, &until);
    int finished = h->finished;
    pthread_mutex_unlock(&h->lock);
    if (!finished) {
        fprintf(stderr,
                "tdm_event_wait from another thread did not return within %d s: the "
                "work before the event never reached the device\n",
                EVENT_TIMEOUT_S);
        exit(1);
    }
}

static void check_event_across_threads(tdm_device *dev, const tdm_tensor *ones, int poll)
{
    event_handoff h = {.dev = dev, .ones = ones, .poll = poll, .status = TDM_OK};
    pthread_mutex_init(&h.lock, NULL);
    pthread_cond_init(&h.changed, NULL);
    chain_create(dev, &h.c);
    pthread_t recorder, waiter;
    if (h.c.s[3] && pthread_create(&recorder, NULL, record_then_leave, &h) == 0) {
        CHECK(pthread_create(&waiter, NULL, wait_for_event, &h) == 0);
        await_finished(&h);
        pthread_join(recorder, NULL);
        pthread_join(waiter, NULL);
        CHECK(h.status == TDM_OK);
        CHECK(h.done == 1);
        chain_check(&h.c, CHAIN_STEPS);
    }
    tdm_event_destroy(h.event);
    chain_destroy(&h.c);
    pthread_cond_destroy(&h.changed);
    pthread_mutex_destroy(&h.lock);
}

void test_case_ordering(const test_run *run)
{
    static const struct {
        const char *name;
        tdm_backend_kind kind;
    } backends[] = {{"reference", TDM_BACKEND_REFERENCE},
                    {"opencl", TDM_BACKEND_OPENCL},
                    {"vulkan", TDM_BACKEND_VULKAN}};
    size_t b = 0; /* the runner has checked the name */
    while (strcmp(run->argv[0], backends[b].name) != 0)
        b++;
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(backends[b].kind));
    tdm_device *dev = NULL;
    if (test_devices_of(ctx, backends[b].kind, &dev, 1) != 1) {
        fprintf(stderr, "no %s device\n", run->argv[0]);
        tdm_context_destroy(ctx);
        test_failures++;
        return;
    }
    tdm_tensor *ones = new_tensor(dev, 1.0f);
    if (ones) {
        check_chain(dev, ones);
        check_write_after_read(dev);
        check_host_interleaving(dev);
        check_two_threads(dev, ones);
        check_event_across_threads(dev, ones, 0);
        check_event_across_threads(dev, ones, 1);
    }
    tdm_tensor_destroy(ones);
    CHECK(tdm_context_validation_messages(ctx) == 0);
    tdm_context_destroy(ctx);
}
