/* tdm_variable_read: the local copy in replica and update functions; in
 * cross-replica mode a mirrored variable's first copy, a sync-on-read variable's
 * aggregate over its copies. */
#include <stdlib.h>

#include "base/error.h"
#include "distribute/variables/variable_impl.h"

static const char func[] = "tdm_variable_read";

/* The copy on the device of this thread's replica or update function, -1 in
 * cross-replica mode; an error (-2) when there is such a device but no copy on it. */
static int local_index(const tdm_variable *var)
{
    const tdm_thread_mode *m = tdm_mode();
    if (m->update) {
        if (m->update->var == var)
            return (int)m->update->index;
        /* Another variable: its copy on the device being updated, if it has one. */
        const tdm_variable *u = m->update->var;
        return tdm_variable_copy_index(var, u->copies[m->update->index]->device);
    }
    if (!m->replica)
        return -1;
    if (m->replica->strategy != var->strategy) {
        tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                 "%s: variable '%s' belongs to another strategy than the replica function "
                 "that reads it; read it in its own strategy's replica functions",
                 func, var->name);
        return -2;
    }
    int i = tdm_variable_copy_index(var, tdm_replica_device(m->replica));
    if (i < 0)
        tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                 "%s: variable '%s' has no copy on replica %zu's device (it was colocated "
                 "elsewhere); read it in cross-replica context",
                 func, var->name, m->replica->id);
    return i < 0 ? -2 : i;
}

/* Copy i into host memory; a device error names the variable and copy. */
static tdm_status read_copy(const tdm_variable *var, size_t i, float *dst)
{
    tdm_status s = tdm_tensor_read(var->copies[i], dst, tdm_variable_bytes(var));
    return s == TDM_OK ? s : tdm_fail_context(s, "%s: variable '%s', copy %zu", func, var->name, i);
}

/* SUM or MEAN of the copies, folded on the host in copy order in float:
 * ((c0 + c1) + c2) ..., MEAN then times (float)(1.0 / N), the rule of the
 * collectives (collective_fold.c), so a read equals a MEAN all-reduce of the copies
 * bit for bit. */
static tdm_status fold_copies(const tdm_variable *var, float *dst)
{
    size_t bytes = var->count * sizeof(float);
    tdm_status s = read_copy(var, 0, dst);
    float *tmp = s == TDM_OK && var->copy_count > 1 ? malloc(bytes ? bytes : 1) : NULL;
    if (s == TDM_OK && var->copy_count > 1 && !tmp)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t c = 1; c < var->copy_count && s == TDM_OK; c++) {
        s = read_copy(var, c, tmp);
        for (size_t e = 0; s == TDM_OK && e < var->count; e++)
            dst[e] += tmp[e];
    }
    free(tmp);
    if (s == TDM_OK && var->aggregation == TDM_AGG_MEAN) {
        float scale = (float)(1.0 / (double)var->copy_count);
        for (size_t e = 0; e < var->count; e++)
            dst[e] *= scale;
    }
    return s;
}

static tdm_status read_cross_replica(const tdm_variable *var, float *dst)
{
    if (var->sync != TDM_SYNC_ON_READ || var->aggregation == TDM_AGG_ONLY_FIRST_REPLICA)
        return read_copy(var, tdm_variable_primary(var), dst);
    if (var->aggregation == TDM_AGG_NONE) {
        if (!tdm_variable_distributed(var))
            return read_copy(var, 0, dst);
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: sync-on-read variable '%s' has aggregation NONE, so its %zu copies "
                        "cannot be combined in cross-replica context; give the variable an "
                        "aggregation (SUM, MEAN or ONLY_FIRST_REPLICA) or read it in a replica "
                        "function",
                        func, var->name, var->copy_count);
    }
    tdm_status s = tdm_require_cross_replica(var->strategy, func);
    return s != TDM_OK ? s : fold_copies(var, dst);
}

tdm_status tdm_variable_read(const tdm_variable *var, void *dst, size_t size)
{
    TDM_CHECK_ARG(var, func);
    if (size != tdm_variable_bytes(var))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s' has %zu %s elements (%zu bytes), size is %zu bytes",
                        func, var->name, var->count, tdm_dtype_name(var->dtype),
                        tdm_variable_bytes(var), size);
    if (size)
        TDM_CHECK_ARG(dst, func);
    int i = local_index(var);
    if (i == -2)
        return TDM_ERR_INVALID_ARGUMENT;
    return i >= 0 ? read_copy(var, (size_t)i, dst) : read_cross_replica(var, dst);
}
