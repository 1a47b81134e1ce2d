/* tandem: variables with a copy on every device of their strategy, mirrored
 * (ON_WRITE) or sync-on-read (ON_READ), and the update context. */
#ifndef TANDEM_VARIABLE_H
#define TANDEM_VARIABLE_H

#include "tandem/strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_variable tdm_variable;
typedef struct tdm_update_context tdm_update_context;

typedef enum tdm_synchronization {
    TDM_SYNC_AUTO,     /* = ON_WRITE */
    TDM_SYNC_ON_WRITE, /* mirrored: every write updates every copy */
    TDM_SYNC_ON_READ,  /* each replica writes its own copy; a cross-replica read
                          aggregates the copies */
    TDM_SYNC_NONE      /* rejected by strategies with more than one device */
} tdm_synchronization;

typedef enum tdm_aggregation {
    TDM_AGG_NONE,              /* replicas may not write a mirrored variable */
    TDM_AGG_SUM,
    TDM_AGG_MEAN,
    TDM_AGG_ONLY_FIRST_REPLICA /* replica 0's value is written to every copy */
} tdm_aggregation;

typedef struct tdm_variable_options {
    size_t size;                 /* sizeof(tdm_variable_options) */
    const char *name;            /* for messages and checkpoints; copied; default "variable" */
    tdm_shape shape;             /* default: a scalar */
    tdm_synchronization synchronization; /* default AUTO */
    tdm_aggregation aggregation; /* default NONE */
    int trainable;               /* 1 / 0; -1 (default): 1 unless ON_READ */
    const float *initial_value;  /* shape's element count of floats; NULL: zeros */
    tdm_dtype dtype;             /* TDM_F32 (default) or TDM_I64: an exact integer
                                    variable (a step counter past 2^24), mirrored and not
                                    trainable, written with tdm_variable_assign_int64 */
    const int64_t *initial_int64; /* TDM_I64: the initial values; NULL: zeros */
} tdm_variable_options;

#define TDM_VARIABLE_OPTIONS_INIT                                                      \
    {                                                                                  \
        .size = sizeof(tdm_variable_options), .synchronization = TDM_SYNC_AUTO,        \
        .aggregation = TDM_AGG_NONE, .trainable = -1                                   \
    }

/* Creates a variable (float32, or int64 with dtype TDM_I64) with a copy on each device of the strategy (or of the
 * variable named by tdm_strategy_colocate_vars_with), every copy holding the initial
 * value. Cross-replica or default mode only. */
TDM_API tdm_status tdm_variable_create(tdm_strategy *s, const tdm_variable_options *opts,
                                       tdm_variable **out);

/* Releases the variable's copies. NULL-safe. Variables still alive are released
 * with their strategy. */
TDM_API void tdm_variable_destroy(tdm_variable *var);

TDM_API const char *tdm_variable_name(const tdm_variable *var);
TDM_API tdm_shape tdm_variable_shape(const tdm_variable *var);
TDM_API tdm_synchronization tdm_variable_synchronization(const tdm_variable *var);
TDM_API tdm_aggregation tdm_variable_aggregation(const tdm_variable *var);
TDM_API int tdm_variable_trainable(const tdm_variable *var);
TDM_API tdm_dtype tdm_variable_dtype(const tdm_variable *var);

/* The copies, one per device, in the order of the strategy's replicas; under a
 * parameter-server strategy a mirrored variable's home follows its caches as the last
 * copy, and a variable colocated with it (an optimizer slot) has its home alone. Kernels
 * may use them directly; a write outside the calls below must keep mirrored copies
 * identical (check_mirrored verifies it). A copy's tensor stays the variable's for
 * its life, but tdm_train_op_create moves its memory (into one buffer per replica for
 * all the op's variables): take slices and views (tdm_tensor_slice, tdm_tensor_view)
 * after creating the train ops, or again. */
TDM_API size_t tdm_variable_copy_count(const tdm_variable *var);
TDM_API tdm_tensor *tdm_variable_copy(const tdm_variable *var, size_t i);
/* The parameter device that holds the variable's value under a parameter-server
 * strategy, else NULL. */
TDM_API tdm_device *tdm_variable_home(const tdm_variable *var);
/* The copy on the replica's device. */
TDM_API tdm_tensor *tdm_variable_local(const tdm_variable *var, const tdm_replica_context *rc);

/* Reads the variable into host memory (size: its bytes, 8 per element for int64). In a replica function or
 * an update function: the local copy. Cross-replica: a mirrored variable's first
 * copy; a sync-on-read variable's SUM or MEAN over the copies (ONLY_FIRST_REPLICA:
 * the first copy; NONE: an error). */
TDM_API tdm_status tdm_variable_read(const tdm_variable *var, void *dst, size_t size);

typedef enum tdm_assign_op { TDM_ASSIGN, TDM_ASSIGN_ADD, TDM_ASSIGN_SUB } tdm_assign_op;

/* assign / assign_add / assign_sub with the rules of the calling thread's mode:
 *  - update function: the copy being updated only;
 *  - replica function, mirrored variable: every replica must make the same call;
 *    SUM and MEAN reduce the replicas' values and write the result to every copy,
 *    ONLY_FIRST_REPLICA writes replica 0's, NONE is an error;
 *  - replica function, sync-on-read variable: the replica's own copy;
 *  - cross-replica: a mirrored variable's every copy; a sync-on-read variable's
 *    copies get x / N for SUM and x otherwise (assign_add and assign_sub of a SUM
 *    variable are errors).
 * value: a float32 tensor of the variable's element count, on any device; in a
 * replica function, on the replica's device. */
TDM_API tdm_status tdm_variable_assign(tdm_variable *var, tdm_assign_op op,
                                       const tdm_tensor *value);

/* The same with host data (size: the variable's bytes): a plain value. In a replica
 * function every replica must pass the same bytes; it passes through MEAN and
 * ONLY_FIRST_REPLICA unchanged and is an error for SUM with more than one replica. */
TDM_API tdm_status tdm_variable_assign_host(tdm_variable *var, tdm_assign_op op,
                                            const float *data, size_t size);

/* An int64 variable's assign / assign_add / assign_sub with host values (count: its
 * element count), in exact integer arithmetic, written to every copy. Cross-replica
 * or default mode (a replica function steps there through tdm_replica_merge_call);
 * in a multi-worker job every process makes the same call. A result past the int64
 * range is refused (TDM_ERR_INVALID_ARGUMENT naming the element) and nothing is
 * written. tdm_variable_assign and tdm_variable_assign_host refuse int64 variables. */
TDM_API tdm_status tdm_variable_assign_int64(tdm_variable *var, tdm_assign_op op,
                                             const int64_t *values, size_t count);

/* An update function: called once per copy of the variable, in the update context
 * of that copy's device. */
typedef tdm_status (*tdm_update_fn)(tdm_update_context *uc, tdm_tensor *copy,
                                    void *user_data);

/* Strategy.extended.update, cross-replica: runs fn for each copy of var in order. */
TDM_API tdm_status tdm_strategy_update(tdm_strategy *s, tdm_variable *var, tdm_update_fn fn,
                                       void *user_data);

/* The update context: which copy (0-based) and device are being updated. */
TDM_API size_t tdm_update_index(const tdm_update_context *uc);
TDM_API tdm_device *tdm_update_device(const tdm_update_context *uc);
TDM_API tdm_variable *tdm_update_variable(const tdm_update_context *uc);

/* colocate_vars_with: until the matching end, variables that this thread creates
 * on the strategy are placed on the devices of `var`. */
TDM_API tdm_status tdm_strategy_colocate_vars_with(tdm_strategy *s, tdm_variable *var);
TDM_API tdm_status tdm_strategy_colocate_end(tdm_strategy *s);

/* The strategy's trainable variables, in creation order (TensorFlow's
 * trainable_variables): stores up to capacity of them in out and returns their
 * number. */
TDM_API size_t tdm_strategy_trainable_variables(tdm_strategy *s, tdm_variable **out,
                                                size_t capacity);

/* Verifies that every copy of every mirrored variable of the strategy is bitwise
 * identical, in every process of a multi-worker job (where every process calls it);
 * TDM_ERR_INVALID_STATE names the first variable, copy (or rank) and element that
 * differ. */
TDM_API tdm_status tdm_strategy_check_mirrored(tdm_strategy *s);

#ifdef __cplusplus
}
#endif
#endif
