/* The platform's threads (core/platform/tdm_thread.h): zeroed storage is a ready mutex
 * and once, as this system's initializers are; timed waits keep to the monotonic clock;
 * mutexes, condition variables, once and join between threads. */
#include <errno.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <pthread.h>
#endif

#include "harness.h"
#include "platform/tdm_host.h"
#include "platform/tdm_thread.h"

enum { THREADS = 4, ROUNDS = 10000 };

static tdm_mutex counter_lock = TDM_MUTEX_INIT;
static tdm_once once = TDM_ONCE_INIT;
static int counter, once_runs;

/* TDM_MUTEX_INIT and TDM_ONCE_INIT are zeroed storage: the system's must be so too. */
static void check_static_initializers(void)
{
#ifdef _WIN32
    static const SRWLOCK mutex = SRWLOCK_INIT;
    static const INIT_ONCE initial_once = INIT_ONCE_STATIC_INIT;
#else
    static const pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    static const pthread_once_t initial_once = PTHREAD_ONCE_INIT;
#endif
    static const unsigned char
        zeros[sizeof mutex > sizeof initial_once ? sizeof mutex : sizeof initial_once];
    CHECK(!memcmp(&mutex, zeros, sizeof mutex));
    CHECK(!memcmp(&initial_once, zeros, sizeof initial_once));
}

/* A deadline on tdm_host_now_ns is kept: not returned early (as a wait on the wall
 * clock would, whose time is far past the monotonic one's), and a passed one at once. */
static void check_timed_wait(void)
{
    tdm_mutex m;
    tdm_cond c;
    CHECK(tdm_mutex_init(&m) == 0);
    CHECK(tdm_cond_init(&c) == 0);
    tdm_mutex_lock(&m);
    CHECK(tdm_cond_wait_until(&c, &m, 0) == ETIMEDOUT);
    uint64_t deadline = tdm_host_now_ns() + 20 * 1000 * 1000;
    int got = 0;
    while (got != ETIMEDOUT) /* a spurious wake-up returns 0 */
        got = tdm_cond_wait_until(&c, &m, deadline);
    CHECK(tdm_host_now_ns() >= deadline);
    tdm_mutex_unlock(&m);
    tdm_cond_destroy(&c);
    tdm_mutex_destroy(&m);
}

static void count_once(void)
{
    once_runs++;
}

static void count(void *arg)
{
    (void)arg;
    tdm_once_run(&once, count_once);
    for (int i = 0; i < ROUNDS; i++) {
        tdm_mutex_lock(&counter_lock);
        counter++;
        tdm_mutex_unlock(&counter_lock);
    }
}

static void check_threads(void)
{
    tdm_thread threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK(tdm_thread_start(&threads[t], count, NULL) == 0);
    for (int t = 0; t < THREADS; t++)
        tdm_thread_join(&threads[t]);
    CHECK(counter == THREADS * ROUNDS);
    CHECK(once_runs == 1);
}

typedef struct handoff {
    tdm_mutex lock;
    tdm_cond changed;
    int posted, seen;
} handoff;

static void wait_for_post(void *arg)
{
    handoff *h = arg;
    tdm_mutex_lock(&h->lock);
    while (!h->posted)
        tdm_cond_wait(&h->changed, &h->lock);
    h->seen = 1;
    tdm_cond_broadcast(&h->changed);
    tdm_mutex_unlock(&h->lock);
}

static void check_signal(void)
{
    handoff h;
    memset(&h, 0, sizeof h);
    CHECK(tdm_mutex_init(&h.lock) == 0 && tdm_cond_init(&h.changed) == 0);
    tdm_thread waiter;
    CHECK(tdm_thread_start(&waiter, wait_for_post, &h) == 0);
    tdm_mutex_lock(&h.lock);
    h.posted = 1;
    tdm_cond_signal(&h.changed);
    while (!h.seen)
        tdm_cond_wait(&h.changed, &h.lock);
    tdm_mutex_unlock(&h.lock);
    tdm_thread_join(&waiter);
    CHECK(h.seen == 1);
    tdm_cond_destroy(&h.changed);
    tdm_mutex_destroy(&h.lock);
}

void test_case_platform_thread(const test_run *run)
{
    (void)run;
    check_static_initializers();
    check_timed_wait();
    check_threads();
    check_signal();
}
