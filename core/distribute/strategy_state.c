/* A strategy's state as the rest of distribute reads it: plain accessors at the
 * bottom of the module, calling no other file of it. */
#include "collective/ranks.h"
#include "distribute/strategy_impl.h"

tdm_strategy_kind tdm_strategy_kind_of(const tdm_strategy *s)
{
    return s ? s->kind : TDM_STRATEGY_DEFAULT;
}

size_t tdm_strategy_num_replicas(const tdm_strategy *s)
{
    return s ? s->global_replicas : 0;
}

size_t tdm_strategy_num_local_replicas(const tdm_strategy *s)
{
    return s ? s->replica_count : 0;
}

size_t tdm_strategy_first_replica(const tdm_strategy *s)
{
    return s ? s->first_replica : 0;
}

size_t tdm_strategy_num_workers(const tdm_strategy *s)
{
    return !s ? 1 : s->ranks ? s->ranks->count : s->job ? s->job->count - s->job_servers : 1;
}

size_t tdm_strategy_worker_index(const tdm_strategy *s)
{
    return !s ? 0 : s->ranks ? s->ranks->rank : s->job ? s->job->rank : 0;
}

size_t tdm_strategy_num_parameter_servers(const tdm_strategy *s)
{
    return s && s->job ? s->job_servers : 0;
}

int tdm_strategy_is_parameter_server(const tdm_strategy *s)
{
    return s && s->job && s->job->rank >= s->job->count - s->job_servers;
}

int tdm_strategy_is_chief(const tdm_strategy *s)
{
    return tdm_strategy_worker_index(s) == 0;
}

size_t tdm_strategy_num_parameter_devices(const tdm_strategy *s)
{
    return s ? s->ps_count : 0;
}

tdm_device *tdm_strategy_parameter_device(const tdm_strategy *s, size_t i)
{
    return s && i < s->ps_count ? s->ps_devices[i] : NULL;
}

tdm_device *tdm_strategy_device(const tdm_strategy *s, size_t replica)
{
    return s && replica < s->replica_count ? s->devices[replica] : NULL;
}

int tdm_strategy_device_index(const tdm_strategy *s, const tdm_device *dev)
{
    for (size_t i = 0; i < s->replica_count; i++)
        if (s->devices[i] == dev)
            return (int)i;
    return -1;
}

tdm_collective_options tdm_strategy_collective_options(const tdm_strategy *s)
{
    tdm_collective_options o = TDM_COLLECTIVE_OPTIONS_INIT;
    o.algorithm = s->opts.algorithm;
    o.reduce_on = s->opts.reduce_device;
    o.ranks = s->ranks;
    return o;
}
