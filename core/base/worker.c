#include <string.h>

#include "base/error.h"
#include "base/worker.h"

static void *worker_main(void *arg)
{
    tdm_worker *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->head && !w->stop)
            pthread_cond_wait(&w->wake, &w->lock);
        tdm_job *job = w->head;
        if (!job)
            break; /* stopping, and nothing left to run */
        w->head = job->next;
        if (!w->head)
            w->tail = NULL;
        pthread_mutex_unlock(&w->lock);
        job->run(job);
        pthread_mutex_lock(&w->lock);
        job->done = 1;
        pthread_cond_broadcast(&w->finished);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

tdm_status tdm_worker_start(tdm_worker *w)
{
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    pthread_cond_init(&w->finished, NULL);
    int err = pthread_create(&w->thread, NULL, worker_main, w);
    if (err) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->wake);
        pthread_cond_destroy(&w->finished);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "cannot start a worker thread (%s)", strerror(err));
    }
    w->started = 1;
    return TDM_OK;
}

void tdm_worker_stop(tdm_worker *w)
{
    if (!w->started)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    pthread_cond_destroy(&w->finished);
    w->started = 0;
}

void tdm_worker_post(tdm_worker *w, tdm_job *job)
{
    job->next = NULL;
    job->done = 0;
    pthread_mutex_lock(&w->lock);
    if (w->tail)
        w->tail->next = job;
    else
        w->head = job;
    w->tail = job;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
}

void tdm_worker_wait(tdm_worker *w, tdm_job *job)
{
    pthread_mutex_lock(&w->lock);
    while (!job->done)
        pthread_cond_wait(&w->finished, &w->lock);
    pthread_mutex_unlock(&w->lock);
}
