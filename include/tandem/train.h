/* tandem: the train op (TensorFlow's create_train_op): one synchronous training step
 * on every replica of a strategy.
 *
 * A step runs the loss function on each replica's slice of the batch, all-reduces
 * the replicas' gradients and losses with SUM in buckets that overlap the backward
 * pass (tdm_loss_args_gradient_ready), checks them
 * (check_numerics), transforms them (clipping, a callback), and applies the
 * optimizer on every replica with the identical reduced gradients, so the mirrored
 * copies stay bitwise identical. The global step advances once per step. */
#ifndef TANDEM_TRAIN_H
#define TANDEM_TRAIN_H

#include "tandem/checkpoint.h"
#include "tandem/input.h"
#include "tandem/nn.h"
#include "tandem/optimizer.h"
#include "tandem/variable.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_train_op tdm_train_op;

/* What a loss function receives: one replica's slice of the step, and where its
 * results go. */
typedef struct tdm_loss_args {
    tdm_replica_context *rc;    /* the replica; its device holds every tensor below */
    const tdm_tensor *features; /* f32 [rows, feature_count] */
    const tdm_tensor *labels;   /* i32 [rows] class labels, i32 [rows, width] a sequence's
                                   (negative: masked), or f32 [rows, width] targets */
    size_t rows;                /* this replica's examples; may be 0 (an empty slice) */
    size_t global_batch_size;   /* the step's examples over every replica */
    size_t first_row;           /* this slice's first row within the global batch */
    uint64_t step;              /* the global step this step computes */
    uint64_t seed;              /* the train op's seed (dropout masks) */
    tdm_loss_reduction reduction;
    tdm_variable *const *vars; /* the variables being trained */
    tdm_tensor *const *grads;  /* write d(loss) / d(vars[i]) into grads[i] (f32, the
                                  variable's shape) */
    size_t var_count;
    tdm_tensor *loss;                /* write this replica's share of the step's loss (f32,
                                        one element): see tdm_loss_args_scale */
    struct tdm_train_replica *train; /* the train op's own state for this replica:
                                        tdm_loss_args_gradient_ready uses it */
    float loss_scale;                /* the train op's dynamic loss scale, in tdm_loss_args_scale;
                                        0 or 1 when off */
} tdm_loss_args;

/* A loss function: called on every replica's thread, in its replica context. It
 * must write every gradient and the loss, also for an empty slice (zeros). */
typedef tdm_status (*tdm_loss_fn)(const tdm_loss_args *args, void *user);

/* The factor per-example losses and their gradients are multiplied by so that the
 * replicas' shares sum to the step's loss: 1 / global_batch_size for
 * SUM_OVER_BATCH_SIZE (0 for an empty step), 1 for SUM; times the loss scale when
 * the train op scales the loss (tdm_train_op_options.loss_scale). */
TDM_API float tdm_loss_args_scale(const tdm_loss_args *args);

/* Optional, from a loss function: grads[i] is final. The train op's gradients are
 * all-reduced in buckets (tdm_train_op_options.bucket_bytes), the last layer's
 * first; a bucket's all-reduce starts as soon as every gradient in it is ready and
 * the buckets before it have started, and overlaps the rest of the backward pass.
 * Whatever is not marked is taken as ready when the loss function returns, and the
 * last bucket, which carries the loss, starts then. The results are the same bits
 * as without marks. Outside a train op's step it does nothing. */
TDM_API tdm_status tdm_loss_args_gradient_ready(const tdm_loss_args *args, size_t i);

/* Optional, from a loss function, each step: this step's gradients never passed
 * through f16 (no f16 operand, activation or sum), so a loss scale guards nothing in
 * them. Where every replica says so in a job of one process that all-reduces in
 * f32, the train op's next step leaves the loss unscaled (args->loss_scale 1) and
 * skips the overflow check, the read back and the unscaling (a power-of-two scale
 * changes no bit otherwise); the scale and its counters stay as they are, and the
 * first step that does not say so scales again. tdm_model_loss says so in mixed
 * precision where every layer's products on the replica's device are f32
 * (tdm_model_mixed_products_used); an f32 model given a scale keeps it working.
 * Outside a train op's step it does nothing. */
TDM_API tdm_status tdm_loss_args_f32_throughout(const tdm_loss_args *args);

/* A gradient transform: called on every replica with the reduced gradients (equal on
 * every replica, so it must act the same on each), before they are applied. */
typedef tdm_status (*tdm_gradient_transform_fn)(tdm_replica_context *rc, tdm_tensor *const *grads,
                                                tdm_variable *const *vars, size_t count,
                                                void *user);

/* Update ops: run on every replica after the variables are updated, before the step
 * returns its loss (e.g. a moving average of a sync-on-read statistic). */
typedef tdm_status (*tdm_update_ops_fn)(tdm_replica_context *rc, void *user);

typedef struct tdm_train_op_options {
    size_t size;         /* sizeof(tdm_train_op_options) */
    tdm_loss_fn loss_fn; /* required */
    void *loss_user;
    tdm_optimizer *optimizer;      /* required; borrowed; slots are created */
    tdm_variable *const *var_list; /* NULL: every trainable variable of the strategy */
    size_t var_count;
    tdm_variable *const *state_list; /* variables the loss function changes without
                                        training them (a batch norm's moving statistics,
                                        tdm_model_state): checkpointed with the rest */
    size_t state_count;
    tdm_loss_reduction reduction;        /* passed to loss_fn; default SUM_OVER_BATCH_SIZE */
    uint64_t seed;                       /* passed to loss_fn */
    float clip_global_norm;              /* > 0: scale the gradients so that their global
                                            L2 norm is at most this */
    float clip_value;                    /* > 0: clip every gradient element into
                                            [-clip_value, clip_value] */
    tdm_gradient_transform_fn transform; /* after clipping; NULL: none */
    void *transform_user;
    tdm_update_ops_fn update_ops; /* NULL: none */
    void *update_ops_user;
    int gradient_summaries;    /* 1: record each variable's gradient norm and
                                  histogram every step (reads them to the host) */
    int check_numerics;        /* 1 (default): a NaN or Inf loss or gradient
                                  fails the step with TDM_ERR_NUMERIC before any
                                  variable changes */
    size_t bucket_bytes;       /* gradients are all-reduced in buckets of at most this
                                  many bytes (a larger variable is a bucket of its own),
                                  in reverse variable order; default 25 MiB, as PyTorch's
                                  DDP; SIZE_MAX: one bucket */
    size_t first_bucket_bytes; /* the first bucket's bound, smaller so that the first
                                  all-reduce starts early; default 1 MiB */
    int balance;               /* 1: measure each replica's examples per second (on steps
                                  1 to 3, then every 100th: its device runs the loss
                                  function alone, timed, before any all-reduce) and set
                                  the strategy's batch shares in proportion, so that fast
                                  and slow devices finish together. The update stays that
                                  of the global batch; the split, and so the rounding,
                                  then depends on timing. 0 (default): off */
    float loss_scale;          /* > 0: dynamic loss scaling (TensorFlow's LossScaleOptimizer),
                                  starting at this scale (TensorFlow's default is 32768). The loss
                                  and its gradients are multiplied by the scale, and the
                                  gradients divided by it after the all-reduce. A step whose
                                  gradients are not all finite changes no variable (the global
                                  step still advances, as TensorFlow's iterations do), is counted,
                                  and halves the scale (not below 1); loss_scale_growth_steps
                                  finite steps in a row double it. 0 (default): off */
    uint32_t loss_scale_growth_steps; /* 0: 2000, TensorFlow's default */
    tdm_dtype all_reduce_dtype;       /* TDM_F32 (0, default), or TDM_F16: each bucket's
                                         gradients are cast to float16, summed across the
                                         replicas in float16 (half the bytes to move;
                                         tdm_replica_all_reduce says how it rounds) and
                                         cast back; the loss stays float32. Give it a
                                         loss_scale: a sum past 65504 is infinity, which
                                         the scale turns into a skipped step, and small
                                         gradients keep their digits */
    int shard_optimizer;              /* 1: the optimizer's state sharded across the replicas
                                         (ZeRO stage 1): each bucket's gradients are
                                         reduce-scattered, replica i updates slice i of every
                                         bucket and keeps slots for that slice alone (1/R of
                                         the slot memory, tdm_train_op_slot_bytes), and the
                                         weights are all-gathered. The same bits as unsharded
                                         training; checkpoints hold the whole state.
                                         TDM_ERR_UNSUPPORTED with clip_global_norm, a
                                         transform, gradient_summaries, an F16 all-reduce or
                                         parameter servers, which need every gradient on one
                                         replica. A job of one replica trains unsharded.
                                         0 (default): every replica keeps every slot */
    uint32_t reserved[1];             /* 0 (the INIT macro's): room for later fields,
                                         which a caller built before them leaves 0 */
} tdm_train_op_options;

#define TDM_TRAIN_OP_OPTIONS_INIT                                                                  \
    {                                                                                              \
        .size = sizeof(tdm_train_op_options), .reduction = TDM_LOSS_SUM_OVER_BATCH_SIZE,           \
        .check_numerics = 1, .bucket_bytes = (size_t)25 << 20,                                     \
        .first_bucket_bytes = (size_t)1 << 20                                                      \
    }

/* Creates the train op of a strategy (cross-replica or default mode): fixes the
 * variables to train (an empty list is TDM_ERR_INVALID_ARGUMENT), creates the
 * optimizer's slots and one flat gradient buffer per replica. The global step
 * starts at 0. */
TDM_API tdm_status tdm_train_op_create(tdm_strategy *s, const tdm_train_op_options *opts,
                                       tdm_train_op **out);

/* The current dynamic loss scale and the steps skipped for overflow so far
 * (1 and 0 without loss scaling). */
TDM_API tdm_status tdm_train_op_loss_scale(const tdm_train_op *op, float *scale,
                                           uint64_t *skipped_steps);

/* The bytes of optimizer slots each replica's device holds for the trained
 * variables: every slot of every variable, counting the gaps that start each at a
 * multiple of 4 floats where the slots lie side by side (at most 12 bytes a variable
 * and slot more than separate slots take), or with shard_optimizer the replica's
 * slice alone (a 1/R share, the buckets padded to a multiple of R). */
TDM_API tdm_status tdm_train_op_slot_bytes(const tdm_train_op *op, size_t *bytes);

/* NULL-safe. */
TDM_API void tdm_train_op_destroy(tdm_train_op *op);

/* Runs one step on a distributed batch (tdm_distributed_iterator_next) and stores
 * the step's loss (the sum of the replicas' shares) in *loss. An empty step (the end
 * of the data) is TDM_ERR_INVALID_ARGUMENT. On TDM_ERR_NUMERIC nothing changed: not
 * the variables, the slots nor the global step. */
TDM_API tdm_status tdm_train_op_run(tdm_train_op *op, const tdm_distributed_batch *batch,
                                    double *loss);

TDM_API uint64_t tdm_train_op_global_step(const tdm_train_op *op);

/* Where a replica's steps spend their time, for benchmarks. While profiling is on,
 * each step waits for the device at every phase boundary, so the phases do not
 * overlap (the buckets start only after the backward pass): time a run without
 * profiling for throughput, and one with it for the breakdown. */
typedef struct tdm_train_profile {
    uint64_t steps;            /* profiled steps */
    double loss_seconds;       /* forward and backward, until the device has run them */
    double all_reduce_seconds; /* until the summed gradients are on the device, waiting
                                  for the slowest replica included */
    double update_seconds;     /* checks, transforms, the optimizer and update ops */
} tdm_train_profile;

/* Turns profiling on (counters cleared) or off. */
TDM_API tdm_status tdm_train_op_set_profiling(tdm_train_op *op, int on);
/* Replica i's totals since profiling was turned on. */
TDM_API tdm_status tdm_train_op_profile(const tdm_train_op *op, size_t replica,
                                        tdm_train_profile *out);

/* A timeline of the steps first_step to last_step (global steps, both included) in
 * Chrome's trace event JSON, which Perfetto (ui.perfetto.dev) and chrome://tracing
 * open: a process per rank, a track per replica, and per step its input wait (when
 * a step (step.h) feeds the train op), forward and backward, each bucket's
 * all-reduce from its start until the sums are on the device, the update, and idle
 * until the slowest replica's step is done. Times are the host's monotonic clock,
 * read after the device has finished each phase: a traced step waits for its device
 * at every phase boundary and runs its buckets one after another, as profiling does,
 * so it shows where the time goes, not how the phases overlap. In a job of several
 * processes each writes its own file, path with ".rank<R>" before its extension.
 * The file is written whole (a temporary file renamed) after last_step and by
 * tdm_train_op_trace_write. A new call replaces the trace (steps not yet written are
 * lost); path NULL stops tracing. A step outside the window costs nothing. */
TDM_API tdm_status tdm_train_op_trace(tdm_train_op *op, const char *path, uint64_t first_step,
                                      uint64_t last_step);
/* Writes the steps traced so far, if any were traced since the file was last
 * written (a run that ends inside the window). TDM_ERR_INVALID_STATE when not
 * tracing. */
TDM_API tdm_status tdm_train_op_trace_write(tdm_train_op *op);

/* With `balance`: replica i's measured examples per second (0 before its first
 * measurement). */
TDM_API tdm_status tdm_train_op_replica_rate(const tdm_train_op *op, size_t replica,
                                             double *examples_per_second);

/* Sets the global step and the optimizer's iterations (restoring a checkpoint). */
TDM_API tdm_status tdm_train_op_set_global_step(tdm_train_op *op, uint64_t step);

/* The train op's state in a checkpoint: "train/global_step", "train/seed", every
 * trained variable and every optimizer slot, by name. Restoring checks that the
 * seed is the one this op was made with (a run resumed with another seed would not
 * continue the same training: TDM_ERR_INVALID_ARGUMENT naming both). Cross-replica
 * or default mode. A parameter-server job's worker saves its servers' variables and
 * slots, all of one global step (the one recorded, which other workers' pushes may
 * have taken past this op's own); restoring, the chief sends them back to the
 * servers, and the other workers restore their local copies. */
TDM_API tdm_status tdm_train_op_save(const tdm_train_op *op, tdm_checkpoint_writer *w);
TDM_API tdm_status tdm_train_op_restore(tdm_train_op *op, const tdm_checkpoint *c);

TDM_API size_t tdm_train_op_variable_count(const tdm_train_op *op);
TDM_API tdm_variable *tdm_train_op_variable(const tdm_train_op *op, size_t i);
TDM_API tdm_optimizer *tdm_train_op_optimizer(const tdm_train_op *op);
TDM_API tdm_strategy *tdm_train_op_strategy(const tdm_train_op *op);
TDM_API uint64_t tdm_train_op_seed(const tdm_train_op *op);

/* Gradient summaries of the last step (gradient_summaries on): variable i's
 * gradient L2 norm and a histogram of its elements over TDM_HISTOGRAM_BINS equal
 * bins between their minimum and maximum. TDM_ERR_INVALID_STATE before a step. */
#define TDM_HISTOGRAM_BINS 16
typedef struct tdm_gradient_summary {
    double norm;
    float min, max;
    uint64_t counts[TDM_HISTOGRAM_BINS];
} tdm_gradient_summary;
TDM_API tdm_status tdm_train_op_gradient_summary(const tdm_train_op *op, size_t i,
                                                 tdm_gradient_summary *out);

#ifdef __cplusplus
}
#endif

#endif
