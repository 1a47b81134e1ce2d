/* A parameter-server job's processes as the train module sees them: ranks, their
 * roles and point-to-point messages, over the rank transport. */
#include <stdio.h>

#include "collective/ranks.h"
#include "distribute/strategy_impl.h"

_Static_assert(TDM_JOB_ANY == TDM_RANK_ANY, "one 'any rank' for the train module and transports");

size_t tdm_strategy_job_rank(const tdm_strategy *s)
{
    return s->job ? s->job->rank : 0;
}

int tdm_strategy_job_ordered(const tdm_strategy *s)
{
    return s->opts.ordered_pushes != 0;
}

int tdm_strategy_job_tolerates_lost_workers(const tdm_strategy *s)
{
    return s->opts.tolerate_lost_workers != 0;
}

double tdm_strategy_job_timeout(const tdm_strategy *s)
{
    return s->opts.collective_timeout;
}

size_t tdm_strategy_job_server_rank(const tdm_strategy *s, size_t server)
{
    return s->job->count - s->job_servers + server;
}

void tdm_strategy_job_describe_rank(const tdm_strategy *s, size_t rank, char *out, size_t size)
{
    size_t workers = s->job->count - s->job_servers;
    if (rank >= workers)
        snprintf(out, size, "rank %zu (parameter server %zu)", rank, rank - workers);
    else
        snprintf(out, size, "rank %zu (%sworker %zu of %zu, training shard %zu of the data)", rank,
                 rank ? "" : "the chief, ", rank, workers, rank);
}

tdm_status tdm_strategy_job_send(tdm_strategy *s, size_t to, const void *bytes, size_t size,
                                 const char *what)
{
    return tdm_ranks_send(s->job, to, bytes, size, 0, what);
}

tdm_status tdm_strategy_job_answer(tdm_strategy *s, size_t to, const void *bytes, size_t size,
                                   const char *what)
{
    return tdm_ranks_send(s->job, to, bytes, size, 1, what);
}

tdm_status tdm_strategy_job_receive(tdm_strategy *s, size_t from, const void **bytes, size_t *size,
                                    size_t *sender, const char *what)
{
    return tdm_ranks_receive(s->job, from, 0, bytes, size, sender, what);
}

tdm_status tdm_strategy_job_poll(tdm_strategy *s, double wait_s, const void **bytes, size_t *size,
                                 size_t *sender, const char *what)
{
    return tdm_ranks_receive(s->job, TDM_JOB_ANY, wait_s, bytes, size, sender, what);
}
