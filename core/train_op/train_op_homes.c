/* The train op under a parameter-server strategy: the summed gradient of each
 * variable goes from replica 0 to the variable's home, where the optimizer runs once;
 * the workers' caches then take the new value (tdm_optimizer_update_var). */
#include <stdlib.h>

#include "base/error.h"
#include "device/memory/tensor_impl.h"
#include "optimizer/optimizer_impl.h"
#include "distribute/variable_access.h"
#include "train_op/train_op_impl.h"

static const char func[] = "tdm_train_op_run";

tdm_status tdm_train_homes_make(tdm_train_op *op)
{
    op->home_grads = calloc(op->var_count, sizeof *op->home_grads);
    if (!op->home_grads)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < op->var_count && s == TDM_OK; i++) {
        tdm_variable *var = op->vars[i];
        if (!tdm_variable_has_home(var))
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "tdm_train_op_create: variable '%s' has no parameter device (a "
                            "sync-on-read variable, or one created before the strategy had "
                            "parameter devices); train mirrored variables of the strategy",
                            tdm_variable_name(var));
        tdm_tensor *home = tdm_variable_copy(var, tdm_variable_primary(var));
        s = tdm_tensor_create_like(tdm_tensor_device(home), home, &op->home_grads[i]);
    }
    return s;
}

void tdm_train_homes_free(tdm_train_op *op)
{
    for (size_t i = 0; op->home_grads && i < op->var_count; i++)
        tdm_tensor_destroy(op->home_grads[i]);
    free(op->home_grads);
}

/* Variable i: replica 0's summed gradient to the home, then the update there. */
static tdm_status update_one(tdm_train_op *op, const tdm_opt_step *step, size_t i,
                             tdm_variable *const *slots, tdm_buffer_view *grads)
{
    tdm_variable *var = op->vars[i];
    size_t home = tdm_variable_primary(var);
    grads[home] = tdm_tensor_view(op->home_grads[i]);
    tdm_status s =
        tdm_variable_count(var) ? tdm_buffer_copy(&grads[home], &op->replicas[0].views[i]) : TDM_OK;
    if (s != TDM_OK)
        return tdm_fail_context(s, "%s: the gradient of '%s' to its parameter device", func,
                                tdm_variable_name(var));
    return tdm_optimizer_update_var(op->opts.optimizer, step, var, slots, grads, func);
}

tdm_status tdm_train_update_homes(tdm_train_op *op)
{
    tdm_optimizer *opt = op->opts.optimizer;
    size_t per = opt->slot_count, copies = tdm_strategy_num_local_replicas(op->strategy) + 1;
    tdm_variable **slots = calloc(op->var_count * per + 1, sizeof *slots);
    tdm_buffer_view *grads = calloc(copies, sizeof *grads);
    tdm_status s = slots && grads
                       ? tdm_optimizer_lookup_slots(opt, op->vars, op->var_count, slots, func)
                       : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    tdm_opt_step step = tdm_optimizer_step_params(opt, tdm_optimizer_iterations(opt));
    for (size_t i = 0; i < op->var_count && s == TDM_OK; i++)
        s = update_one(op, &step, i, slots + i * per, grads);
    free(slots);
    free(grads);
    return s;
}
