/* The train op of a parameter-server job's worker: its variables live on the servers
 * (variable i on server i % servers). Creating it joins every server and takes their
 * values; each step sends replica 0's summed gradients to the servers and writes the
 * values they answer into every local copy; destroying it says goodbye
 * (ps_protocol.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "distribute/variable_access.h"
#include "train_op/train_op_remote.h"

/* A server that let a request or its answer wait past the deadline, named by its role
 * (the transport knows ranks alone). */
static tdm_status server_silent(const tdm_train_op *op, const remote_server *sv, const char *func,
                                const char *waited)
{
    char who[128];
    tdm_strategy_job_describe_rank(op->strategy, sv->rank, who, sizeof who);
    return tdm_fail(TDM_ERR_TIMEOUT,
                    "%s: %s stopped answering: %s within %g s (died or stalled; the bound is "
                    "collective_timeout, TDM_COLLECTIVE_TIMEOUT)",
                    func, who, waited, tdm_strategy_job_timeout(op->strategy));
}

tdm_status tdm_train_remote_answer(const tdm_train_op *op, const remote_server *sv, uint32_t kind,
                                   size_t body_bytes, tdm_ps_header *h, const unsigned char **body,
                                   const char *func)
{
    const void *bytes = NULL;
    size_t size = 0, from = 0;
    tdm_strategy *s = op->strategy;
    char what[128];
    snprintf(what, sizeof what, "%s: waiting for parameter server rank %zu", func, sv->rank);
    tdm_status st = tdm_strategy_job_receive(s, sv->rank, &bytes, &size, &from, what);
    if (st == TDM_ERR_TIMEOUT)
        return server_silent(op, sv, func, "no reply");
    if (st != TDM_OK)
        return st;
    if (size >= sizeof *h)
        memcpy(h, bytes, sizeof *h);
    *body = (const unsigned char *)bytes + sizeof *h;
    if (size >= sizeof *h && h->kind == TDM_PS_ERROR)
        return tdm_fail(TDM_ERR_REMOTE, "%s: parameter server rank %zu refused: %.*s", func,
                        sv->rank, (int)(size - sizeof *h), (const char *)*body);
    if (size != sizeof *h + body_bytes || h->kind != kind || h->count != sv->count)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: parameter server rank %zu answered %zu bytes, expected the %s "
                        "of %zu variables",
                        func, sv->rank, size, kind == TDM_PS_STATE ? "state" : "values", sv->count);
    return TDM_OK;
}

tdm_status tdm_train_remote_take_values(const tdm_train_op *op, const remote_server *sv,
                                        uint64_t *step, const char *func)
{
    tdm_ps_header h;
    const unsigned char *body = NULL;
    tdm_status st =
        tdm_train_remote_answer(op, sv, TDM_PS_VALUES, sv->floats * sizeof(float), &h, &body, func);
    if (st != TDM_OK)
        return st;
    *step = h.step;
    for (size_t i = 0; i < sv->count && st == TDM_OK; i++) {
        tdm_variable *var = op->vars[sv->vars[i]];
        size_t n = tdm_variable_count(var);
        st = tdm_variable_assign_host(var, TDM_ASSIGN, (const float *)body, n * sizeof(float));
        body += n * sizeof(float);
    }
    return st;
}

tdm_status tdm_train_remote_send(const tdm_train_op *op, const remote_server *sv, size_t bytes,
                                 const char *func)
{
    char what[128];
    snprintf(what, sizeof what, "%s: sending to parameter server rank %zu", func, sv->rank);
    tdm_status s = tdm_strategy_job_send(op->strategy, sv->rank, op->remote->out, bytes, what);
    return s == TDM_ERR_TIMEOUT ? server_silent(op, sv, func, "it took no request") : s;
}

/* The request built in r->out to the server, then its VALUES. */
static tdm_status send_then_take(tdm_train_op *op, const remote_server *sv, size_t bytes,
                                 uint64_t *step, const char *func)
{
    tdm_status s = tdm_train_remote_send(op, sv, bytes, func);
    return s == TDM_OK ? tdm_train_remote_take_values(op, sv, step, func) : s;
}

void *tdm_train_remote_request(tdm_train_remote *r, uint32_t kind, size_t count, uint64_t step,
                               size_t bytes, const char *func)
{
    if (tdm_ps_reserve(&r->out, &r->out_bytes, bytes, func) != TDM_OK)
        return NULL;
    memset(r->out, 0, bytes);
    tdm_ps_header h = {.kind = kind, .count = (uint32_t)count, .step = step};
    memcpy(r->out, &h, sizeof h);
    return r->out + sizeof h;
}

/* HELLO to one server: its variables by name and size. */
static tdm_status join(tdm_train_op *op, remote_server *sv, uint64_t *step)
{
    static const char func[] = "tdm_train_op_create";
    tdm_train_remote *r = op->remote;
    size_t bytes = sizeof(tdm_ps_header) + sv->count * sizeof(tdm_ps_entry);
    tdm_ps_entry *e = tdm_train_remote_request(r, TDM_PS_HELLO, sv->count, 0, bytes, func);
    if (!e)
        return TDM_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < sv->count; i++) {
        const tdm_variable *var = op->vars[sv->vars[i]];
        const char *name = tdm_variable_name(var);
        if (strlen(name) >= TDM_PS_NAME_MAX)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: variable '%.40s...': parameter servers know variables by "
                            "names of under %d bytes",
                            func, name, TDM_PS_NAME_MAX);
        e[i].elements = tdm_variable_count(var);
        memcpy(e[i].name, name, strlen(name));
    }
    return send_then_take(op, sv, bytes, step, func);
}

/* Variable i to server i % servers. */
static tdm_status assign_servers(tdm_train_op *op, tdm_train_remote *r)
{
    size_t n = tdm_strategy_num_parameter_servers(op->strategy);
    r->servers = calloc(n, sizeof *r->servers);
    r->flat = malloc((op->total + 1) * sizeof *r->flat);
    if (!r->servers || !r->flat)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    r->server_count = n;
    for (size_t k = 0; k < n; k++) {
        remote_server *sv = &r->servers[k];
        sv->rank = tdm_strategy_job_server_rank(op->strategy, k);
        sv->vars = calloc(op->var_count / n + 1, sizeof *sv->vars);
        if (!sv->vars)
            return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
        for (size_t i = k; i < op->var_count; i += n) {
            sv->vars[sv->count++] = i;
            sv->floats += tdm_variable_count(op->vars[i]);
        }
    }
    return TDM_OK;
}

tdm_status tdm_train_remote_open(tdm_train_op *op)
{
    if (tdm_strategy_is_parameter_server(op->strategy))
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "tdm_train_op_create: this process is a parameter server of its job; "
                        "it serves the workers' train ops with tdm_optimizer_serve");
    op->remote = calloc(1, sizeof *op->remote);
    if (!op->remote)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    op->remote->failed = SIZE_MAX;
    tdm_status s = assign_servers(op, op->remote);
    uint64_t step = 0;
    for (size_t k = 0; k < op->remote->server_count && s == TDM_OK; k++)
        if ((s = join(op, &op->remote->servers[k], k ? &(uint64_t){0} : &step)) != TDM_OK)
            op->remote->failed = k;
    return s == TDM_OK ? tdm_train_op_set_global_step(op, step) : s;
}

/* PUSH to one server: its variables' gradients, in its order. */
static tdm_status push(tdm_train_op *op, const remote_server *sv, uint64_t *step)
{
    static const char func[] = "tdm_train_op_run";
    tdm_train_remote *r = op->remote;
    size_t bytes = sizeof(tdm_ps_header) + sv->floats * sizeof(float);
    unsigned char *at = tdm_train_remote_request(r, TDM_PS_PUSH, sv->count, 0, bytes, func);
    if (!at)
        return TDM_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < sv->count; i++) {
        size_t v = sv->vars[i], n = tdm_variable_count(op->vars[v]) * sizeof(float);
        memcpy(at, r->flat + op->offsets[v], n);
        at += n;
    }
    return send_then_take(op, sv, bytes, step, func);
}

/* One server at a time: a server answers a worker that waits for it alone, so no
 * two processes wait on each other. */
tdm_status tdm_train_remote_step(tdm_train_op *op, uint64_t *step)
{
    tdm_train_remote *r = op->remote;
    tdm_status s = tdm_tensor_read(op->replicas[0].flat, r->flat, (op->total + 1) * sizeof(float));
    for (size_t k = 0; k < r->server_count && s == TDM_OK; k++)
        s = push(op, &r->servers[k], k ? &(uint64_t){0} : step);
    return s;
}

void tdm_train_remote_close(tdm_train_op *op)
{
    tdm_train_remote *r = op->remote;
    if (!r)
        return;
    tdm_ps_header bye = {.kind = TDM_PS_BYE};
    tdm_error_hold(); /* a goodbye that fails keeps the failure that ended the run first */
    for (size_t k = 0; k < r->server_count; k++) {
        if (k != r->failed)
            tdm_strategy_job_send(op->strategy, r->servers[k].rank, &bye, sizeof bye,
                                  "tdm_train_op_destroy");
        free(r->servers[k].vars);
    }
    tdm_error_release();
    free(r->servers);
    free(r->flat);
    free(r->out);
    free(r->state);
    free(r);
    op->remote = NULL;
}
