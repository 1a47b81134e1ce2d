/* Events around in-place peer access (docs/modules/collective.md, "Ordering rules" 4):
 * a device that reads or writes another's memory first waits for that device's
 * ready event; when the plan is issued, the owner waits for the accessor's done
 * event. Copies order themselves and need none of this. */
#include <stdlib.h>

#include "collective/collective_impl.h"
#include "base/error.h"
#include "device/event_order.h"

static size_t index_of(const coll_order *o, const tdm_device *dev)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->dev[i] == dev)
            return i;
    return o->n;
}

static void add_device(coll_order *o, tdm_device *dev)
{
    if (index_of(o, dev) == o->n)
        o->dev[o->n++] = dev;
}

tdm_status coll_order_init(coll_order *o, const coll_job *job, tdm_event *const *ready)
{
    size_t most = job->count + job->dst_count;
    *o = (coll_order){0};
    o->dev = calloc(most, sizeof *o->dev);
    o->ready = calloc(most, sizeof *o->ready);
    o->given = calloc(most, sizeof *o->given);
    o->touched = calloc(most * most, sizeof *o->touched);
    if (!o->dev || !o->ready || !o->given || !o->touched) {
        coll_order_free(o);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", job->func);
    }
    for (size_t i = 0; i < job->count; i++)
        add_device(o, coll_dev(&job->values[i]));
    for (size_t d = 0; d < job->dst_count; d++)
        add_device(o, coll_dev(&job->dsts[d]));
    for (size_t i = 0; ready && i < job->count; i++) {
        size_t k = index_of(o, coll_dev(&job->values[i]));
        o->ready[k] = ready[i];
        o->given[k] = 1;
    }
    return TDM_OK;
}

void coll_order_free(coll_order *o)
{
    for (size_t i = 0; o->ready && i < o->n; i++)
        if (!o->given[i])
            tdm_event_destroy(o->ready[i]);
    free(o->dev);
    free(o->ready);
    free(o->given);
    free(o->touched);
    *o = (coll_order){0};
}

tdm_status coll_order_access(coll_order *o, tdm_device *by, tdm_device *owner)
{
    if (by == owner)
        return TDM_OK;
    size_t a = index_of(o, by), t = index_of(o, owner);
    if (a == o->n || t == o->n)
        return tdm_fail(TDM_ERR_INVALID_STATE, "collective: %s is not part of the plan",
                        a == o->n ? by->desc.id : owner->desc.id);
    if (o->touched[a * o->n + t])
        return TDM_OK;
    tdm_status s = o->ready[t] ? TDM_OK : tdm_device_record_event(owner, &o->ready[t]);
    if (s == TDM_OK)
        s = tdm_device_wait_event(by, o->ready[t]);
    if (s == TDM_OK)
        o->touched[a * o->n + t] = 1;
    return s;
}

tdm_status coll_order_host_ready(coll_order *o, tdm_device *dev)
{
    size_t t = index_of(o, dev);
    if (t == o->n)
        return tdm_fail(TDM_ERR_INVALID_STATE, "collective: %s is not part of the plan",
                        dev->desc.id);
    tdm_status s = o->ready[t] ? TDM_OK : tdm_device_record_event(dev, &o->ready[t]);
    return s == TDM_OK ? tdm_event_wait(o->ready[t]) : s;
}

tdm_status coll_order_settle(coll_order *o)
{
    tdm_status first = TDM_OK;
    for (size_t a = 0; a < o->n; a++) {
        tdm_event *done = NULL;
        for (size_t t = 0; t < o->n; t++) {
            if (!o->touched[a * o->n + t])
                continue;
            tdm_status s = done ? TDM_OK : tdm_device_record_event(o->dev[a], &done);
            if (s == TDM_OK)
                s = tdm_device_wait_event(o->dev[t], done);
            first = first != TDM_OK ? first : s;
        }
        tdm_event_destroy(done);
    }
    return first;
}
