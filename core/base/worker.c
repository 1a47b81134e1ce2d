#include <string.h>

#include "base/error.h"
#include "base/worker.h"

static void worker_main(void *arg)
{
    tdm_worker *w = arg;
    tdm_mutex_lock(&w->lock);
    for (;;) {
        while (!w->head && !w->stop)
            tdm_cond_wait(&w->wake, &w->lock);
        tdm_job *job = w->head;
        if (!job)
            break; /* stopping, and nothing left to run */
        w->head = job->next;
        if (!w->head)
            w->tail = NULL;
        tdm_mutex_unlock(&w->lock);
        job->run(job);
        tdm_mutex_lock(&w->lock);
        job->done = 1;
        tdm_cond_broadcast(&w->finished);
    }
    tdm_mutex_unlock(&w->lock);
}

tdm_status tdm_worker_start(tdm_worker *w)
{
    memset(w, 0, sizeof *w);
    tdm_mutex_init(&w->lock);
    tdm_cond_init(&w->wake);
    tdm_cond_init(&w->finished);
    int err = tdm_thread_start(&w->thread, worker_main, w);
    if (err) {
        tdm_mutex_destroy(&w->lock);
        tdm_cond_destroy(&w->wake);
        tdm_cond_destroy(&w->finished);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "cannot start a worker thread (%s)", strerror(err));
    }
    w->started = 1;
    return TDM_OK;
}

void tdm_worker_stop(tdm_worker *w)
{
    if (!w->started)
        return;
    tdm_mutex_lock(&w->lock);
    w->stop = 1;
    tdm_cond_signal(&w->wake);
    tdm_mutex_unlock(&w->lock);
    tdm_thread_join(&w->thread);
    tdm_mutex_destroy(&w->lock);
    tdm_cond_destroy(&w->wake);
    tdm_cond_destroy(&w->finished);
    w->started = 0;
}

void tdm_worker_post(tdm_worker *w, tdm_job *job)
{
    job->next = NULL;
    job->done = 0;
    tdm_mutex_lock(&w->lock);
    if (w->tail)
        w->tail->next = job;
    else
        w->head = job;
    w->tail = job;
    tdm_cond_signal(&w->wake);
    tdm_mutex_unlock(&w->lock);
}

void tdm_worker_wait(tdm_worker *w, tdm_job *job)
{
    tdm_mutex_lock(&w->lock);
    while (!job->done)
        tdm_cond_wait(&w->finished, &w->lock);
    tdm_mutex_unlock(&w->lock);
}
