/* Variables in checkpoints: saved as their cross-replica value (a sync-on-read
 * variable's SUM or MEAN over its copies), restored with a cross-replica assign (a
 * SUM sync-on-read variable's copies get x / N each). */
#include <stdlib.h>

#include "base/error.h"
#include "distribute/variable_access.h"
#include "tandem/checkpoint.h"

/* Cross-replica or default mode only: in a replica or update function a read or an
 * assign would touch one copy only. */
static tdm_status require_cross_replica(const tdm_variable *var, const char *func)
{
    if (tdm_in_update_function())
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: variable '%s' in an update function: checkpoints save and restore "
                        "whole variables, in cross-replica or default mode",
                        func, tdm_variable_name(var));
    return tdm_require_cross_replica(tdm_variable_strategy(var), func);
}

/* Checks the mode and allocates a host buffer of the variable's size. */
static tdm_status prepare(const tdm_variable *var, const char *func, void **value, size_t *bytes)
{
    *value = NULL;
    *bytes = tdm_variable_count(var) * tdm_dtype_size(tdm_variable_dtype(var));
    tdm_status s = require_cross_replica(var, func);
    if (s != TDM_OK)
        return s;
    *value = malloc(*bytes ? *bytes : 1);
    if (!*value)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: variable '%s': out of host memory", func,
                        tdm_variable_name(var));
    return TDM_OK;
}

tdm_status tdm_checkpoint_add_variable(tdm_checkpoint_writer *w, const tdm_variable *var)
{
    static const char func[] = "tdm_checkpoint_add_variable";
    void *value;
    size_t bytes;
    TDM_CHECK_ARG(w, func);
    TDM_CHECK_ARG(var, func);
    tdm_status s = prepare(var, func, &value, &bytes);
    if (s != TDM_OK)
        return s;
    s = tdm_variable_read(var, value, bytes);
    if (s != TDM_OK)
        tdm_fail_context(s, "%s: variable '%s'", func, tdm_variable_name(var));
    tdm_shape shape = tdm_variable_shape(var);
    if (s == TDM_OK)
        s = tdm_checkpoint_add(w, tdm_variable_name(var), tdm_variable_dtype(var), &shape, value);
    free(value);
    return s;
}

tdm_status tdm_checkpoint_restore_variable(const tdm_checkpoint *c, tdm_variable *var)
{
    static const char func[] = "tdm_checkpoint_restore_variable";
    void *value;
    size_t bytes;
    TDM_CHECK_ARG(c, func);
    TDM_CHECK_ARG(var, func);
    tdm_status s = prepare(var, func, &value, &bytes);
    if (s != TDM_OK)
        return s;
    tdm_shape shape = tdm_variable_shape(var);
    tdm_dtype dtype = tdm_variable_dtype(var);
    s = tdm_checkpoint_read(c, tdm_variable_name(var), dtype, &shape, value, bytes);
    if (s == TDM_OK)
        s = dtype == TDM_I64
                ? tdm_variable_assign_int64(var, TDM_ASSIGN, value, tdm_variable_count(var))
                : tdm_variable_assign_host(var, TDM_ASSIGN, value, bytes);
    if (s != TDM_OK)
        tdm_fail_context(s, "%s: variable '%s'", func, tdm_variable_name(var));
    free(value);
    return s;
}
