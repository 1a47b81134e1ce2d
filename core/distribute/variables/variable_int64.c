/* int64 variables: exact counters written from the host. The new value is computed
 * once from the copy that holds the value and written to every copy, so the copies
 * stay identical without any device arithmetic. */
#include <stdlib.h>

#include "base/error.h"
#include "distribute/variables/variable_impl.h"

tdm_status tdm_variable_int64_only(const tdm_variable *var, const char *func)
{
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                    "%s: variable '%s' is int64; write it with tdm_variable_assign_int64", func,
                    var->name);
}

/* x op v, or -1 when the result leaves the int64 range. */
static int combine(tdm_assign_op op, int64_t x, int64_t v, int64_t *out)
{
    if (op == TDM_ASSIGN) {
        *out = v;
        return 0;
    }
    if (op == TDM_ASSIGN_ADD ? (v > 0 && x > INT64_MAX - v) || (v < 0 && x < INT64_MIN - v)
                             : (v < 0 && x > INT64_MAX + v) || (v > 0 && x < INT64_MIN + v))
        return -1;
    *out = op == TDM_ASSIGN_ADD ? x + v : x - v;
    return 0;
}

static tdm_status check_call(const tdm_variable *var, tdm_assign_op op, const int64_t *values,
                             size_t count, const char *func)
{
    if (var->dtype != TDM_I64)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s' is %s; write it with tdm_variable_assign or "
                        "tdm_variable_assign_host",
                        func, var->name, tdm_dtype_name(var->dtype));
    if ((unsigned)op > TDM_ASSIGN_SUB)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: variable '%s': unknown assign op %d", func,
                        var->name, (int)op);
    if (count != var->count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s' has %zu elements; count is %zu", func, var->name,
                        var->count, count);
    if (count && !values)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument 'values' is NULL", func);
    if (tdm_mode()->update)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: variable '%s' in an update function: int64 variables are written "
                        "whole, in cross-replica or default mode",
                        func, var->name);
    return tdm_require_cross_replica(var->strategy, func);
}

tdm_status tdm_variable_assign_int64(tdm_variable *var, tdm_assign_op op, const int64_t *values,
                                     size_t count)
{
    static const char func[] = "tdm_variable_assign_int64";
    TDM_CHECK_ARG(var, func);
    tdm_status s = check_call(var, op, values, count, func);
    if (s != TDM_OK || count == 0)
        return s;
    int64_t *now = malloc(count * sizeof *now);
    if (!now)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    size_t from = var->home >= 0 ? (size_t)var->home : 0;
    s = op == TDM_ASSIGN ? TDM_OK : tdm_tensor_read(var->copies[from], now, count * sizeof *now);
    for (size_t e = 0; e < count && s == TDM_OK; e++)
        if (combine(op, op == TDM_ASSIGN ? 0 : now[e], values[e], &now[e]) != 0)
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                         "%s: %s of %lld to element %zu of int64 variable '%s' (%lld) leaves the "
                         "int64 range; nothing was written",
                         func, tdm_assign_op_name(op), (long long)values[e], e, var->name,
                         (long long)now[e]);
    for (size_t c = 0; c < var->copy_count && s == TDM_OK; c++)
        s = tdm_tensor_write(var->copies[c], now, count * sizeof *now);
    free(now);
    tdm_variable_wrote(var, TDM_EVERY_COPY);
    if (s != TDM_OK)
        return tdm_fail_context(s, "%s: variable '%s'", func, var->name);
    return tdm_variable_check_if_asked(var, func);
}
