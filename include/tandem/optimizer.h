/* tandem: optimizers with slot variables, learning-rate schedules, and the tower
 * optimizer that applies one update per step across a strategy's replicas.
 *
 * An optimizer belongs to a strategy. Its slots (Momentum's "momentum", Adam's "m"
 * and "v", ...) are mirrored variables of that strategy, one set per variable it
 * trains, placed on the variable's devices. Every update runs one fused kernel per
 * copy (kernels.def: sgd, momentum, adagrad, rmsprop, adam, adamw, TensorFlow's
 * training-op formulas), so that the copies of a variable and of its slots receive
 * the same arithmetic and stay bitwise identical.
 *
 * Destroy an optimizer before its strategy: the strategy releases every variable it
 * holds, the slots included. */
#ifndef TANDEM_OPTIMIZER_H
#define TANDEM_OPTIMIZER_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/nn.h"
#include "tandem/variable.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_optimizer tdm_optimizer;
typedef struct tdm_tower_optimizer tdm_tower_optimizer;

/* ---- learning-rate schedules ------------------------------------------------- */

/* The schedules: TDM_LR_CONSTANT, TDM_LR_WARMUP_COSINE, ... (tandem/lr_kinds.def lists
 * them with what each computes). */
typedef enum tdm_lr_kind {
#define TDM_LR_KIND(id, name, what) TDM_LR_##id,
#include "tandem/lr_kinds.def"
#undef TDM_LR_KIND
    TDM_LR_KIND_COUNT
} tdm_lr_kind;

/* The kind's name in tandem/lr_kinds.def ("constant", "cosine", ...); "unknown" out
 * of range. */
TDM_API const char *tdm_lr_kind_name(tdm_lr_kind kind);
/* The kind of that name; TDM_ERR_NOT_FOUND listing the names for another. */
TDM_API tdm_status tdm_lr_kind_parse(const char *name, tdm_lr_kind *out);
/* Those names in the enum's order, NULL-terminated (static: never freed). */
TDM_API const char *const *tdm_lr_kind_names(void);

/* The rate as a function of the step (the optimizer's iterations). Fields a kind
 * does not use are ignored. */
typedef struct tdm_lr_schedule {
    tdm_lr_kind kind;
    float initial;         /* the rate at step 0 (WARMUP_COSINE: the peak, reached after
                              warm-up); finite, >= 0 */
    float decay_rate;      /* EXPONENTIAL: initial * decay_rate^(step / decay_steps) (real
                              exponent); STEP: initial * decay_rate^floor(step / decay_steps);
                              finite, > 0 */
    uint64_t decay_steps;  /* EXPONENTIAL, STEP: > 0 */
    uint64_t warmup_steps; /* WARMUP_COSINE: linear 0 -> initial over warmup_steps
                              (initial * (step + 1) / warmup_steps), then cosine from initial
                              to final_rate over total_steps - warmup_steps, final_rate
                              after; warmup_steps <= total_steps */
    uint64_t total_steps;  /* WARMUP_COSINE: > 0 */
    float final_rate;      /* WARMUP_COSINE: finite, >= 0 */
} tdm_lr_schedule;

/* A constant rate, for the learning_rate option. */
#define TDM_LR_CONSTANT_RATE(rate) ((tdm_lr_schedule){.kind = TDM_LR_CONSTANT, .initial = (rate)})

/* TDM_ERR_INVALID_ARGUMENT naming the field (and its value) that is out of range. */
TDM_API tdm_status tdm_lr_schedule_check(const tdm_lr_schedule *s);

/* The rate at a step, computed in double and rounded once to float. NaN for a NULL
 * or invalid schedule (tdm_lr_schedule_check says why). */
TDM_API float tdm_lr_schedule_value(const tdm_lr_schedule *s, uint64_t step);

/* ---- optimizers -------------------------------------------------------------- */

typedef enum tdm_optimizer_kind {
    TDM_OPT_SGD,
    TDM_OPT_MOMENTUM,
    TDM_OPT_ADAGRAD,
    TDM_OPT_RMSPROP,
    TDM_OPT_ADAM,
    TDM_OPT_ADAMW
} tdm_optimizer_kind;

/* momentum's default: 0.9 for MOMENTUM, 0 for RMSPROP (any negative value means it). */
#define TDM_OPT_MOMENTUM_DEFAULT (-1.0f)

typedef struct tdm_optimizer_options {
    size_t size;                   /* sizeof(tdm_optimizer_options) */
    tdm_optimizer_kind kind;       /* default SGD */
    tdm_lr_schedule learning_rate; /* default constant 0.01 */
    float momentum;                /* MOMENTUM (default 0.9), RMSPROP (default 0); in [0, 1];
                                      TDM_OPT_MOMENTUM_DEFAULT: the kind's default */
    int nesterov;                  /* MOMENTUM: 0 or 1 */
    float rho;                     /* RMSPROP: 0.9, in [0, 1) */
    int centered;                  /* RMSPROP: 0 or 1 */
    float epsilon;                 /* ADAGRAD / RMSPROP / ADAM / ADAMW: 1e-7, >= 0 */
    float beta1, beta2;            /* ADAM / ADAMW: 0.9, 0.999, each in [0, 1) */
    float weight_decay;            /* ADAMW: 0.004, >= 0 (decoupled; scaled by the rate, as
                                      Keras: w -= rate * weight_decay * w) */
    float initial_accumulator;     /* ADAGRAD: 0.1, >= 0 */
    uint32_t reserved[3];          /* 0 (the INIT macro's): room for later fields, which a
                                      caller built before them leaves 0 */
} tdm_optimizer_options;

#define TDM_OPTIMIZER_OPTIONS_INIT                                                                 \
    {                                                                                              \
        .size = sizeof(tdm_optimizer_options), .kind = TDM_OPT_SGD,                                \
        .learning_rate = {.kind = TDM_LR_CONSTANT, .initial = 0.01f},                              \
        .momentum = TDM_OPT_MOMENTUM_DEFAULT, .nesterov = 0, .rho = 0.9f, .centered = 0,           \
        .epsilon = 1e-7f, .beta1 = 0.9f, .beta2 = 0.999f, .weight_decay = 0.004f,                  \
        .initial_accumulator = 0.1f                                                                \
    }

/* Parses "sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam", "adamw"
 * (case-insensitive) into opts->kind, setting opts->nesterov for "nesterov" and
 * clearing it for "momentum"; the other fields are left alone. TDM_ERR_NOT_FOUND
 * listing the names. */
TDM_API tdm_status tdm_optimizer_kind_parse(const char *name, tdm_optimizer_options *opts);
/* The names tdm_optimizer_kind_parse accepts, lower-case, NULL-terminated (static:
 * never freed). */
TDM_API const char *const *tdm_optimizer_kind_names(void);

/* An optimizer of strategy s (opts NULL: the defaults, SGD at 0.01). Checks every
 * option the kind uses: TDM_ERR_INVALID_ARGUMENT naming the field. */
TDM_API tdm_status tdm_optimizer_create(tdm_strategy *s, const tdm_optimizer_options *opts,
                                        tdm_optimizer **out);

/* Releases the optimizer and its slot variables; NULL-safe. Call it before
 * destroying the strategy, and not while an apply is running. */
TDM_API void tdm_optimizer_destroy(tdm_optimizer *opt);

/* "SGD", "Momentum", "Nesterov", "Adagrad", "RMSProp", "Adam", "AdamW". */
TDM_API const char *tdm_optimizer_name(const tdm_optimizer *opt);

/* The options in force, defaults resolved (momentum holds the kind's value). */
TDM_API tdm_status tdm_optimizer_get_options(const tdm_optimizer *opt, tdm_optimizer_options *out);

/* The strategy the optimizer was created for. */
TDM_API tdm_strategy *tdm_optimizer_strategy(const tdm_optimizer *opt);

/* Cross-replica or default mode: creates the slots of these variables (idempotent
 * per variable): mirrored, not trainable, named "<var>/<slot>", placed on the
 * variable's devices, zeros (Adagrad's accumulator: initial_accumulator). The
 * variables must be the strategy's, mirrored (ON_WRITE, or SYNC_NONE on one device). */
TDM_API tdm_status tdm_optimizer_create_slots(tdm_optimizer *opt, tdm_variable *const *vars,
                                              size_t count);

/* The slot names of this optimizer, in order: SGD none; Momentum "momentum"; Adagrad
 * "accumulator"; RMSProp "rms", "momentum" and, centered, "mg"; Adam / AdamW "m", "v".
 * Returns the number; fills up to capacity (names may be NULL with capacity 0). */
TDM_API size_t tdm_optimizer_slot_names(const tdm_optimizer *opt, const char **names,
                                        size_t capacity);

/* The slot `name` of var (owned by the optimizer). TDM_ERR_NOT_FOUND naming the
 * variable and the slot (and listing the valid names) when absent. */
TDM_API tdm_status tdm_optimizer_get_slot(const tdm_optimizer *opt, const tdm_variable *var,
                                          const char *name, tdm_variable **out);

/* Updates applied so far (Keras' optimizer.iterations). */
TDM_API uint64_t tdm_optimizer_iterations(const tdm_optimizer *opt);

/* Cross-replica (or default mode, or a merge function): sets iterations, e.g. when
 * restoring a checkpoint; the schedule and Adam's bias corrections follow it. */
TDM_API tdm_status tdm_optimizer_set_iterations(tdm_optimizer *opt, uint64_t n);

/* The schedule's rate at the current iterations. */
TDM_API float tdm_optimizer_learning_rate(const tdm_optimizer *opt);

/* Cross-replica or default mode, between steps: the rate of every later update, for
 * an optimizer of a constant rate (Keras' LearningRateScheduler and
 * ReduceLROnPlateau set it between epochs). TDM_ERR_INVALID_ARGUMENT for a rate that
 * is not positive and finite; TDM_ERR_INVALID_STATE where a schedule gives the rate.
 * A parameter-server job's rate is its servers' optimizer's. */
TDM_API tdm_status tdm_optimizer_set_learning_rate(tdm_optimizer *opt, float rate);

/* Applies one update, then advances iterations by one. Cross-replica or default mode:
 * grads[i] (f32, var i's element count, on any device) updates every copy of vars[i]
 * (copied to each copy's device when needed). In a replica function of a strategy
 * with more than one replica it is TDM_ERR_INVALID_STATE saying to wrap the optimizer
 * in a tower optimizer (tdm_tower_optimizer_create); with one replica it updates the
 * local copies. Slots must exist (tdm_optimizer_create_slots), else
 * TDM_ERR_INVALID_STATE naming the variable and the call to make. */
TDM_API tdm_status tdm_optimizer_apply(tdm_optimizer *opt, tdm_variable *const *vars,
                                       tdm_tensor *const *grads, size_t count);

/* A parameter server of a job (tdm_strategy_create_parameter_server_job): serves the
 * trainable variables of opt's strategy to the workers' train ops until every worker
 * has said goodbye. A worker's train op names the variables it keeps here (by name
 * and size: the server creates the same model), takes their values, and then pushes
 * its summed gradients every step; each push is applied with opt at once, in arrival
 * order, and answered with the new values and the global step (every push of every
 * worker counts one). A request that does not match (an unknown variable, another
 * size) is refused to that worker alone. A worker that neither sends nor says goodbye
 * within collective_timeout fails the service with TDM_ERR_TIMEOUT naming the workers
 * still expected. Cross-replica or default mode. */
TDM_API tdm_status tdm_optimizer_serve(tdm_optimizer *opt);

/* ---- the tower optimizer ----------------------------------------------------- */

/* TowerOptimizer (docs/SEMANTICS.md): wraps an optimizer (borrowed: it must outlive the
 * tower optimizer). */
TDM_API tdm_status tdm_tower_optimizer_create(tdm_optimizer *inner, tdm_loss_reduction reduction,
                                              tdm_tower_optimizer **out);

/* NULL-safe; the inner optimizer is left alone. */
TDM_API void tdm_tower_optimizer_destroy(tdm_tower_optimizer *t);

/* The wrapped optimizer. */
TDM_API tdm_optimizer *tdm_tower_optimizer_inner(const tdm_tower_optimizer *t);

/* 1 / towers unless the reduction is SUM (then 1): the factor each tower's loss is
 * multiplied by. towers 0 counts as 1. */
TDM_API float tdm_tower_optimizer_loss_scale(const tdm_tower_optimizer *t, size_t towers);

/* TDM_ERR_INVALID_ARGUMENT naming both numbers when batch % towers != 0 (or towers
 * is 0). */
TDM_API tdm_status tdm_tower_optimizer_check_batch(const tdm_tower_optimizer *t, size_t batch,
                                                   size_t towers);

/* Replica context (rc: the calling replica's), every tower calls it with its own
 * gradients (grads[i]: f32, vars[i]'s element count, on the tower's device). On every
 * tower but the last it only hands its gradients over; the last (a merge call) sums
 * each variable's gradients over the towers, in tower order, and applies the inner
 * optimizer once to every copy, advancing iterations once. Every tower returns after
 * the update. Towers passing different variables or counts: TDM_ERR_INVALID_STATE
 * ("towers made different optimizer calls", naming the towers), nothing updated. */
TDM_API tdm_status tdm_tower_optimizer_apply(tdm_tower_optimizer *t, tdm_replica_context *rc,
                                             tdm_variable *const *vars, tdm_tensor *const *grads,
                                             size_t count);

#ifdef __cplusplus
}
#endif
#endif
