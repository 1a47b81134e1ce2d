/* The checkpoint state of a parameter-server job's worker. The chief takes every
 * server's variables and slots at one global step (SAVE: server 0 as it is now, each
 * other server once it has applied the same pushes of every worker) and writes them
 * under the names a train op of one process uses; on resume it sends them back
 * (RESTORE) with that step. The other workers restore their local copies alone: the
 * monitor hands them the chief's checkpoint once the servers hold it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "distribute/variable_access.h"
#include "optimizer/optimizer_impl.h"
#include "train_op/train_op_remote.h"

/* A variable's checkpoint name (k 0) or that of its slot k - 1, allocated; NULL when
 * out of host memory. */
static char *record_name(const tdm_train_op *op, const tdm_variable *var, size_t k)
{
    if (k)
        return tdm_optimizer_slot_var_name(op->opts.optimizer, var, k - 1);
    size_t len = strlen(tdm_variable_name(var)) + 1;
    char *name = malloc(len);
    if (name)
        memcpy(name, tdm_variable_name(var), len);
    return name;
}

static size_t per_variable(const tdm_train_op *op)
{
    return tdm_optimizer_slot_names(op->opts.optimizer, NULL, 0) + 1;
}

/* One server's STATE: the pushes per worker it applied into counts, its variables'
 * blocks into r->state. */
static tdm_status take_state(const tdm_train_op *op, const remote_server *sv, uint64_t *counts,
                             uint64_t *step, const char *func)
{
    size_t workers = tdm_strategy_num_workers(op->strategy), per = per_variable(op);
    tdm_ps_header h;
    const unsigned char *body = NULL;
    tdm_status s = tdm_train_remote_answer(
        op, sv, TDM_PS_STATE, workers * sizeof *counts + per * sv->floats * sizeof(float), &h,
        &body, func);
    if (s != TDM_OK)
        return s;
    memcpy(counts, body, workers * sizeof *counts);
    body += workers * sizeof *counts;
    for (size_t i = 0; i < sv->count; i++) {
        size_t v = sv->vars[i], bytes = per * tdm_variable_count(op->vars[v]) * sizeof(float);
        memcpy(op->remote->state + per * op->offsets[v], body, bytes);
        body += bytes;
    }
    *step = h.step;
    return TDM_OK;
}

tdm_status tdm_train_remote_fetch(const tdm_train_op *op, uint64_t *step)
{
    static const char func[] = "tdm_train_op_save";
    tdm_train_remote *r = op->remote;
    if (!r)
        return TDM_OK;
    size_t workers = tdm_strategy_num_workers(op->strategy);
    uint64_t *counts = calloc(workers, sizeof *counts);
    if (!r->state)
        r->state = malloc(per_variable(op) * (op->total + 1) * sizeof *r->state);
    tdm_status s = counts && r->state
                       ? TDM_OK
                       : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    r->fetched = 0;
    for (size_t k = 0; k < r->server_count && s == TDM_OK; k++) {
        const remote_server *sv = &r->servers[k];
        size_t given = k ? workers : 0; /* server 0 saves as it is; the others as it did */
        size_t bytes = sizeof(tdm_ps_header) + given * sizeof *counts;
        void *at = tdm_train_remote_request(r, TDM_PS_SAVE, given, 0, bytes, func);
        if (!at) {
            s = TDM_ERR_OUT_OF_MEMORY;
            break;
        }
        memcpy(at, counts, given * sizeof *counts);
        uint64_t at_step = 0;
        s = tdm_train_remote_send(op, sv, bytes, func);
        if (s == TDM_OK)
            s = take_state(op, sv, counts, &at_step, func);
        if (s == TDM_OK && k && at_step != r->state_step)
            s = tdm_fail(TDM_ERR_INVALID_STATE,
                         "%s: parameter server rank %zu saved global step %llu, rank %zu step "
                         "%llu: the servers disagree",
                         func, sv->rank, (unsigned long long)at_step, r->servers[0].rank,
                         (unsigned long long)r->state_step);
        if (!k)
            r->state_step = at_step;
    }
    free(counts);
    r->fetched = s == TDM_OK;
    if (s == TDM_OK)
        *step = r->state_step;
    return s;
}

tdm_status tdm_train_remote_state_step(const tdm_train_op *op, uint64_t *step)
{
    if (!op->remote->fetched)
        return tdm_train_remote_fetch(op, step);
    *step = op->remote->state_step;
    return TDM_OK;
}

tdm_status tdm_train_remote_save(const tdm_train_op *op, tdm_checkpoint_writer *w)
{
    tdm_train_remote *r = op->remote;
    size_t per = per_variable(op);
    tdm_status s = TDM_OK;
    for (size_t v = 0; v < op->var_count && s == TDM_OK; v++) {
        const tdm_variable *var = op->vars[v];
        tdm_shape shape = tdm_variable_shape(var);
        size_t n = tdm_variable_count(var);
        for (size_t k = 0; k < per && s == TDM_OK; k++) {
            char *name = record_name(op, var, k);
            s = name ? tdm_checkpoint_add(w, name, TDM_F32, &shape,
                                          r->state + per * op->offsets[v] + k * n)
                     : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_save: out of host memory");
            free(name);
        }
    }
    r->fetched = 0; /* taken once */
    return s;
}

/* The chief: each server's variables and slots from the checkpoint, and the global
 * step; its VALUES answer sets the local copies. */
static tdm_status restore_server(const tdm_train_op *op, const remote_server *sv,
                                 const tdm_checkpoint *c, uint64_t step)
{
    static const char func[] = "tdm_train_op_restore";
    size_t per = per_variable(op), bytes = sizeof(tdm_ps_header) + per * sv->floats * sizeof(float);
    float *at = tdm_train_remote_request(op->remote, TDM_PS_RESTORE, sv->count, step, bytes, func);
    if (!at)
        return TDM_ERR_OUT_OF_MEMORY;
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < sv->count && s == TDM_OK; i++) {
        const tdm_variable *var = op->vars[sv->vars[i]];
        tdm_shape shape = tdm_variable_shape(var);
        size_t n = tdm_variable_count(var);
        for (size_t k = 0; k < per && s == TDM_OK; k++, at += n) {
            char *name = record_name(op, var, k);
            s = name ? tdm_checkpoint_read(c, name, TDM_F32, &shape, at, n * sizeof *at)
                     : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
            free(name);
        }
    }
    if (s == TDM_OK)
        s = tdm_train_remote_send(op, sv, bytes, func);
    return s == TDM_OK ? tdm_train_remote_take_values(op, sv, &(uint64_t){0}, func) : s;
}

tdm_status tdm_train_remote_restore(const tdm_train_op *op, const tdm_checkpoint *c, uint64_t step)
{
    tdm_status s = TDM_OK;
    if (!tdm_strategy_is_chief(op->strategy)) {
        for (size_t v = 0; v < op->var_count && s == TDM_OK; v++)
            s = tdm_checkpoint_restore_variable(c, op->vars[v]);
        return s;
    }
    for (size_t k = 0; k < op->remote->server_count && s == TDM_OK; k++)
        s = restore_server(op, &op->remote->servers[k], c, step);
    return s;
}
