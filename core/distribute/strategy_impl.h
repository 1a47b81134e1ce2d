/* Internal: strategies, values, variables and the per-thread mode behind them. */
#ifndef TDM_CORE_STRATEGY_IMPL_H
#define TDM_CORE_STRATEGY_IMPL_H

#include <stdatomic.h>

#include "collective/collectives.h"
#include "distribute/variable_access.h"
#include "device/device_impl.h"
#include "platform/tdm_thread.h"
#include "tandem/nn.h" /* tdm_loss_reduction */
#include "tandem/variable.h"
#include "device/memory/tensor_impl.h"
#include "base/worker.h"

struct tdm_value {
    tdm_value_kind kind;
    size_t count;
    tdm_tensor **components;
    int owns; /* 0: a gathered view of the replicas' tensors, released without them */
};

struct tdm_strategy {
    tdm_context *ctx;
    tdm_strategy_kind kind;
    tdm_strategy_options opts; /* check_mirrored resolved to 0 or 1 */
    size_t replica_count;
    tdm_device **devices;                           /* replica i runs on devices[i] */
    tdm_mutex lock;                           /* guards the variable list */
    struct tdm_variable *variables, *last_variable; /* in creation order */
    tdm_worker *workers;                            /* one per replica, started by the first run */
    tdm_worker engine;         /* runs the collectives that block the host, in issue
                                  order; started by the first such collective */
    double *shares;            /* [replica_count]: batch shares, guarded by lock; NULL: even */
    struct tdm_ranks *ranks;   /* multi-worker: the job's processes; else NULL */
    size_t first_replica;      /* global id of this process's replica 0 */
    size_t global_replicas;    /* over every process (replica_count for one process) */
    int uneven_workers;        /* multi-worker: the processes' replica counts differ */
    tdm_device **ps_devices;   /* parameter-server: [ps_count] devices that hold variables */
    size_t ps_count;
    size_t next_home;          /* the parameter device of the next variable, under lock */
    struct tdm_ranks *job;     /* a parameter-server job's processes (the workers do not
                                  reduce across it: ranks stays NULL); else NULL */
    size_t job_servers;        /* its last job_servers ranks serve variables */
    atomic_int loss_reduction; /* tdm_loss_reduction + 1 of the last loss; 0: none */
    atomic_int running;        /* a run is in progress */
    atomic_int entered;        /* scope enters not yet exited, over all threads */
};

struct tdm_replica_context {
    tdm_strategy *strategy;
    size_t id;
    struct run_state *run;
    tdm_tensor **args; /* arg_count, this replica's components */
    size_t arg_count;
    tdm_tensor *result;
};

struct tdm_variable {
    tdm_strategy *strategy;
    char *name;
    tdm_shape shape;
    size_t count;             /* elements */
    tdm_dtype dtype;          /* TDM_F32 or TDM_I64 */
    tdm_synchronization sync; /* AUTO resolved to ON_WRITE */
    tdm_aggregation aggregation;
    int trainable;
    size_t copy_count;
    tdm_tensor **copies; /* copies[i] on the i-th device of the variable */
    _Atomic uint64_t *writes; /* writes[i]: tdm_variable_writes of copy i */
    int home;            /* parameter-server: the copy that holds the value; else -1 */
    struct tdm_variable *prev, *next;
};

struct tdm_update_context {
    tdm_variable *var;
    size_t index;
};

/* The calling thread's mode (strategy_mode.c). */
typedef struct tdm_thread_mode {
    tdm_strategy *scope;          /* entered scope, NULL in default mode */
    unsigned depth;               /* nested enters of scope */
    tdm_replica_context *replica; /* in a replica function (not in a merge function) */
    tdm_update_context *update;   /* in an update function */
    tdm_variable *colocate;       /* colocate_vars_with target */
} tdm_thread_mode;

tdm_thread_mode *tdm_mode(void);

/* rows[i] for each of this process's replicas out of global batch number `step` of
 * `count` rows; returns the rows before this process's (other workers'). */
size_t tdm_strategy_split_batch(tdm_strategy *s, size_t count, uint64_t step, size_t *rows);

/* Index of dev among the strategy's devices, or -1. */
int tdm_strategy_device_index(const tdm_strategy *s, const tdm_device *dev);

/* Stops and joins the replica workers (strategy_run.c). */
void tdm_strategy_stop_workers(tdm_strategy *s);

/* The engine thread, started on first use (strategy_engine.c). */
tdm_status tdm_strategy_engine(tdm_strategy *s, tdm_worker **out);
tdm_worker *tdm_strategy_engine_worker(tdm_strategy *s);
void tdm_strategy_stop_engine(tdm_strategy *s);

/* Multi-worker (strategy_ranks.c): sets first_replica and global_replicas from every
 * process's replica count; gives every copy the chief's copies[0] (a collective:
 * every process calls it, in the same order). */
tdm_status tdm_strategy_count_replicas(tdm_strategy *s, const char *func);
tdm_status tdm_strategy_broadcast_from_chief(tdm_strategy *s, const tdm_buffer_view *copies,
                                             size_t count, const char *what);

/* A mirrored variable's copies against the chief's (every process calls it):
 * TDM_ERR_INVALID_STATE naming the first rank and element that differ. */
tdm_status tdm_variable_check_across_ranks(const tdm_variable *var, const char *func);

/* Variables of a strategy (variable.c): unlinks and frees every one. */
void tdm_strategy_free_variables(tdm_strategy *s);

/* A value over tensors the caller keeps (owns = 0). */
tdm_status tdm_value_borrow(tdm_value_kind kind, tdm_tensor *const *components, size_t count,
                            tdm_value **out);

#endif
