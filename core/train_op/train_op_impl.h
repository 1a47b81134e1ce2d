/* Internal: the train op's struct, shared by its construction, its step and its
 * gradient handling. */
#ifndef TDM_TRAIN_OP_IMPL_H
#define TDM_TRAIN_OP_IMPL_H

#include "tandem/train.h"

#include "tandem/strategy.h"
#include "optimizer/optimizer_impl.h"

/* One replica's flat buffer: every gradient side by side in reverse variable order,
 * then the loss, cut into buckets that are all-reduced one by one. */
typedef struct tdm_train_replica {
    struct tdm_train_op *op;
    tdm_replica_context *rc; /* during a step */
    tdm_tensor *flat;        /* [total + 1] */
    tdm_tensor **grads;      /* slices of flat, one per variable, in its shape */
    tdm_tensor *all;         /* the gradients the update reads: slice of flat, [total],
                                or with shards the gradient part of shard */
    tdm_tensor *loss;        /* flat's (or with shards shard's) last element */
    tdm_tensor *sums;        /* what the checks read after the reductions: flat, or shard */
    /* With shard_optimizer (else NULL): this replica's slice of every bucket side by
     * side, [owned + 1] (the gradients' sums, then the updated weights; the loss
     * last), its per-bucket slices, the slots over it and a flag the replicas agree
     * on. */
    tdm_tensor *shard;
    tdm_tensor **shard_parts;                   /* [bucket_count]: slices of shard */
    tdm_tensor *shard_slots[TDM_OPT_MAX_SLOTS]; /* [owned] each */
    tdm_tensor *agree;                          /* [1] */
    tdm_tensor *scratch;                        /* partial results of checks and norms */
    float *scratch_host;    /* scratch_count floats: the all-finite flags read back */
    tdm_buffer_view *views; /* the gradients as views, for the optimizer */
    /* One update launch (train_op_arena.c; NULL where it does not apply): the
     * replica's copies of the variables [0] and of each slot [1 + k], laid out as
     * the gradients in flat; the variables own slices of them. */
    tdm_tensor *arena[1 + TDM_OPT_MAX_SLOTS];
    tdm_tensor **arena_gather; /* sharded: [2 * bucket_count], per bucket its slice of
                                  arena[0] and this replica's part of it */
    tdm_tensor **buckets;      /* [bucket_count]: slices of flat */
    /* With all_reduce_dtype F16 (else NULL), per bucket: its gradients (the loss stays
     * float32 and out), and their float16 copy, which is what is all-reduced, padded
     * to an even count with a zero. */
    tdm_tensor **bucket_grads;  /* [bucket_count]: slices of flat */
    tdm_tensor **bucket_halves; /* [bucket_count]: [even count] */
    tdm_tensor **halves_used;   /* [bucket_count]: slices of bucket_halves, [count] */
    tdm_pending **pending;      /* [bucket_count + 1]: this step's all-reduces (the last:
                                   the loss's own, with F16) */
    size_t *unready;            /* [bucket_count]: gradients (and, in the last, the loss)
                                   not yet ready this step */
    unsigned char *ready;       /* [var_count] */
    size_t started;             /* buckets started this step */
    int timed;                  /* this step measures the loss function: no early starts */
    int loss_known;             /* this step's loss is in loss_read: the step's end
                                   need not wait for the update to read it */
    float loss_read;
    double began, seconds; /* when the loss function began; how long it took */
    int f32_throughout;    /* this step's loss function said its gradients never
                              passed through f16 (tdm_loss_args_f32_throughout) */
    tdm_train_profile profile;
    struct tdm_trace_replica *trace; /* this step's times, when it is traced */
} tdm_train_replica;

struct tdm_train_op {
    tdm_strategy *strategy;
    tdm_train_op_options opts;
    tdm_variable **vars;
    size_t var_count;
    tdm_variable **slot_vars; /* [var_count * slots]: the optimizer's, where the
                                 replicas update in place; else NULL */
    tdm_variable **states;    /* opts.state_list, kept */
    size_t state_count;
    size_t total;      /* gradient elements over every variable; unsharded, with the
                          gaps that start each at a multiple of 4 (tdm_train_layout) */
    size_t flat_count; /* flat's elements before the loss: total, or with shards the
                          padded buckets */
    size_t shards;     /* shard_optimizer: the job's replicas (each bucket padded to a
                          multiple); else 0 */
    size_t owned;      /* with shards: flat_count / shards, each replica's slice */
    size_t *offsets;   /* [var_count]: each gradient's first element in flat */
    size_t *bucket_of; /* [var_count] */
    size_t bucket_count;
    size_t *bucket_end;  /* [bucket_count]: bucket k is flat[end[k - 1], end[k]) */
    size_t *bucket_vars; /* [bucket_count]: the variables in each */
    size_t scratch_count;
    int resync;                      /* transforms on devices that round differently:
                                        replica 0's update is copied to the others */
    tdm_tensor **home_grads;         /* parameter-server: [var_count], each on its variable's
                                        home; NULL for other strategies */
    struct tdm_train_remote *remote; /* a parameter-server job's worker: its servers */
    tdm_train_replica *replicas;
    uint64_t global_step;
    const tdm_distributed_batch *batch; /* during a step */
    double loss;                        /* the step's, read by replica 0 */
    tdm_gradient_summary *summaries;    /* [var_count], when asked for */
    float loss_scale;                   /* dynamic loss scaling: the current scale */
    uint32_t good_steps;                /* finite steps in a row at this scale */
    uint64_t skipped_steps;             /* steps skipped for overflow */
    int step_overflowed;                /* this step's gradients were not all finite */
    int scale_idle; /* the last step's gradients were f32 throughout, on every replica of
                       a one-process job that all-reduces in f32: the scale guards
                       nothing, so this step neither scales nor checks (the scale and
                       its counters stay) */
    double *rates;  /* [replicas]: balance's examples per second */
    int profiling;
    int have_summaries;
    struct tdm_train_trace *trace; /* tdm_train_op_trace's, or NULL */
    struct tdm_trace_step *traced; /* this step's times, when it is traced */
    double input_wait[2];          /* the step's wait for its batch (a step's note) */
};

/* Whether this step scales the loss and checks the gradients for overflow. */
static inline int tdm_train_scaling(const struct tdm_train_op *op)
{
    return op->opts.loss_scale > 0.0f && !op->scale_idle;
}

/* train_op_buckets.c: the layout of flat (offsets and buckets) from the options. */
tdm_status tdm_train_layout(tdm_train_op *op);
/* A replica's bucket slices and state. */
tdm_status tdm_train_buckets_make(tdm_train_op *op, tdm_train_replica *r);
void tdm_train_buckets_free(tdm_train_op *op, tdm_train_replica *r);
/* Before the loss function: nothing ready, nothing started. */
void tdm_train_buckets_begin(tdm_train_replica *r, tdm_replica_context *rc);
/* After it: the rest is ready; starts what is left and waits for every bucket. */
tdm_status tdm_train_buckets_finish(tdm_train_replica *r);

/* train_op_arena.c (docs/design/006-one-update-launch.md): after the replicas
 * are made, each replica's copies of the variables and of their slots (sharded: the
 * weights alone) moved into arenas, where every copy the update writes is the
 * replica's own; whether its arenas still hold every copy (another op over the same
 * variables may have moved them); a replica's unsharded update, one launch where
 * they do, else one per variable; the arenas let go (the variables keep the memory
 * alive). */
tdm_status tdm_train_arena_make(tdm_train_op *op);
int tdm_train_arena_intact(const tdm_train_op *op, const tdm_train_replica *r, tdm_device *dev);
tdm_status tdm_train_arena_update(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r);
void tdm_train_arena_free(tdm_train_op *op, tdm_train_replica *r);

/* train_op_shard.c, shard_optimizer (docs/modules/train.md, "Sharded optimizer
 * state"): the refusals at create time, then shards set; the buckets padded to a multiple of the
 * replicas; a replica's shard and slots; the element range [*first, *first + *n) of
 * variable i that replica `id` owns, at *at in its shard (0: none); slices of a tensor
 * laid out as a shard, one per bucket, into parts[bucket_count]; after the
 * checks, the update of the owned ranges and the all-gather of the weights into every
 * copy; whether every replica's sums are finite (finite: this replica's); the error
 * naming what is not. */
tdm_status tdm_train_shard_check(tdm_train_op *op);
void tdm_train_shard_pad(tdm_train_op *op);
tdm_status tdm_train_shard_make(tdm_train_op *op, tdm_train_replica *r);
tdm_status tdm_train_shard_slices(const tdm_train_op *op, tdm_tensor *shard, tdm_tensor **parts);
void tdm_train_shard_free(tdm_train_op *op, tdm_train_replica *r);
int tdm_train_shard_range(const tdm_train_op *op, size_t i, size_t id, size_t *first, size_t *n,
                          size_t *at);
tdm_status tdm_train_shard_update(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r);
tdm_status tdm_train_shard_agree(tdm_replica_context *rc, tdm_train_replica *r, int *finite);
tdm_status tdm_train_shard_numeric_error(const tdm_train_op *op, tdm_replica_context *rc,
                                         tdm_train_replica *r);
/* train_op_shard_state.c: the slots in a checkpoint, whole, under the names
 * unsharded slots have: all-gathered from the replicas' shards, each process taking
 * its replicas' parts back. Saving is a collective of the job's processes: the chief
 * passes its writer, every other process w NULL (tdm_monitor_save does). */
tdm_status tdm_train_shard_save(const tdm_train_op *op, tdm_checkpoint_writer *w);
tdm_status tdm_train_shard_restore(tdm_train_op *op, const tdm_checkpoint *c);

/* train_op_homes.c, parameter-server strategies: a gradient buffer at each
 * variable's home; after the replicas' all-reduce, the update of every variable at
 * its home from replica 0's sum, and the caches refreshed. */
tdm_status tdm_train_homes_make(tdm_train_op *op);
void tdm_train_homes_free(tdm_train_op *op);
tdm_status tdm_train_update_homes(tdm_train_op *op);

/* train_op_remote.c, a parameter-server job's worker: joining the servers (and
 * taking their values and global step), one step's push of replica 0's summed
 * gradients and the new values written into every copy (*step: the servers' global
 * step), and the goodbye. */
typedef struct tdm_train_remote tdm_train_remote;
tdm_status tdm_train_remote_open(tdm_train_op *op);
tdm_status tdm_train_remote_step(tdm_train_op *op, uint64_t *step);
void tdm_train_remote_close(tdm_train_op *op);

/* train_op_remote_state.c, the worker's checkpoint state: the servers' variables and
 * slots taken at one global step, *step (nothing without servers; the monitor names
 * the checkpoint for it before tdm_train_op_save writes them); written; and, from a
 * checkpoint, sent back to the servers by the chief (every other worker restores its
 * local copies). */
tdm_status tdm_train_remote_fetch(const tdm_train_op *op, uint64_t *step);
/* The step of the state tdm_train_remote_save writes: the one taken for it, else
 * taken now. */
tdm_status tdm_train_remote_state_step(const tdm_train_op *op, uint64_t *step);
tdm_status tdm_train_remote_save(const tdm_train_op *op, tdm_checkpoint_writer *w);
tdm_status tdm_train_remote_restore(const tdm_train_op *op, const tdm_checkpoint *c, uint64_t step);

/* train_op_timing.c: whether this step is one that balance measures, and after
 * it, the strategy's new batch shares. */
int tdm_train_balance_measures(const tdm_train_op *op);
tdm_status tdm_train_balance_update(tdm_train_op *op, const tdm_distributed_batch *batch);
/* A step's note, before it runs the train op: when it waited for the batch. */
void tdm_train_op_note_input(tdm_train_op *op, double began, double ended);

/* After the all-reduce, on every replica: TDM_ERR_NUMERIC naming the loss or the
 * first variable whose gradient holds a NaN or an infinity. */
tdm_status tdm_train_check_numerics(tdm_train_op *op, tdm_replica_context *rc,
                                    tdm_train_replica *r);

/* After the all-reduce, on every replica: whether the loss and every gradient are
 * finite (with shards: every replica's, which they agree on). With take_loss the
 * loss comes back to the host in the same read, into loss_read. */
tdm_status tdm_train_all_finite(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r,
                                int take_loss, int *finite);

/* train_op_loss_scale.c, dynamic loss scaling: the step's gradients divided by the
 * scale, or the step marked skipped when they overflowed (on every replica, which
 * all see the same sums); after the step, the scale's update. */
tdm_status tdm_train_unscale(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r,
                             int *skip);
void tdm_train_loss_scale_update(tdm_train_op *op);
/* After a step: whether the next one may leave the loss unscaled (scale_idle). */
int tdm_train_scale_guards_nothing(const tdm_train_op *op);

/* Clipping and the user's transform, on every replica. */
tdm_status tdm_train_transform(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r);

/* Replica 0: each variable's gradient norm and histogram, from a host copy. */
tdm_status tdm_train_summarize(tdm_train_op *op, tdm_train_replica *r);

/* Calls fn on every trained variable and each of its slots, in a fixed order (with
 * shards the slots are no variables: the variables alone). */
typedef tdm_status (*tdm_train_var_fn)(void *ctx, tdm_variable *var);
tdm_status tdm_train_each_variable(const tdm_train_op *op, tdm_train_var_fn fn, void *ctx);

/* Cross-replica, after a step with a clipping norm or a transform computed on
 * devices that round differently, or after a failed update: copies the copy that
 * holds each value (replica 0's, or a home) of the variables and slots to the
 * others, so the copies stay bitwise identical. */
tdm_status tdm_train_resync(tdm_train_op *op);

#endif
