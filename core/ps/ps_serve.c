/* A parameter server of a job: keeps the variables the workers' train ops give it,
 * applies each push with the optimizer at once and answers with the new values,
 * until every worker has said goodbye (ps_protocol.h). Pushes are applied in arrival
 * order, or, when the strategy orders them, in turn: worker 0, 1, ... and again,
 * skipping those gone, once every worker has joined; a push that comes early is held
 * until its turn. Each worker waits for its answer before its next push, so every
 * value a worker reads is then fixed and the job repeats bit for bit. For a
 * checkpoint it hands the chief its variables and slots at one step, holding back
 * the pushes past that step until it has; on resume it takes them back. A worker
 * that sends nothing within the deadline, unless it waits for an answer, is lost
 * (ps_workers.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "distribute/variable_access.h"
#include "optimizer/optimizer_impl.h"
#include "ps/ps_server.h"

static const char func[] = "tdm_optimizer_serve";

/* VALUES: the client's variables as they are now. */
static tdm_status send_values(server *sv, size_t to, const client *c)
{
    tdm_status s = tdm_ps_reserve(&sv->out, &sv->out_bytes,
                                  sizeof(tdm_ps_header) + c->floats * sizeof(float), func);
    tdm_ps_header h = {.kind = TDM_PS_VALUES, .count = (uint32_t)c->count, .step = sv->pushes};
    if (s == TDM_OK)
        memcpy(sv->out, &h, sizeof h);
    float *at = (float *)(sv->out + sizeof h);
    for (size_t i = 0; i < c->count && s == TDM_OK; i++) {
        tdm_variable *var = c->vars[i];
        s = tdm_variable_read(var, at, tdm_variable_count(var) * sizeof(float));
        at += tdm_variable_count(var);
    }
    return s == TDM_OK ? tdm_ps_answer(sv, to, sizeof h + c->floats * sizeof(float)) : s;
}

/* HELLO: each entry names one of this server's variables with its size. */
static tdm_status join(server *sv, size_t from, const tdm_ps_header *h, const void *body,
                       size_t bytes, char *why, size_t why_size)
{
    client *c = &sv->clients[from];
    if (c->joined || bytes != h->count * sizeof(tdm_ps_entry)) {
        snprintf(why, why_size, "worker %zu: a malformed or repeated hello", from);
        return TDM_ERR_INVALID_ARGUMENT;
    }
    c->vars = calloc(h->count ? h->count : 1, sizeof *c->vars);
    c->grads = calloc(h->count ? h->count : 1, sizeof *c->grads);
    if (!c->vars || !c->grads)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    const tdm_ps_entry *e = body;
    for (size_t i = 0; i < h->count; i++) {
        size_t k = 0;
        while (k < sv->var_count &&
               strncmp(tdm_variable_name(sv->vars[k]), e[i].name, TDM_PS_NAME_MAX))
            k++;
        if (k == sv->var_count || tdm_variable_count(sv->vars[k]) != e[i].elements) {
            snprintf(why, why_size,
                     "worker %zu trains '%.*s' (%llu elements), which this server %s", from,
                     TDM_PS_NAME_MAX, e[i].name, (unsigned long long)e[i].elements,
                     k == sv->var_count ? "does not have among its trainable variables"
                                        : "has with another size");
            return TDM_ERR_INVALID_ARGUMENT;
        }
        tdm_status s = TDM_OK;
        if (!sv->grads[k])
            s = tdm_tensor_create(tdm_tensor_device(tdm_variable_copy(sv->vars[k], 0)), TDM_F32,
                                  &TDM_SHAPE(tdm_variable_count(sv->vars[k])), &sv->grads[k]);
        if (s != TDM_OK)
            return s;
        c->vars[i] = sv->vars[k];
        c->grads[i] = sv->grads[k];
        c->floats += e[i].elements;
    }
    c->count = h->count;
    c->joined = 1;
    return tdm_optimizer_create_slots(sv->opt, c->vars, c->count);
}

/* Whether worker w's push may be applied now, or must be held: past the step of the
 * save under way, or, ordered, before its turn or before every worker has joined. */
static int may_apply(const server *sv, size_t w)
{
    if (sv->saver != NO_SAVE && sv->clients[w].pushed >= sv->target[w])
        return 0;
    if (!sv->ordered)
        return 1;
    for (size_t k = 0; k < sv->workers; k++)
        if (!sv->clients[k].joined && !sv->clients[k].gone)
            return 0;
    return w == sv->turn && !sv->clients[w].gone;
}

/* PUSH: the client's gradients, applied in one optimizer step. */
static tdm_status apply(server *sv, size_t from, const tdm_ps_header *h, const float *g,
                        size_t bytes, char *why, size_t why_size)
{
    client *c = &sv->clients[from];
    if (!c->joined || h->count != c->count || bytes != c->floats * sizeof(float)) {
        snprintf(why, why_size, "worker %zu: a push of %u variables (%zu bytes) for %zu", from,
                 h->count, bytes, c->count);
        return TDM_ERR_INVALID_ARGUMENT;
    }
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < c->count && s == TDM_OK; i++) {
        size_t n = tdm_variable_count(c->vars[i]);
        s = tdm_tensor_write(c->grads[i], g, n * sizeof *g);
        g += n;
    }
    if (s == TDM_OK)
        s = tdm_optimizer_apply(sv->opt, c->vars, c->grads, c->count);
    if (s == TDM_OK) {
        sv->pushes++;
        c->pushed++;
        if (sv->ordered)
            tdm_ps_pass_turn(sv);
    }
    return s;
}

/* The client's variables, each followed by its slots, read into or assigned from
 * `at`. */
static tdm_status move_state(server *sv, const client *c, void *at, int assign)
{
    float *f = at;
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < c->count && s == TDM_OK; i++) {
        size_t bytes = tdm_variable_count(c->vars[i]) * sizeof *f;
        for (size_t k = 0; k <= sv->slots && s == TDM_OK; k++) {
            tdm_variable *v = c->vars[i];
            if (k)
                s = tdm_optimizer_get_slot(sv->opt, c->vars[i], sv->slot_names[k - 1], &v);
            if (s == TDM_OK)
                s = assign ? tdm_variable_assign_host(v, TDM_ASSIGN, f, bytes)
                           : tdm_variable_read(v, f, bytes);
            f += bytes / sizeof *f;
        }
    }
    return s;
}

static size_t state_bytes(const server *sv, const client *c)
{
    return c->floats * (sv->slots + 1) * sizeof(float);
}

/* SAVE: the pushes per worker to wait for. None given: those applied so far, or,
 * ordered, the round of the saver's last push completed, so that every run saves
 * the same state and every worker's input position is the saver's. */
static tdm_status begin_save(server *sv, size_t from, const tdm_ps_header *h, const void *body,
                             size_t bytes, char *why, size_t why_size)
{
    if (!sv->clients[from].joined || (h->count && h->count != sv->workers) ||
        bytes != h->count * sizeof(uint64_t) || sv->saver != NO_SAVE) {
        snprintf(why, why_size, "worker %zu: a malformed or second save request", from);
        return TDM_ERR_INVALID_ARGUMENT;
    }
    for (size_t w = 0; w < sv->workers; w++)
        if (h->count)
            memcpy(&sv->target[w], (const unsigned char *)body + w * sizeof(uint64_t),
                   sizeof(uint64_t));
        else if (sv->ordered)
            sv->target[w] = sv->clients[from].pushed + (w < from);
        else
            sv->target[w] = sv->clients[w].pushed;
    sv->saver = from;
    return TDM_OK;
}

/* Whether every worker still training has made the pushes the save waits for. */
static int save_ready(const server *sv)
{
    for (size_t w = 0; w < sv->workers; w++)
        if (!sv->clients[w].gone && sv->clients[w].pushed < sv->target[w])
            return 0;
    return 1;
}

/* STATE to the worker that asked. */
static tdm_status send_state(server *sv)
{
    const client *c = &sv->clients[sv->saver];
    size_t counts = sv->workers * sizeof(uint64_t),
           bytes = sizeof(tdm_ps_header) + counts + state_bytes(sv, c);
    tdm_status s = tdm_ps_reserve(&sv->out, &sv->out_bytes, bytes, func);
    tdm_ps_header h = {.kind = TDM_PS_STATE, .count = (uint32_t)c->count, .step = sv->pushes};
    if (s == TDM_OK) {
        memcpy(sv->out, &h, sizeof h);
        for (size_t w = 0; w < sv->workers; w++)
            memcpy(sv->out + sizeof h + w * sizeof(uint64_t), &sv->clients[w].pushed,
                   sizeof(uint64_t));
        s = move_state(sv, c, sv->out + sizeof h + counts, 0);
    }
    return s == TDM_OK ? tdm_ps_answer(sv, sv->saver, bytes) : s;
}

/* RESTORE: the client's variables and slots, and the global step to go on from. */
static tdm_status restore(server *sv, size_t from, const tdm_ps_header *h, const void *body,
                          size_t bytes, char *why, size_t why_size)
{
    client *c = &sv->clients[from];
    if (!c->joined || h->count != c->count || bytes != state_bytes(sv, c)) {
        snprintf(why, why_size, "worker %zu: a restore of %u variables (%zu bytes) for %zu", from,
                 h->count, bytes, c->count);
        return TDM_ERR_INVALID_ARGUMENT;
    }
    tdm_status s = move_state(sv, c, (void *)body, 1);
    if (s == TDM_OK)
        s = tdm_optimizer_set_iterations(sv->opt, h->step);
    if (s == TDM_OK)
        sv->pushes = h->step;
    return s;
}

/* A push from a worker that has reached the save's step: kept, and answered once
 * the save is. */
static tdm_status hold(client *c, const unsigned char *bytes, size_t size)
{
    c->held = malloc(size);
    if (!c->held)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    memcpy(c->held, bytes, size);
    c->held_size = size;
    return TDM_OK;
}

static tdm_status handle(server *sv, size_t from, const unsigned char *bytes, size_t size);

/* Worker w's held push, handled now. */
static tdm_status release(server *sv, size_t w)
{
    unsigned char *held = sv->clients[w].held;
    sv->clients[w].held = NULL;
    tdm_status s = held ? handle(sv, w, held, sv->clients[w].held_size) : TDM_OK;
    free(held);
    if (held)
        sv->clients[w].contact = tdm_seconds(); /* answered: its silence starts now */
    return s;
}

/* The save's answer, then the pushes held back for it, in worker order. */
static tdm_status finish_save(server *sv)
{
    size_t saver = sv->saver; /* a saver lost in the answer is no longer the saver */
    tdm_status s = send_state(sv);
    sv->clients[saver].contact = tdm_seconds();
    sv->saver = NO_SAVE;
    for (size_t w = 0; w < sv->workers && s == TDM_OK; w++)
        s = release(sv, w);
    return s;
}

/* One request, answered. A refused one is answered with ERROR and the server goes on
 * (the worker fails); a failure of the server itself ends the service. */
static tdm_status handle(server *sv, size_t from, const unsigned char *bytes, size_t size)
{
    char why[1024] = "";
    tdm_ps_header h;
    if (from >= sv->workers || size < sizeof h)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: rank %zu sent %zu bytes; only workers (ranks below %zu) make "
                        "requests",
                        func, from, size, sv->workers);
    memcpy(&h, bytes, sizeof h);
    const unsigned char *body = bytes + sizeof h;
    size_t body_bytes = size - sizeof h;
    client *c = &sv->clients[from];
    tdm_status s = TDM_OK;
    switch (h.kind) {
    case TDM_PS_HELLO: s = join(sv, from, &h, body, body_bytes, why, sizeof why); break;
    case TDM_PS_PUSH:
        if (!c->joined || c->held) /* a worker waits for each answer */
            snprintf(why, sizeof why, "worker %zu: a push %s", from,
                     c->joined ? "while its last one waits for its answer" : "before its hello");
        else if (!may_apply(sv, from))
            return hold(c, bytes, size);
        else
            s = apply(sv, from, &h, (const float *)body, body_bytes, why, sizeof why);
        break;
    case TDM_PS_SAVE: s = begin_save(sv, from, &h, body, body_bytes, why, sizeof why); break;
    case TDM_PS_RESTORE: s = restore(sv, from, &h, body, body_bytes, why, sizeof why); break;
    case TDM_PS_BYE: tdm_ps_leave(sv, from); break;
    default:
        snprintf(why, sizeof why, "worker %zu: unknown request %u", from, h.kind);
        s = TDM_ERR_INVALID_ARGUMENT;
    }
    if (why[0]) { /* refused: the worker stops, and need not say goodbye */
        tdm_ps_leave(sv, from);
        s = tdm_ps_send_error(sv, from, why);
        return s == TDM_OK && sv->saver != NO_SAVE && save_ready(sv) ? finish_save(sv) : s;
    }
    if (s != TDM_OK) {
        char text[1024];
        snprintf(text, sizeof text, "%s", tdm_last_error());
        tdm_ps_send_error(sv, from, text);
        return s;
    }
    if (h.kind == TDM_PS_PUSH || h.kind == TDM_PS_HELLO || h.kind == TDM_PS_RESTORE)
        s = send_values(sv, from, c);
    return s == TDM_OK && sv->saver != NO_SAVE && save_ready(sv) ? finish_save(sv) : s;
}

/* After a worker left: the save that waited for it, and in turn the pushes held for a
 * turn that has now come. */
static tdm_status settle(server *sv)
{
    tdm_status s = sv->saver != NO_SAVE && save_ready(sv) ? finish_save(sv) : TDM_OK;
    while (s == TDM_OK && sv->ordered && sv->clients[sv->turn].held && may_apply(sv, sv->turn))
        s = release(sv, sv->turn);
    return s;
}

/* Requests until every worker is done; between them, the silent ones are lost. Once
 * the job stops (sv->lost), each worker's next request is answered with why. */
static tdm_status serve(server *sv)
{
    tdm_status s = TDM_OK;
    for (size_t w = 0; w < sv->workers; w++)
        sv->clients[w].contact = tdm_seconds();
    while (s == TDM_OK && sv->left > 0) {
        const void *bytes = NULL;
        size_t size = 0, from = TDM_JOB_ANY;
        double wait = 0;
        s = tdm_ps_watch_workers(sv, &wait);
        if (s == TDM_OK && !sv->lost[0])
            s = settle(sv);
        if (s == TDM_OK && sv->left > 0)
            s = tdm_strategy_job_poll(sv->strategy, wait, &bytes, &size, &from, func);
        if (s != TDM_OK && from < sv->workers) /* it died while its request moved */
            s = tdm_ps_lose(sv, from, "its request did not arrive whole", sv->timeout_s / 2);
        if (s != TDM_OK || !bytes)
            continue;
        if (from < sv->workers)
            sv->clients[from].contact = tdm_seconds();
        if (!sv->lost[0] && from < sv->workers && sv->clients[from].joined &&
            sv->clients[from].gone) /* dropped as lost, and back */
            s = tdm_ps_send_error(sv, from,
                                  "this worker was dropped: it sent nothing within the "
                                  "job's deadline (collective_timeout)");
        else if (!sv->lost[0])
            s = handle(sv, from, bytes, size);
        else if (from < sv->workers && !sv->clients[from].gone)
            s = tdm_ps_refuse_lost(sv, from);
        if (s == TDM_OK && !sv->lost[0])
            s = settle(sv);
    }
    return s == TDM_OK && sv->lost[0] ? tdm_fail(TDM_ERR_TIMEOUT, "%s: %s", func, sv->lost) : s;
}

tdm_status tdm_optimizer_serve(tdm_optimizer *opt)
{
    TDM_CHECK_ARG(opt, func);
    tdm_strategy *s = opt->strategy;
    if (!tdm_strategy_is_parameter_server(s))
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: this process is no parameter server of a job "
                        "(tdm_strategy_create_parameter_server_job): workers train",
                        func);
    server sv = {.opt = opt,
                 .strategy = s,
                 .workers = tdm_strategy_num_workers(s),
                 .ordered = tdm_strategy_job_ordered(s)};
    sv.left = sv.workers;
    sv.saver = NO_SAVE;
    sv.timeout_s = tdm_strategy_job_timeout(s);
    sv.tolerate = tdm_strategy_job_tolerates_lost_workers(s);
    sv.slots = tdm_optimizer_slot_names(opt, sv.slot_names, TDM_OPT_MAX_SLOTS);
    sv.var_count = tdm_strategy_trainable_variables(s, NULL, 0);
    sv.vars = calloc(sv.var_count + 1, sizeof *sv.vars);
    sv.grads = calloc(sv.var_count + 1, sizeof *sv.grads);
    sv.clients = calloc(sv.workers, sizeof *sv.clients);
    sv.target = calloc(sv.workers, sizeof *sv.target);
    tdm_status st = sv.vars && sv.grads && sv.clients && sv.target
                        ? TDM_OK
                        : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    if (st == TDM_OK) {
        tdm_strategy_trainable_variables(s, sv.vars, sv.var_count);
        st = serve(&sv);
    }
    for (size_t k = 0; sv.grads && k < sv.var_count; k++)
        tdm_tensor_destroy(sv.grads[k]);
    for (size_t w = 0; sv.clients && w < sv.workers; w++)
        free(sv.clients[w].vars), free(sv.clients[w].grads), free(sv.clients[w].held);
    free(sv.clients);
    free(sv.target);
    free(sv.grads);
    free(sv.vars);
    free(sv.out);
    return st;
}
