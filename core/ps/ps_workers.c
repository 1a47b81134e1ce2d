/* A parameter server's view of its workers: who is gone, whose turn it is, and who
 * has fallen silent. A worker that sends nothing within the job's deadline while it
 * owes a message (it is not waiting for an answer) died or stalled: a server of a job
 * that tolerates it drops it, unless it is the chief (which alone writes the job's
 * checkpoints); otherwise the job stops, and every worker learns which rank was lost
 * at its next request instead of waiting for a server that has gone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "distribute/variable_access.h"
#include "ps/ps_server.h"

static const char func[] = "tdm_optimizer_serve";

tdm_status tdm_ps_send_error(server *sv, size_t to, const char *text)
{
    size_t len = strlen(text) + 1;
    tdm_status s = tdm_ps_reserve(&sv->out, &sv->out_bytes, sizeof(tdm_ps_header) + len, func);
    if (s != TDM_OK)
        return s;
    tdm_ps_header h = {.kind = TDM_PS_ERROR};
    memcpy(sv->out, &h, sizeof h);
    memcpy(sv->out + sizeof h, text, len);
    return tdm_ps_answer(sv, to, sizeof h + len);
}

tdm_status tdm_ps_answer(server *sv, size_t to, size_t bytes)
{
    tdm_status s = tdm_strategy_job_answer(sv->strategy, to, sv->out, bytes, func);
    /* the transport waits half the deadline for a kept send */
    return s == TDM_ERR_TIMEOUT ? tdm_ps_lose(sv, to, "it took no answer", sv->timeout_s / 2) : s;
}

void tdm_ps_pass_turn(server *sv)
{
    for (size_t k = 1; k <= sv->workers; k++) {
        size_t w = (sv->turn + k) % sv->workers;
        if (!sv->clients[w].gone) {
            sv->turn = w;
            return;
        }
    }
}

void tdm_ps_leave(server *sv, size_t w)
{
    client *c = &sv->clients[w];
    if (!c->gone) {
        c->gone = 1;
        sv->left--;
        if (sv->ordered && sv->turn == w)
            tdm_ps_pass_turn(sv);
    }
}

tdm_status tdm_ps_refuse_lost(server *sv, size_t w)
{
    client *c = &sv->clients[w];
    free(c->held);
    c->held = NULL;
    if (sv->saver == w)
        sv->saver = NO_SAVE;
    tdm_ps_leave(sv, w);
    return tdm_ps_send_error(sv, w, sv->lost);
}

/* Whether worker w owes the server a message: still training, no answer pending. */
static int owes_message(const server *sv, size_t w)
{
    const client *c = &sv->clients[w];
    return !c->gone && !c->held && sv->saver != w;
}

tdm_status tdm_ps_lose(server *sv, size_t w, const char *what, double waited_s)
{
    tdm_ps_leave(sv, w);
    if (sv->tolerate && w != 0)
        return TDM_OK;
    char who[160];
    tdm_strategy_job_describe_rank(sv->strategy, w, who, sizeof who);
    if (!sv->lost[0])
        snprintf(sv->lost, sizeof sv->lost,
                 "%s stopped answering: %s within %g s (died or stalled); "
                 "parameter server rank %zu stops the job%s",
                 who, what, waited_s, tdm_strategy_job_rank(sv->strategy),
                 w ? " (tolerate_lost_workers, tandem train --tolerate-lost-workers, lets the "
                     "other workers go on without it)"
                   : "");
    tdm_status s = TDM_OK;
    for (size_t v = 0; v < sv->workers && s == TDM_OK; v++)
        if (!sv->clients[v].gone && !owes_message(sv, v))
            s = tdm_ps_refuse_lost(sv, v);
    return s;
}

tdm_status tdm_ps_watch_workers(server *sv, double *wait)
{
    double now = tdm_seconds(), next = sv->timeout_s;
    tdm_status s = TDM_OK;
    for (size_t w = 0; w < sv->workers && s == TDM_OK; w++) {
        if (!owes_message(sv, w))
            continue;
        double silent = now - sv->clients[w].contact;
        if (silent > sv->timeout_s)
            s = tdm_ps_lose(sv, w, "nothing from it", sv->timeout_s);
        else if (sv->timeout_s - silent < next)
            next = sv->timeout_s - silent;
    }
    *wait = next > 0.01 ? next : 0.01; /* a poll of no time would spin */
    return s;
}
