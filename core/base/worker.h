/* Internal: a persistent thread that runs jobs in the order they are posted.
 *
 * The engine's threads (replica workers, copy workers, a strategy's engine thread)
 * are workers: started once, parked on a condition variable between jobs, stopped
 * with their owner, so that no thread is created per step, per copy or per chunk.
 * Jobs are the caller's memory (intrusive), so posting never fails. */
#ifndef TDM_CORE_WORKER_H
#define TDM_CORE_WORKER_H

#include "platform/tdm_thread.h"
#include "tandem/status.h"

typedef struct tdm_job {
    void (*run)(struct tdm_job *job); /* on the worker's thread */
    struct tdm_job *next;             /* the worker's queue */
    int done;                         /* set after run returns; guarded by the worker */
} tdm_job;

typedef struct tdm_worker {
    tdm_thread thread;
    tdm_mutex lock;
    tdm_cond wake, finished;
    tdm_job *head, *tail;
    int stop, started;
} tdm_worker;

/* Starts the thread. TDM_ERR_OUT_OF_MEMORY if the system has no thread for it. */
tdm_status tdm_worker_start(tdm_worker *w);

/* Runs the jobs already posted, then joins the thread. Safe on a worker that never
 * started (zeroed). */
void tdm_worker_stop(tdm_worker *w);

/* Queues a job (job->run set by the caller). */
void tdm_worker_post(tdm_worker *w, tdm_job *job);

/* Blocks until the job has run. */
void tdm_worker_wait(tdm_worker *w, tdm_job *job);

#endif
