/* tdm_thread.h on POSIX threads. */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "platform/tdm_thread.h"

#define FITS(type, storage)                                                                        \
    _Static_assert(sizeof(type) <= sizeof(storage) &&                                              \
                       _Alignof(type) <= _Alignof(TDM_PLATFORM_STORAGE(1)),                        \
                   #type " fits its storage")
FITS(pthread_mutex_t, ((tdm_mutex *)0)->system);
FITS(pthread_cond_t, ((tdm_cond *)0)->system);
FITS(pthread_once_t, ((tdm_once *)0)->system);
FITS(pthread_t, ((tdm_thread *)0)->system);

#define MUTEX(m) ((pthread_mutex_t *)(void *)(m)->system.raw)
#define COND(c) ((pthread_cond_t *)(void *)(c)->system.raw)

int tdm_mutex_init(tdm_mutex *m)
{
    return pthread_mutex_init(MUTEX(m), NULL);
}

void tdm_mutex_destroy(tdm_mutex *m)
{
    pthread_mutex_destroy(MUTEX(m));
}

void tdm_mutex_lock(tdm_mutex *m)
{
    pthread_mutex_lock(MUTEX(m));
}

void tdm_mutex_unlock(tdm_mutex *m)
{
    pthread_mutex_unlock(MUTEX(m));
}

int tdm_cond_init(tdm_cond *c)
{
    pthread_condattr_t attr;
    int err = pthread_condattr_init(&attr);
    if (err != 0)
        return err;
    err = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (err == 0)
        err = pthread_cond_init(COND(c), &attr);
    pthread_condattr_destroy(&attr);
    return err;
}

void tdm_cond_destroy(tdm_cond *c)
{
    pthread_cond_destroy(COND(c));
}

void tdm_cond_wait(tdm_cond *c, tdm_mutex *m)
{
    pthread_cond_wait(COND(c), MUTEX(m));
}

int tdm_cond_wait_until(tdm_cond *c, tdm_mutex *m, uint64_t deadline_ns)
{
    struct timespec at = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
    return pthread_cond_timedwait(COND(c), MUTEX(m), &at) == ETIMEDOUT ? ETIMEDOUT : 0;
}

void tdm_cond_signal(tdm_cond *c)
{
    pthread_cond_signal(COND(c));
}

void tdm_cond_broadcast(tdm_cond *c)
{
    pthread_cond_broadcast(COND(c));
}

static void *thread_main(void *arg)
{
    tdm_thread *t = arg;
    t->main(t->arg);
    return NULL;
}

int tdm_thread_start(tdm_thread *t, void (*main)(void *arg), void *arg)
{
    t->main = main;
    t->arg = arg;
    return pthread_create((pthread_t *)(void *)t->system.raw, NULL, thread_main, t);
}

void tdm_thread_join(tdm_thread *t)
{
    pthread_join(*(pthread_t *)(void *)t->system.raw, NULL);
}

void tdm_once_run(tdm_once *once, void (*run)(void))
{
    pthread_once((pthread_once_t *)(void *)once->system.raw, run);
}
