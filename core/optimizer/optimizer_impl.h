/* Internal: the optimizer's state, shared by the optimizer's sources, the parameter
 * service and the train op, which applies already-reduced gradients on each replica. */
#ifndef TDM_CORE_OPTIMIZER_IMPL_H
#define TDM_CORE_OPTIMIZER_IMPL_H

#include <stdatomic.h>

#include "platform/tdm_thread.h"
#include "tandem/optimizer.h"

#define TDM_OPT_MAX_SLOTS 3

/* The update of one copy on a device whose arithmetic differs from copy 0's
 * (optimizer_apply.c): 2 + slot_count scratch tensors on copy 0's device (w, g, the
 * slots; NULL until made), kept so that no step allocates or frees them, and the
 * write counts (tdm_variable_writes) of the copy of the variable and of each slot
 * whose bytes the scratch holds: 0 when it holds none. */
typedef struct tdm_elsewhere {
    tdm_tensor *scratch[2 + TDM_OPT_MAX_SLOTS];
    uint64_t holds[1 + TDM_OPT_MAX_SLOTS];
} tdm_elsewhere;

/* One trained variable and its slots, in the order of tdm_optimizer_slot_names. */
typedef struct tdm_slot_entry {
    tdm_variable *var;
    tdm_variable *slots[TDM_OPT_MAX_SLOTS];
    tdm_elsewhere *elsewhere; /* per copy; NULL until a copy is first updated elsewhere */
    size_t elsewhere_count;
} tdm_slot_entry;

struct tdm_optimizer {
    tdm_strategy *strategy;
    tdm_optimizer_options opts; /* defaults resolved */
    const char *slot_names[TDM_OPT_MAX_SLOTS];
    size_t slot_count;
    _Atomic uint64_t iterations;
    tdm_mutex lock; /* guards entries */
    tdm_slot_entry *entries;
    size_t entry_count, entry_capacity;
};

/* What one update uses, fixed for a step: the rate and Adam's bias corrections at
 * the iterations the step starts from. */
typedef struct tdm_opt_step {
    float lr;
    float beta1_power, beta2_power; /* beta^(t + 1), computed in double */
    float weight_decay;             /* AdamW: lr * weight_decay */
} tdm_opt_step;

tdm_opt_step tdm_optimizer_step_params(const tdm_optimizer *opt, uint64_t iterations);

/* The one kernel call per kind, which every update goes through, on dev: views[0] w,
 * views[1] g, then the slots in the order of tdm_optimizer_slot_names, each of n
 * floats. The update is elementwise, so any range of a variable updates alone. */
tdm_status tdm_optimizer_run_kernel(const tdm_optimizer *opt, const tdm_opt_step *step,
                                    tdm_device *dev, const tdm_buffer_view *views, size_t n);

/* Every slot's first value: Adagrad's initial accumulator, else 0. */
float tdm_optimizer_slot_init(const tdm_optimizer *opt);

/* Slot k's name for variable var, "<var>/<slot>" (the checkpoint record's), in a
 * buffer the caller frees; NULL when out of host memory. */
char *tdm_optimizer_slot_var_name(const tdm_optimizer *opt, const tdm_variable *var, size_t k);

/* The slots of each variable, looked up under the lock into slots[i * slot_count + k].
 * A variable without slots: TDM_ERR_INVALID_STATE naming it and
 * tdm_optimizer_create_slots, for func. */
tdm_status tdm_optimizer_lookup_slots(const tdm_optimizer *opt, tdm_variable *const *vars,
                                      size_t count, tdm_variable **slots, const char *func);

/* The scratch of copy `copy` of var, for its updates on copy 0's device; it lives
 * as long as the optimizer. */
tdm_status tdm_optimizer_elsewhere_scratch(tdm_optimizer *opt, const tdm_variable *var, size_t copy,
                                           tdm_elsewhere **out);

/* Checks that vars belong to the optimizer's strategy and are non-NULL. */
tdm_status tdm_optimizer_check_vars(const tdm_optimizer *opt, tdm_variable *const *vars,
                                    size_t count, const char *func);

/* Whether kernels on a and b give the same bits for the same inputs: the same
 * device, or devices of one backend with the same name, vendor and driver (logical
 * devices of one device, identical cards). Other pairs may round differently
 * (kernels.def allows the optimizer kernels a few ulps). */
int tdm_optimizer_same_arithmetic(const tdm_device *a, const tdm_device *b);

/* Whether copy `copy` of var is updated by running the kernel on its own device (its
 * device computes like copy 0's); the others receive copy 0's result. */
int tdm_optimizer_computes_copy(const tdm_variable *var, size_t copy);

/* Every copy c of var (and of its slots) for which tdm_optimizer_computes_copy, with
 * grads[c], the gradient on that copy's device; then the other copies take copy 0's
 * bytes (their grads[c] are not read). Then, when the strategy asks (check_mirrored),
 * verifies the copies. */
tdm_status tdm_optimizer_update_var(const tdm_optimizer *opt, const tdm_opt_step *step,
                                    tdm_variable *var, tdm_variable *const *slots,
                                    const tdm_buffer_view *grads, const char *func);

/* Replica context: updates only the copies (variable and slots) on this replica's
 * device, with grads that are already summed over replicas (equal on every replica,
 * so the copies stay bitwise identical). grads[i]: a float32 view of vars[i]'s element
 * count on the replica's device. Rate and bias corrections from the current
 * iterations; does NOT advance iterations (the caller advances it once per step,
 * cross-replica, with tdm_optimizer_set_iterations). Safe to call from every replica
 * thread concurrently; no replica waits for another. A replica whose device computes
 * differently from the device of copy 0 (a mixed OpenCL + Vulkan strategy) runs its
 * update on copy 0's device over scratch copies of its state and copies it back. */
tdm_status tdm_optimizer_apply_local(tdm_optimizer *opt, tdm_replica_context *rc,
                                     tdm_variable *const *vars, const tdm_buffer_view *grads,
                                     size_t count);

#endif
