/* Internal: threads, mutexes, condition variables and once-only calls, the same on every
 * platform (posix/thread.c; Win32's SRWLOCK, CONDITION_VARIABLE, _beginthreadex and
 * INIT_ONCE fit the same calls). The structs keep the system's objects in storage sized
 * for both, so that no system header leaks into the rooms above. Errors are errno
 * values (0: done), which both systems' C runtimes give and strerror names. */
#ifndef TDM_PLATFORM_THREAD_H
#define TDM_PLATFORM_THREAD_H

#include <stdint.h>

/* Storage for a system object, aligned for any of them. */
#define TDM_PLATFORM_STORAGE(bytes)                                                                \
    union {                                                                                        \
        unsigned char raw[bytes];                                                                  \
        void *align_pointer;                                                                       \
        int64_t align_int;                                                                         \
    }

/* Zeroed storage is an unlocked mutex and a once not yet run on both systems
 * (PTHREAD_MUTEX_INITIALIZER and SRWLOCK_INIT, PTHREAD_ONCE_INIT and INIT_ONCE_STATIC_INIT),
 * so a static one needs no call (TDM_MUTEX_INIT, TDM_ONCE_INIT). */
typedef struct tdm_mutex {
    TDM_PLATFORM_STORAGE(64) system;
} tdm_mutex;
#define TDM_MUTEX_INIT                                                                             \
    {                                                                                              \
        {                                                                                          \
            {                                                                                      \
                0                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

typedef struct tdm_cond {
    TDM_PLATFORM_STORAGE(64) system;
} tdm_cond;

typedef struct tdm_once {
    TDM_PLATFORM_STORAGE(8) system;
} tdm_once;
#define TDM_ONCE_INIT TDM_MUTEX_INIT

/* A thread runs main(arg); the struct is the caller's until tdm_thread_join returns. */
typedef struct tdm_thread {
    void (*main)(void *arg);
    void *arg;
    TDM_PLATFORM_STORAGE(16) system;
} tdm_thread;

int tdm_mutex_init(tdm_mutex *m);
void tdm_mutex_destroy(tdm_mutex *m);
void tdm_mutex_lock(tdm_mutex *m);
void tdm_mutex_unlock(tdm_mutex *m);

/* Timed waits read the monotonic clock (tdm_host_now_ns), so wall-clock steps never
 * stretch or cut them. */
int tdm_cond_init(tdm_cond *c);
void tdm_cond_destroy(tdm_cond *c);
void tdm_cond_wait(tdm_cond *c, tdm_mutex *m);
/* Waits until signalled or until deadline_ns of tdm_host_now_ns; 0 when signalled (or
 * woken spuriously), ETIMEDOUT when the deadline passed. */
int tdm_cond_wait_until(tdm_cond *c, tdm_mutex *m, uint64_t deadline_ns);
void tdm_cond_signal(tdm_cond *c);
void tdm_cond_broadcast(tdm_cond *c);

/* Starts main(arg) on a new thread; EAGAIN when the system has no thread for it. */
int tdm_thread_start(tdm_thread *t, void (*main)(void *arg), void *arg);
void tdm_thread_join(tdm_thread *t);

/* Runs run() once in the process, whichever thread comes first; the others wait. */
void tdm_once_run(tdm_once *once, void (*run)(void));

#endif
