/* Internal: the state one tdm_strategy_run shares between its replica threads and
 * the coordinating thread (the caller of run), which executes merge functions. */
#ifndef TDM_CORE_RUN_STATE_H
#define TDM_CORE_RUN_STATE_H

#include "strategy_impl.h"

#define TDM_RUN_MESSAGE_MAX 1024

struct run_state {
    tdm_strategy *strategy;
    size_t n;
    pthread_mutex_t lock;
    pthread_cond_t coordinator_wake, replicas_wake;
    size_t waiting;      /* replicas inside a gather */
    size_t finished;     /* replicas whose function returned */
    uint64_t generation; /* bumped when a gather completes */
    /* the pending gather, one slot per replica */
    tdm_gather_fn *fns;
    const char **funcs;       /* the public call each replica made, for messages */
    const char *pending_func; /* the call of the replica that arrived last */
    void **users, **items, **results;
    tdm_status gather_status; /* of the last gather, with its message */
    char gather_message[TDM_RUN_MESSAGE_MAX];
    /* the first failure of a replica function: the run's result */
    tdm_status failed;
    size_t failed_replica;
    char failed_message[TDM_RUN_MESSAGE_MAX];
};

/* Sets up / tears down the state for n replicas. */
tdm_status run_state_init(struct run_state *rs, tdm_strategy *s);
void run_state_destroy(struct run_state *rs);

/* Records a replica's failure (the first one wins) and wakes the coordinator.
 * Called with the lock held. */
void run_state_fail(struct run_state *rs, size_t replica, tdm_status status,
                    const char *message);

/* The coordinator's loop: runs gathers as the replicas arrive at them and returns
 * once every replica function has returned. */
void run_state_coordinate(struct run_state *rs);

#endif
