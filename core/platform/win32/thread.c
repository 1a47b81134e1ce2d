/* tdm_thread.h on Win32: SRWLOCK, CONDITION_VARIABLE, _beginthreadex, INIT_ONCE. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <errno.h>
#include <process.h>
#include <string.h>

#include "platform/tdm_host.h"
#include "platform/tdm_thread.h"

#define FITS(type, storage)                                                                        \
    _Static_assert(sizeof(type) <= sizeof(storage) &&                                              \
                       _Alignof(type) <= _Alignof(TDM_PLATFORM_STORAGE(1)),                        \
                   #type " fits its storage")
FITS(SRWLOCK, ((tdm_mutex *)0)->system);
FITS(CONDITION_VARIABLE, ((tdm_cond *)0)->system);
FITS(INIT_ONCE, ((tdm_once *)0)->system);
FITS(HANDLE, ((tdm_thread *)0)->system);

#define MUTEX(m) ((SRWLOCK *)(void *)(m)->system.raw)
#define COND(c) ((CONDITION_VARIABLE *)(void *)(c)->system.raw)
#define THREAD(t) ((HANDLE *)(void *)(t)->system.raw)

int tdm_mutex_init(tdm_mutex *m)
{
    InitializeSRWLock(MUTEX(m));
    return 0;
}

void tdm_mutex_destroy(tdm_mutex *m)
{
    (void)m; /* an SRWLOCK holds no resource */
}

void tdm_mutex_lock(tdm_mutex *m)
{
    AcquireSRWLockExclusive(MUTEX(m));
}

void tdm_mutex_unlock(tdm_mutex *m)
{
    ReleaseSRWLockExclusive(MUTEX(m));
}

int tdm_cond_init(tdm_cond *c)
{
    InitializeConditionVariable(COND(c));
    return 0;
}

void tdm_cond_destroy(tdm_cond *c)
{
    (void)c; /* a CONDITION_VARIABLE holds no resource */
}

void tdm_cond_wait(tdm_cond *c, tdm_mutex *m)
{
    SleepConditionVariableSRW(COND(c), MUTEX(m), INFINITE, 0);
}

int tdm_cond_wait_until(tdm_cond *c, tdm_mutex *m, uint64_t deadline_ns)
{
    uint64_t now = tdm_host_now_ns();
    if (now >= deadline_ns)
        return ETIMEDOUT;
    /* Rounded up, so a wait never ends before its deadline; INFINITE is out of reach. */
    uint64_t ms = (deadline_ns - now + 999999u) / 1000000u;
    DWORD wait = ms >= INFINITE ? INFINITE - 1 : (DWORD)ms;
    if (SleepConditionVariableSRW(COND(c), MUTEX(m), wait, 0))
        return 0;
    return GetLastError() == ERROR_TIMEOUT && tdm_host_now_ns() >= deadline_ns ? ETIMEDOUT : 0;
}

void tdm_cond_signal(tdm_cond *c)
{
    WakeConditionVariable(COND(c));
}

void tdm_cond_broadcast(tdm_cond *c)
{
    WakeAllConditionVariable(COND(c));
}

static unsigned __stdcall thread_main(void *arg)
{
    tdm_thread *t = arg;
    t->main(t->arg);
    return 0;
}

int tdm_thread_start(tdm_thread *t, void (*main)(void *arg), void *arg)
{
    t->main = main;
    t->arg = arg;
    /* _beginthreadex, not CreateThread: the C runtime sets up its per-thread state. */
    uintptr_t h = _beginthreadex(NULL, 0, thread_main, t, 0, NULL);
    if (h == 0)
        return EAGAIN;
    *THREAD(t) = (HANDLE)h;
    return 0;
}

void tdm_thread_join(tdm_thread *t)
{
    WaitForSingleObject(*THREAD(t), INFINITE);
    CloseHandle(*THREAD(t));
}

static BOOL CALLBACK once_main(INIT_ONCE *once, void *run, void **context)
{
    (void)once;
    (void)context;
    void (*fn)(void);
    memcpy(&fn, &run, sizeof fn); /* a function pointer through InitOnce's void * */
    fn();
    return TRUE;
}

void tdm_once_run(tdm_once *once, void (*run)(void))
{
    void *arg;
    memcpy(&arg, &run, sizeof arg);
    InitOnceExecuteOnce((INIT_ONCE *)(void *)once->system.raw, once_main, arg, NULL);
}
