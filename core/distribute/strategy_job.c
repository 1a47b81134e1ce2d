/* A parameter-server job's processes as the train module sees them: ranks and
 * point-to-point messages, over the rank transport. */
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

size_t tdm_strategy_job_server_rank(const tdm_strategy *s, size_t server)
{
    return s->job->count - s->job_servers + server;
}

tdm_status tdm_strategy_job_send(tdm_strategy *s, size_t to, const void *bytes, size_t size,
                                 const char *what)
{
    return tdm_ranks_send(s->job, to, bytes, size, what);
}

tdm_status tdm_strategy_job_receive(tdm_strategy *s, size_t from, const void **bytes, size_t *size,
                                    size_t *sender, const char *what)
{
    return tdm_ranks_receive(s->job, from, bytes, size, sender, what);
}
