/* The strategy's engine thread: collectives that block the host run on it in issue
 * order, so replica threads keep issuing their work (docs/modules/collective.md,
 * "Persistent threads"). Below both its users, the run and the replica collectives. */
#include "distribute/strategy_impl.h"

tdm_status tdm_strategy_engine(tdm_strategy *s, tdm_worker **out)
{
    tdm_mutex_lock(&s->lock);
    tdm_status st = s->engine.started ? TDM_OK : tdm_worker_start(&s->engine);
    tdm_mutex_unlock(&s->lock);
    *out = st == TDM_OK ? &s->engine : NULL;
    return st;
}

tdm_worker *tdm_strategy_engine_worker(tdm_strategy *s)
{
    return &s->engine;
}

void tdm_strategy_stop_engine(tdm_strategy *s)
{
    tdm_worker_stop(&s->engine);
}
