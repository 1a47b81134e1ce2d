/* tandem: distribution strategies (TensorFlow's tf.distribute model).
 *
 * A strategy runs a replica function once per replica, each on its own device and
 * host thread, and offers the cross-device operations that join the replicas.
 * Every thread is in one of three modes:
 *   default        no scope entered: the context's default strategy, one replica,
 *                  reductions are identities;
 *   cross-replica  inside a strategy's scope (or a merge function), outside any
 *                  replica function;
 *   replica        inside a replica function that tdm_strategy_run called.
 * Cross-replica operations (reduce, reduce_to, batch_reduce_to, broadcast, update)
 * fail with TDM_ERR_INVALID_STATE from a replica function: use
 * tdm_replica_merge_call to step into cross-replica mode. */
#ifndef TANDEM_STRATEGY_H
#define TANDEM_STRATEGY_H

#include "tandem/values.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_strategy tdm_strategy;
typedef struct tdm_replica_context tdm_replica_context;

/* The kinds: TDM_STRATEGY_MIRRORED, ... (tandem/strategy_kinds.def lists them with
 * what each does). */
typedef enum tdm_strategy_kind {
#define TDM_STRATEGY_KIND(id, name, what) TDM_STRATEGY_##id,
#include "tandem/strategy_kinds.def"
#undef TDM_STRATEGY_KIND
    TDM_STRATEGY_KIND_COUNT
} tdm_strategy_kind;

/* The kind's name in tandem/strategy_kinds.def ("mirrored", "one-device", ...);
 * "unknown" out of range. */
TDM_API const char *tdm_strategy_kind_name(tdm_strategy_kind kind);
/* The kind of that name; TDM_ERR_NOT_FOUND listing the names for another. */
TDM_API tdm_status tdm_strategy_kind_parse(const char *name, tdm_strategy_kind *out);
/* Those names in the enum's order, NULL-terminated (static: never freed). */
TDM_API const char *const *tdm_strategy_kind_names(void);

typedef enum tdm_reduce_op {
    TDM_REDUCE_SUM,
    TDM_REDUCE_MEAN, /* SUM divided by the number of values (see each call) */
    TDM_REDUCE_MAX,  /* NaN wins */
    TDM_REDUCE_MIN
} tdm_reduce_op;

/* How values are all-reduced across devices. Every algorithm folds in replica order
 * (replica 0 first) with exact kernels: for a fixed replica count all return the
 * same bits. */
typedef enum tdm_collective_algorithm {
    TDM_COLLECTIVE_AUTO,       /* HOST for 2 MiB and more on CPU devices whose memory the
                                  host reaches; else DIRECT where every device shares
                                  memory, TREE where some do, RING where every pair
                                  copies directly, else HOST */
    TDM_COLLECTIVE_ONE_DEVICE, /* ReductionToOneDevice: reduce on one device, broadcast */
    TDM_COLLECTIVE_RING,       /* reduce-scatter then all-gather, one slice per device */
    TDM_COLLECTIVE_TREE,       /* hierarchical: devices sharing memory reduce locally,
                                  the groups' partials are chained, then broadcast */
    TDM_COLLECTIVE_DIRECT,     /* devices that share memory: each device folds its part
                                  of every peer's buffer in place and writes it to every
                                  destination (one OpenCL context, host memory) */
    TDM_COLLECTIVE_HOST        /* fold on the host in chunks, reading and writing device
                                  memory in place where the host can address it (CPU
                                  drivers, integrated GPUs), else through pinned staging:
                                  devices that cannot reach each other */
} tdm_collective_algorithm;

/* The algorithm's name: "auto", "one-device", "ring", "tree", "direct", "host"; NULL for a
 * value that names none (so callers may list them all by counting up from AUTO). */
TDM_API const char *tdm_collective_algorithm_name(tdm_collective_algorithm algorithm);

typedef struct tdm_strategy_options {
    size_t size;                        /* sizeof(tdm_strategy_options) */
    tdm_collective_algorithm algorithm; /* all-reduce algorithm; default AUTO */
    int reduce_device;                  /* ONE_DEVICE: the replica whose device reduces;
                                           -1 (default): the first */
    size_t num_packs;                   /* batch reductions: > 0 splits the tensors into
                                           this many packs of nearly equal size */
    size_t bytes_per_pack;              /* with num_packs 0: a pack closes before it would
                                           pass this many bytes; 0: one pack */
    int check_mirrored;                 /* debug: after every write of a mirrored variable,
                                           verify its copies are bitwise identical and fail
                                           naming the first difference. 1 on, 0 off, -1
                                           (default): TDM_CHECK_MIRRORED=1 in the environment */
    double collective_timeout;          /* multi-worker: seconds a collective waits for the
                                           other processes before it fails with
                                           TDM_ERR_TIMEOUT naming the missing ones; <= 0
                                           (default): TDM_COLLECTIVE_TIMEOUT, else 300 */
    int check_collectives;              /* multi-worker debug: every process announces each
                                           collective with its caller's description, and a
                                           call that differs on another process fails on
                                           both naming both. 1 on, 0 off (sizes and
                                           operations are always compared), -1 (default):
                                           TDM_CHECK_COLLECTIVES=1 in the environment */
    int ordered_pushes;                 /* parameter-server jobs: each server applies the
                                           workers' pushes in turn (worker 0, 1, ... and
                                           again), once every worker has joined, so that a
                                           job repeats bit for bit at the pace of its
                                           slowest worker. 1 on, 0 (default) off: in the
                                           order they arrive */
    int tolerate_lost_workers;          /* parameter-server jobs: a worker (not the chief)
                                           that sends nothing within collective_timeout is
                                           dropped and the others train on without its
                                           shard. 0 (default): the servers stop the job and
                                           every worker fails naming it */
    uint32_t reserved[1]; /* 0 (the INIT macro's): room for later fields, which a caller
                             built before them leaves 0 */
} tdm_strategy_options;

#define TDM_STRATEGY_OPTIONS_INIT                                                                  \
    {                                                                                              \
        .size = sizeof(tdm_strategy_options), .algorithm = TDM_COLLECTIVE_AUTO,                    \
        .reduce_device = -1, .check_mirrored = -1, .check_collectives = -1                         \
    }

/* One replica on `dev`. opts may be NULL. */
TDM_API tdm_status tdm_strategy_create_one_device(tdm_device *dev, const tdm_strategy_options *opts,
                                                  tdm_strategy **out);

/* One replica per device, in the order given: any devices of the context, logical
 * ones and mixed backends included, each at most once (and never two devices that
 * are the same hardware). devices NULL with count 0: the context's default devices
 * (tdm_context_default_devices: each piece of hardware once, GPUs when there are
 * any, else one CPU driver's devices, else the reference). */
TDM_API tdm_status tdm_strategy_create_mirrored(tdm_context *ctx, tdm_device *const *devices,
                                                size_t count, const tdm_strategy_options *opts,
                                                tdm_strategy **out);

/* Mirrored across processes (TensorFlow's MultiWorkerMirroredStrategy): every process
 * of the MPI job this one belongs to (started by mpirun) calls it, each with its own
 * local devices as for tdm_strategy_create_mirrored (the counts may differ). Replica
 * ids are global: rank 0's replicas first. Every collective spans every process, and
 * creating a variable gives every process the values of rank 0 (the chief). Needs
 * libtandem_mpi (built where Open MPI is installed), opened on this call:
 * TDM_ERR_UNSUPPORTED without it. A process that is not part of an MPI job is a job
 * of one. */
TDM_API tdm_status tdm_strategy_create_multi_worker(tdm_context *ctx, tdm_device *const *devices,
                                                    size_t count, const tdm_strategy_options *opts,
                                                    tdm_strategy **out);

/* Whether jobs of processes (tdm_strategy_create_multi_worker, parameter-server jobs
 * across processes) can run with this build here: TDM_OK with *message naming the
 * transport plugin it opened, else TDM_ERR_UNSUPPORTED with *message saying why (no
 * plugin found; the Windows build: not yet). Opens the plugin as those calls do;
 * *message is the library's own text, kept until the process ends. */
TDM_API tdm_status tdm_multi_process_support(const char **message);

/* TensorFlow's parameter-server strategy in one process: one replica per worker
 * device (checked as for tdm_strategy_create_mirrored), and parameter devices that
 * hold the variables. Each mirrored (ON_WRITE) variable is placed on one parameter
 * device, round-robin in creation order (the first on ps[0], the second on ps[1],
 * ...): that copy, its home, is the variable's value, and the optimizer keeps the
 * variable's slots there alone. Every worker device holds a cached copy that its
 * replica reads. Gradients are summed over the replicas, the update runs once at the
 * home, and the caches take the new value before the next step reads them, so the
 * training is synchronous and matches mirrored training of the same steps. A
 * parameter device may also be a worker device. Sync-on-read variables stay with the
 * replicas, a copy each. */
TDM_API tdm_status tdm_strategy_create_parameter_server(
    tdm_context *ctx, tdm_device *const *workers, size_t worker_count, tdm_device *const *ps,
    size_t ps_count, const tdm_strategy_options *opts, tdm_strategy **out);

/* TensorFlow's parameter-server strategy across processes: every process of the MPI
 * job calls it; the last ps_processes ranks are parameter servers, the others workers
 * (rank 0 the chief). A worker runs one replica per device given, synchronously among
 * them as mirrored training does; its train op sends the replicas' summed gradients
 * to the servers every step and takes the new values back, without waiting for the
 * other workers. A server keeps and updates the trainable variables it is given (round-
 * robin in the train op's order over the servers) on its devices[0], serving them with
 * tdm_optimizer_serve. Every request has the collective_timeout deadline: a server
 * that does not answer is named by the workers, and a worker that disappears by the
 * servers. Needs libtandem_mpi and a job of at least ps_processes + 1 processes. */
TDM_API tdm_status tdm_strategy_create_parameter_server_job(tdm_context *ctx,
                                                            tdm_device *const *devices,
                                                            size_t count, size_t ps_processes,
                                                            const tdm_strategy_options *opts,
                                                            tdm_strategy **out);

/* Parameter-server processes of the strategy's job (0 for other strategies), and
 * whether this process is one of them. */
TDM_API size_t tdm_strategy_num_parameter_servers(const tdm_strategy *s);
TDM_API int tdm_strategy_is_parameter_server(const tdm_strategy *s);

/* Parameter devices of a parameter-server strategy (0 for other kinds), and the i-th
 * of them or NULL. */
TDM_API size_t tdm_strategy_num_parameter_devices(const tdm_strategy *s);
TDM_API tdm_device *tdm_strategy_parameter_device(const tdm_strategy *s, size_t i);

/* Multi-worker: every process passes a buffer of the same size; afterwards every one
 * holds the chief's bytes (a collective: every process calls it, in the same order as
 * its other collectives). A strategy of one process leaves the bytes as they are. */
TDM_API tdm_status tdm_strategy_broadcast_host(tdm_strategy *s, void *bytes, size_t size);

/* One thing every process of a job must agree on: its name as the caller's users know
 * it ("--lr") and its value as text ("0.001"). */
typedef struct tdm_agreement_item {
    const char *name;
    const char *value;
} tdm_agreement_item;

/* Multi-worker and parameter-server jobs: every process passes what must agree across
 * the job (the model, the optimizer, the batch, the data...), before its first step;
 * items are compared by name. TDM_OK when every process's items are the chief's;
 * otherwise TDM_ERR_INVALID_ARGUMENT in every process, naming the first process that
 * differs, the first item where it does and both values: "rank 1 differs from rank 0
 * in --lr: 0.01 against 0.001". The job's deadline (collective_timeout) is compared
 * too, as one more item. A collective, like tdm_strategy_broadcast_host; a strategy
 * of one process returns TDM_OK. */
TDM_API tdm_status tdm_strategy_check_agreement(tdm_strategy *s, const tdm_agreement_item *items,
                                                size_t count);

/* Processes (workers) of the strategy's job, this process's index among them (0 is the
 * chief), and whether it is the chief: 1, 0, 1 for strategies of one process. In a
 * parameter-server job the servers are not workers: a server's index is its rank. */
TDM_API size_t tdm_strategy_num_workers(const tdm_strategy *s);
TDM_API size_t tdm_strategy_worker_index(const tdm_strategy *s);
TDM_API int tdm_strategy_is_chief(const tdm_strategy *s);
/* Replicas of this process: tdm_strategy_num_replicas for strategies of one process. */
TDM_API size_t tdm_strategy_num_local_replicas(const tdm_strategy *s);

/* The context's default strategy (one replica on the first default device), owned
 * by the context: never destroy it. */
TDM_API tdm_status tdm_strategy_default(tdm_context *ctx, tdm_strategy **out);

/* Releases the strategy and its variables. It must not be running or entered.
 * NULL-safe; the default strategy is left alone. */
TDM_API void tdm_strategy_destroy(tdm_strategy *s);

TDM_API tdm_strategy_kind tdm_strategy_kind_of(const tdm_strategy *s);
/* Replicas that run in sync, over every process: TensorFlow's num_replicas_in_sync. */
TDM_API size_t tdm_strategy_num_replicas(const tdm_strategy *s);
/* The device of this process's replica i (0 .. num_local_replicas - 1), or NULL. */
TDM_API tdm_device *tdm_strategy_device(const tdm_strategy *s, size_t replica);

/* Relative shares of every global batch the replicas receive from distributed
 * input (tdm_distribute_dataset), shares[i] >= 0 for replica i, not all 0: each
 * batch of B examples gives replica i floor(B * share_i / sum) rows, and the rows
 * left over go to the largest remainders (ties: the lower replica). Equal shares,
 * the default, give TensorFlow's even split. The loss is divided by the global batch
 * either way, so the summed gradient does not depend on the split (up to rounding).
 * The train op's `balance` sets them from each replica's measured speed. */
TDM_API tdm_status tdm_strategy_set_batch_shares(tdm_strategy *s, const double *shares,
                                                 size_t count);
TDM_API tdm_status tdm_strategy_batch_shares(tdm_strategy *s, double *shares, size_t count);

/* Enters the strategy's scope on the calling thread (cross-replica mode). Entering
 * the scope already entered nests; entering another strategy's scope inside it is
 * TDM_ERR_INVALID_STATE ("mixing strategies"). Each enter needs one exit. Calls that
 * take the strategy need no scope; those that find it from the thread do
 * (tdm_strategy_current, tdm_has_strategy, tdm_in_cross_replica_context,
 * tdm_get_loss_reduction), and tdm_strategy_run enters it for its own duration. */
TDM_API tdm_status tdm_strategy_scope_enter(tdm_strategy *s);
TDM_API tdm_status tdm_strategy_scope_exit(tdm_strategy *s);

/* The strategy of the calling thread's scope or replica function, else the
 * context's default strategy. */
TDM_API tdm_status tdm_strategy_current(tdm_context *ctx, tdm_strategy **out);

/* The calling thread's replica context, NULL outside replica functions. */
TDM_API tdm_replica_context *tdm_replica_context_current(void);

/* 1 in cross-replica mode (a scope entered, no replica function running on this
 * thread, or inside a merge function), else 0. */
TDM_API int tdm_in_cross_replica_context(void);

/* 1 when a strategy other than a context's default is current on the calling thread
 * (its scope entered, or in one of its replica functions): TensorFlow's has_strategy. */
TDM_API int tdm_has_strategy(void);

/* TDM_OK when the calling thread runs rc's replica function; otherwise
 * TDM_ERR_INVALID_STATE saying where it is instead (cross-replica mode, another
 * replica's function, no strategy at all): TensorFlow's require_replica_context. */
TDM_API tdm_status tdm_require_replica_context(const tdm_replica_context *rc);

/* How the optimizer should treat gradients of the losses computed under the current
 * strategy (TensorFlow's get_loss_reduction): TDM_REDUCE_MEAN when the last loss
 * computed under it (tdm_compute_average_loss, or a train op's loss) was averaged over
 * the global batch, TDM_REDUCE_SUM when it was a plain sum, and TDM_REDUCE_SUM under
 * a context's default strategy or before any loss was computed. */
TDM_API tdm_reduce_op tdm_get_loss_reduction(void);

/* A replica function; a status other than TDM_OK stops the run (replicas waiting in
 * merge_call are released with TDM_ERR_CANCELLED) and becomes run's status. */
typedef tdm_status (*tdm_replica_fn)(tdm_replica_context *rc, void *user_data);

/* Calls fn once per replica, concurrently, each on its own thread with its replica
 * context; tdm_replica_arg gives each its component of args (PER_REPLICA and
 * MIRRORED values: component i for replica i; PLAIN values: a copy on the replica's
 * device). If result is non-NULL it receives the PER_REPLICA value of the tensors
 * the replicas handed to tdm_replica_set_result (NULL if none did). Runs in the
 * strategy's scope; from a replica function it is TDM_ERR_INVALID_STATE. */
TDM_API tdm_status tdm_strategy_run(tdm_strategy *s, tdm_replica_fn fn, void *user_data,
                                    tdm_value *const *args, size_t arg_count, tdm_value **result);

/* TensorFlow's replica_id_in_sync_group, in [0, num_replicas): global across the
 * processes of a multi-worker job. */
TDM_API size_t tdm_replica_id(const tdm_replica_context *rc);
/* The replica's index among this process's replicas: its device is
 * tdm_strategy_device(s, tdm_replica_local_id(rc)). Equal to tdm_replica_id for
 * strategies of one process. */
TDM_API size_t tdm_replica_local_id(const tdm_replica_context *rc);
TDM_API size_t tdm_replica_num_replicas(const tdm_replica_context *rc);
TDM_API tdm_device *tdm_replica_device(const tdm_replica_context *rc);
TDM_API tdm_strategy *tdm_replica_strategy(const tdm_replica_context *rc);

/* This replica's component of run's argument i, or NULL if there is no argument i. */
TDM_API tdm_tensor *tdm_replica_arg(const tdm_replica_context *rc, size_t i);

/* Hands t (on this replica's device) to run's result; the run takes it over (and
 * releases this replica's earlier result, if any). On failure the caller still owns
 * t. */
TDM_API tdm_status tdm_replica_set_result(tdm_replica_context *rc, tdm_tensor *t);

/* Every replica calls it with its float32 tensor of one shape; each receives op over
 * all replicas' values in place (MEAN divides by the number of replicas). The
 * replica's later work on its device, and reads of the tensor, see the result; the
 * call does not wait for the devices to finish. tdm_replica_all_reduce_start, then
 * tdm_pending_wait.
 * A float16 tensor (an even number of elements) is reduced in float16 for SUM and
 * MEAN, half the bytes to move: each partial sum is rounded to float16 as it is
 * handed on (the additions in float), in replica order, so every algorithm and
 * device gives the same bits; a sum past 65504 is infinity. MAX and MIN of float16
 * values are TDM_ERR_UNSUPPORTED. */
TDM_API tdm_status tdm_replica_all_reduce(tdm_replica_context *rc, tdm_reduce_op op,
                                          tdm_tensor *value);

/* An all-reduce started and not yet waited for. */
typedef struct tdm_pending tdm_pending;

/* Starts the all-reduce of tdm_replica_all_reduce and returns at once, so that the
 * replica can issue other work meanwhile (the next layer's backward pass). Each
 * replica's k-th start in a run meets every other replica's k-th: the calls must
 * come in the same order with the same op, dtype and size, and a mismatch fails the run
 * naming both sides. Until tdm_pending_wait returns, nothing may read or write the
 * tensor, on the device or the host, nor start another collective on it. */
TDM_API tdm_status tdm_replica_all_reduce_start(tdm_replica_context *rc, tdm_reduce_op op,
                                                tdm_tensor *value, tdm_pending **out);

/* Waits until the collective is issued on every device and this replica's device is
 * ordered after it, then releases the handle: it must not be used again. A replica
 * that failed before joining releases the others with TDM_ERR_CANCELLED. Collectives
 * a replica function started and did not wait for are waited for when it returns,
 * and handles end with the run. */
TDM_API tdm_status tdm_pending_wait(tdm_pending *p);

/* *done = 1 once the all-reduce, and whatever its devices were given before, has
 * completed on every device; never blocks. A failed all-reduce returns its error. */
TDM_API tdm_status tdm_pending_query(tdm_pending *p, int *done);

/* All-gather: every replica calls it with its tensor `value` of N elements and an
 * `output` of N times the replica count, both of one dtype (f32, or f16 with N even)
 * on the replica's device; each output receives every replica's value concatenated
 * in replica order. In place: value may be the slice of output at element
 * id * N (tdm_tensor_slice); any other overlap is refused. Ordered and started like
 * tdm_replica_all_reduce; until tdm_pending_wait returns nothing may touch either
 * tensor. A count that is not exactly N times the replicas is
 * TDM_ERR_INVALID_ARGUMENT: pad the tensors. */
TDM_API tdm_status tdm_replica_all_gather(tdm_replica_context *rc, tdm_tensor *value,
                                          tdm_tensor *output);
TDM_API tdm_status tdm_replica_all_gather_start(tdm_replica_context *rc, tdm_tensor *value,
                                                tdm_tensor *output, tdm_pending **out);

/* Reduce-scatter: every replica calls it with `value` of N times the replica count
 * elements and an `output` of N; replica i's output receives op over elements
 * [i * N, (i + 1) * N) of every replica's value, folded in replica order: the bits of
 * that slice of tdm_replica_all_reduce (MEAN divides by the replica count). In
 * place: output may be the slice of value at element id * N. dtypes, ordering and
 * refusals as tdm_replica_all_gather; f16 MAX and MIN as tdm_replica_all_reduce. */
TDM_API tdm_status tdm_replica_reduce_scatter(tdm_replica_context *rc, tdm_reduce_op op,
                                              tdm_tensor *value, tdm_tensor *output);
TDM_API tdm_status tdm_replica_reduce_scatter_start(tdm_replica_context *rc, tdm_reduce_op op,
                                                    tdm_tensor *value, tdm_tensor *output,
                                                    tdm_pending **out);

/* Reduce to one replica: every replica calls it with its tensor `value` (dtypes as
 * tdm_replica_all_reduce's) and the same `root`, a replica id (tdm_replica_id) of the
 * job; the root's `output`, of the value's size and dtype on its device, receives op
 * over every replica's value folded in replica order: the bits of
 * tdm_replica_all_reduce (MEAN divides by the replica count). No other replica's
 * tensors are written. output NULL, or the value itself: in place; any other overlap
 * is refused. Ordered and started like tdm_replica_all_reduce; until tdm_pending_wait
 * returns nothing may touch either tensor. A root past the replicas, or an output of
 * another size, dtype or device, is TDM_ERR_INVALID_ARGUMENT; replicas naming
 * different roots fail the run naming both. */
TDM_API tdm_status tdm_replica_reduce(tdm_replica_context *rc, tdm_reduce_op op, tdm_tensor *value,
                                      tdm_tensor *output, size_t root);
TDM_API tdm_status tdm_replica_reduce_start(tdm_replica_context *rc, tdm_reduce_op op,
                                            tdm_tensor *value, tdm_tensor *output, size_t root,
                                            tdm_pending **out);

/* Broadcast from one replica: every replica calls it with `value` and the same
 * `root`; every replica's output (NULL, or the value itself: in place) receives the
 * root's value, byte for byte. Tensors, ordering and refusals as tdm_replica_reduce. */
TDM_API tdm_status tdm_replica_broadcast(tdm_replica_context *rc, tdm_tensor *value,
                                         tdm_tensor *output, size_t root);
TDM_API tdm_status tdm_replica_broadcast_start(tdm_replica_context *rc, tdm_tensor *value,
                                               tdm_tensor *output, size_t root, tdm_pending **out);

/* A merge function: runs once, in cross-replica mode, with the replicas' values
 * gathered into a PER_REPLICA value (borrowed; NULL when the replicas passed none).
 * It may set *result to a value of one component per replica (taken over: replica i
 * receives component i). */
typedef tdm_status (*tdm_merge_fn)(tdm_strategy *s, const tdm_value *gathered, void *user_data,
                                   tdm_value **result);

/* Pauses until every replica has called merge_call, runs fn once, then resumes each
 * replica with its component of fn's result in *out (the replica owns it; NULL if
 * none; out may be NULL to discard it). Every replica must pass the same fn and
 * either all a value or all NULL. */
TDM_API tdm_status tdm_replica_merge_call(tdm_replica_context *rc, tdm_merge_fn fn, void *user_data,
                                          tdm_tensor *value, tdm_tensor **out);

/* Reduce along no axis: element-wise across the replicas only. */
#define TDM_AXIS_NONE (-1)

/* Strategy.reduce, cross-replica: reduces a value's components to one tensor on
 * replica 0's device. axis TDM_AXIS_NONE: element-wise, the shapes must match.
 * axis k: each component is reduced along dimension k (the other dimensions must
 * match), then the results are combined; MEAN divides by the total count along k
 * over all replicas. MEAN of i32 values gives f32. A PLAIN value is returned as is
 * for MEAN, MAX, MIN and for one replica; SUM of it with N > 1 is an error. */
TDM_API tdm_status tdm_strategy_reduce(tdm_strategy *s, tdm_reduce_op op, const tdm_value *value,
                                       int axis, tdm_tensor **out);

/* Cross-device reduce: op over value's components, written to every destination
 * device (dests NULL: the value's own devices; an empty set is an error) as a
 * MIRRORED value. MEAN divides by the number of components. */
TDM_API tdm_status tdm_strategy_reduce_to(tdm_strategy *s, tdm_reduce_op op, const tdm_value *value,
                                          tdm_device *const *dests, size_t dest_count,
                                          tdm_value **out);

/* reduce_to of `count` values at once; values on their own devices (dests NULL) are
 * all-reduced in packs (the strategy's num_packs / bytes_per_pack). out receives
 * `count` MIRRORED values. */
TDM_API tdm_status tdm_strategy_batch_reduce_to(tdm_strategy *s, tdm_reduce_op op,
                                                const tdm_value *const *values, size_t count,
                                                tdm_device *const *dests, size_t dest_count,
                                                tdm_value **out);

/* Cross-replica all-gather: value has one component per replica (PER_REPLICA or
 * MIRRORED, f32 or f16, each of N elements, on the strategy's devices in replica
 * order); *out is a MIRRORED value of flat tensors of N times the replica count
 * elements, every component concatenated in replica order (f16: N even). In a
 * multi-worker job every process calls it with its own replicas' components, and
 * the replica count and order are the job's. */
TDM_API tdm_status tdm_strategy_all_gather(tdm_strategy *s, const tdm_value *value,
                                           tdm_value **out);

/* Cross-replica reduce-scatter: value as tdm_strategy_all_gather's, each component
 * of N elements, N a multiple of the replica count R (else TDM_ERR_INVALID_ARGUMENT:
 * pad it); *out is a PER_REPLICA value whose component i (N / R elements, flat)
 * holds op over elements [i * N / R, (i + 1) * N / R) of every component, folded in
 * replica order: the bits of that slice of tdm_strategy_reduce_to. */
TDM_API tdm_status tdm_strategy_reduce_scatter(tdm_strategy *s, tdm_reduce_op op,
                                               const tdm_value *value, tdm_value **out);

/* Copies t to every destination device (dests NULL: the strategy's devices) as a
 * MIRRORED value. */
TDM_API tdm_status tdm_strategy_broadcast(tdm_strategy *s, const tdm_tensor *t,
                                          tdm_device *const *dests, size_t dest_count,
                                          tdm_value **out);

#ifdef __cplusplus
}
#endif
#endif
