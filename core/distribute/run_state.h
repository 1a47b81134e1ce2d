/* Internal: the state one tdm_strategy_run shares between its replica threads and
 * the coordinating thread (the caller of run), which executes merge functions. */
#ifndef TDM_CORE_RUN_STATE_H
#define TDM_CORE_RUN_STATE_H

#include "distribute/strategy_impl.h"

#define TDM_RUN_MESSAGE_MAX 1024

/* One replica's handle on a collective it started (replica_collective.c). */
struct tdm_pending {
    struct run_collective *c;
    size_t replica;
};

/* The k-th collective of a run: every replica's k-th start meets the others'. */
typedef struct run_collective {
    tdm_job job; /* first: on the strategy's engine thread, for plans that block */
    struct run_state *run;
    uint64_t seq;
    const char *func;
    tdm_collective_kind kind; /* REDUCE: an all-reduce */
    tdm_reduce_op op;
    size_t root;                 /* ROOT_REDUCE, ROOT_BROADCAST: the job's replica id */
    tdm_dtype dtype;             /* TDM_F32, or TDM_F16 (SUM, MEAN) */
    size_t size;                 /* bytes of each value */
    tdm_buffer_view *values;     /* [n] */
    tdm_buffer_view *outputs;    /* [n]: all but the all-reduce's */
    tdm_event **ready;           /* [n]: each replica's work before its start */
    tdm_event **finished;        /* [n]: after the plan, on each device (inline plans) */
    unsigned char *arrived;      /* [n] */
    unsigned char *waited;       /* [n] */
    struct tdm_pending *handles; /* [n] */
    size_t arrivals, waits;
    int state;     /* RUN_COLL_* (replica_collective.c) */
    int on_engine; /* issued as a job of the strategy's engine thread */
    tdm_status status;
    char message[TDM_RUN_MESSAGE_MAX];
    struct run_collective *next;
} run_collective;

struct run_state {
    tdm_strategy *strategy;
    size_t n;
    tdm_mutex lock;
    tdm_cond coordinator_wake, replicas_wake;
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
    /* collectives started and not yet waited for by every replica, oldest first */
    run_collective *collectives;
    uint64_t *next_seq;       /* [n]: each replica's next collective */
    unsigned char *returned;  /* [n]: the replica's function has returned */
    tdm_cond collective_wake; /* a collective was issued, finished or failed */
    /* the first failure of a replica function: the run's result */
    tdm_status failed;
    size_t failed_replica;
    char failed_message[TDM_RUN_MESSAGE_MAX];
};

/* One replica's start of a collective of `kind` (replica_collective.c); output is
 * NULL for an all-reduce, or in place. The caller checked output against value. */
typedef struct run_collective_args {
    tdm_collective_kind kind;
    const char *func;
    tdm_reduce_op op;
    tdm_tensor *value, *output;
    size_t root; /* TDM_COLL_ROOT_REDUCE, TDM_COLL_ROOT_BROADCAST */
} run_collective_args;
tdm_status run_collective_start(tdm_replica_context *rc, const run_collective_args *a,
                                tdm_pending **out);

/* Sets up / tears down the state for n replicas. */
tdm_status run_state_init(struct run_state *rs, tdm_strategy *s);
void run_state_destroy(struct run_state *rs);

/* Records a replica's failure (the first one wins) and wakes the coordinator.
 * Called with the lock held. */
void run_state_fail(struct run_state *rs, size_t replica, tdm_status status, const char *message);

/* The coordinator's loop: runs gathers as the replicas arrive at them and returns
 * once every replica function has returned. */
void run_state_coordinate(struct run_state *rs);

/* replica_collective.c: a replica's function returned (lock held): its collectives
 * not yet waited for are waited for, and any collective others wait in that it never
 * started fails the run. */
void run_collectives_replica_done(struct run_state *rs, size_t replica);
/* After every replica returned: the engine's jobs of this run finish, and what is
 * left is freed. */
void run_collectives_drain(struct run_state *rs);

#endif
