/* Internal: what the modules above distribute (optimizer, ps, train_op, monitor) may
 * ask of it beyond the public API, so that they never reach into its structs. */
#ifndef TDM_CORE_VARIABLE_ACCESS_H
#define TDM_CORE_VARIABLE_ACCESS_H

#include "collective/collectives.h"
#include "tandem/nn.h" /* tdm_loss_reduction */
#include "tandem/strategy.h"
#include "tandem/variable.h"

/* Variables: their strategy, their element count; which copy lives on dev. */
tdm_strategy *tdm_variable_strategy(const tdm_variable *var);
size_t tdm_variable_count(const tdm_variable *var);
/* Index of the variable's copy on dev, or -1. */
int tdm_variable_copy_index(const tdm_variable *var, const tdm_device *dev);

/* The copy that holds the value: a parameter-server variable's home, else copy 0.
 * Whether the variable has a home (lives on a parameter device). */
size_t tdm_variable_primary(const tdm_variable *var);
int tdm_variable_has_home(const tdm_variable *var);

/* How many times copy c of var has been written: every path that writes a copy
 * counts it (the variable's create, assigns, update functions and moves; the
 * optimizer's and the train op's updates and resyncs; restores and loads, which
 * assign), so that bytes copied from it elsewhere (the optimizer's scratch on another
 * device) are known to be current while the count stays. Writes straight into a
 * copy's tensor (tdm_variable_copy) go uncounted: the forward pass's moving
 * statistics, which no optimizer updates. tdm_variable_wrote counts a write of copy
 * c, or of every copy for TDM_EVERY_COPY. */
#define TDM_EVERY_COPY ((size_t)-1)
uint64_t tdm_variable_writes(const tdm_variable *var, size_t c);
void tdm_variable_wrote(tdm_variable *var, size_t c);

/* Whether every write must reach every copy (ON_WRITE). SYNC_NONE exists only with
 * one copy and behaves like a plain variable. */
int tdm_variable_mirrored(const tdm_variable *var);

/* Copy c of var moves into the memory of `into`, a tensor of its dtype and element
 * count on that copy's device: the bytes are copied in queue order, the variable's
 * tensor (the same pointer) takes into's memory, `into` is destroyed, and the old
 * buffer is released once the copy out of it has completed. Slices and views of the copy taken
 * before point at the old buffer. Called outside any run (the train op, when it is
 * created). */
tdm_status tdm_variable_move_copy(tdm_variable *var, size_t c, tdm_tensor *into);

/* Verifies that the copies are bitwise identical when the strategy asked for it
 * (check_mirrored) and var is mirrored. */
tdm_status tdm_variable_check_if_asked(const tdm_variable *var, const char *func);

/* Whether s verifies mirrored copies after every write (check_mirrored). */
int tdm_strategy_checks_mirrored(const tdm_strategy *s);

/* The calling thread's mode: whether it runs an update function; the variable new
 * variables are colocated with (tdm_strategy_colocate_vars_with), set to var and the
 * previous one returned, so that a caller can restore it. */
int tdm_in_update_function(void);
tdm_variable *tdm_colocate_swap(tdm_variable *var);

/* TDM_ERR_INVALID_STATE unless the thread may run a cross-replica operation of s:
 * not in a replica function ("use tdm_replica_merge_call"), and no other strategy
 * entered ("mixing strategies"). */
tdm_status tdm_require_cross_replica(const tdm_strategy *s, const char *func);

/* The global replica id (tdm_replica_id) of this process's replica 0: 0 but in
 * multi-worker jobs. */
size_t tdm_strategy_first_replica(const tdm_strategy *s);

/* Gathers one item from every replica (replica_gather.c): fn runs once, on the
 * thread that called run, in cross-replica mode, with items[i] from replica i and
 * the user_data of replica 0; it may fill results[i] (all NULL on entry), which
 * replica i receives in *result. Every replica must pass the same fn. */
typedef tdm_status (*tdm_gather_fn)(tdm_strategy *s, void *const *items, void *user_data,
                                    void **results);
tdm_status tdm_replica_gather(tdm_replica_context *rc, tdm_gather_fn fn, void *user_data,
                              void *item, void **result, const char *func);

/* Records the reduction of a loss computed under s, for tdm_get_loss_reduction. */
void tdm_strategy_note_loss_reduction(tdm_strategy *s, tdm_loss_reduction reduction);

/* Parameter-server jobs (strategy_job.c): this process's rank, whether the servers
 * take the pushes in turn (tdm_strategy_options.ordered_pushes), whether they drop a
 * lost worker (tolerate_lost_workers), the deadline of every wait, the rank of server
 * i (the servers are the last ranks), and messages between the job's processes with
 * that deadline; TDM_JOB_ANY as `from` takes whichever comes first. A poll waits
 * wait_s at most and gives *bytes NULL when nothing came. A poll that fails on one
 * rank's message (in *sender), and an answer that is not taken, leave the job's link
 * whole: a server goes on without that rank. */
#define TDM_JOB_ANY ((size_t)-1)
size_t tdm_strategy_job_rank(const tdm_strategy *s);
int tdm_strategy_job_ordered(const tdm_strategy *s);
int tdm_strategy_job_tolerates_lost_workers(const tdm_strategy *s);
double tdm_strategy_job_timeout(const tdm_strategy *s);
/* Whether any process of the job says yes: *any from every process's mine, by a host
 * all-reduce that every process calls at the same point (a multi-worker job's step);
 * a strategy of one process gives mine. */
tdm_status tdm_strategy_job_any(tdm_strategy *s, int mine, int *any);
size_t tdm_strategy_job_server_rank(const tdm_strategy *s, size_t server);
tdm_status tdm_strategy_job_send(tdm_strategy *s, size_t to, const void *bytes, size_t size,
                                 const char *what);
tdm_status tdm_strategy_job_receive(tdm_strategy *s, size_t from, const void **bytes,
                                    size_t *size, size_t *sender, const char *what);
tdm_status tdm_strategy_job_answer(tdm_strategy *s, size_t to, const void *bytes, size_t size,
                                   const char *what);
tdm_status tdm_strategy_job_poll(tdm_strategy *s, double wait_s, const void **bytes, size_t *size,
                                 size_t *sender, const char *what);

/* A rank of the job by its role, for messages: "rank 2 (parameter server 0)", "rank 0
 * (the chief, worker 0 of 2, training shard 0 of the data)". */
void tdm_strategy_job_describe_rank(const tdm_strategy *s, size_t rank, char *out, size_t size);

/* The collective options of the strategy's cross-device settings. */
tdm_collective_options tdm_strategy_collective_options(const tdm_strategy *s);

#endif
