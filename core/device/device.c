/* Device queries, completion and events. */
#include <stdlib.h>
#include <string.h>

#include "device/context_impl.h"
#include "device/device_status.h"
#include "base/error.h"
#include "base/options.h"

tdm_status tdm_device_check_alive(const tdm_device *dev, const char *func)
{
    if (!atomic_load(&dev->lost))
        return TDM_OK;
    return tdm_fail(TDM_ERR_DEVICE_LOST, "%s: device %s '%s' was lost earlier", func, dev->desc.id,
                    dev->desc.name);
}

tdm_status tdm_device_result(tdm_device *dev, tdm_status status)
{
    if (status == TDM_ERR_DEVICE_LOST)
        atomic_store(&dev->lost, 1);
    return status;
}

tdm_status tdm_device_describe(const tdm_device *dev, tdm_device_desc *desc)
{
    TDM_CHECK_ARG(dev, "tdm_device_describe");
    TDM_CHECK_ARG(desc, "tdm_device_describe");
    return tdm_options_write(desc, &dev->desc, sizeof *desc, "tdm_device_describe: desc");
}

tdm_status tdm_device_read_counters(const tdm_device *dev, tdm_device_counters *out)
{
    TDM_CHECK_ARG(dev, "tdm_device_read_counters");
    TDM_CHECK_ARG(out, "tdm_device_read_counters");
    const tdm_device_counters all = {
        .kernel_launches = atomic_load_explicit(&dev->launches, memory_order_relaxed),
        .submissions = atomic_load_explicit(&dev->submissions, memory_order_relaxed),
        .host_waits = atomic_load_explicit(&dev->host_waits, memory_order_relaxed),
    };
    return tdm_options_write(out, &all, sizeof all, "tdm_device_read_counters: out");
}

size_t tdm_device_index(const tdm_device *dev)
{
    return dev ? dev->index : 0;
}

/* The physical device a (logical) device was split from, or itself. */
static size_t root_of(const tdm_device *dev)
{
    return dev->desc.parent >= 0 ? (size_t)dev->desc.parent : dev->index;
}

int tdm_device_same_hardware(const tdm_device *a, const tdm_device *b)
{
    if (!a || !b || a->ctx != b->ctx)
        return 0;
    size_t ra = root_of(a), rb = root_of(b);
    if (ra == rb) /* two logical devices of one parent are meant to share */
        return a->desc.parent < 0 || b->desc.parent < 0;
    const tdm_device *pa = a->ctx->devices[ra], *pb = b->ctx->devices[rb];
    return pa->desc.same_hardware_as == (int)rb || pb->desc.same_hardware_as == (int)ra;
}

tdm_status tdm_device_finish(tdm_device *dev)
{
    TDM_CHECK_ARG(dev, "tdm_device_finish");
    tdm_status s = tdm_device_check_alive(dev, "tdm_device_finish");
    return s != TDM_OK ? s : tdm_device_result(dev, dev->ops->finish(dev, dev->impl));
}

tdm_status tdm_device_record_event(tdm_device *dev, tdm_event **out)
{
    TDM_CHECK_ARG(dev, "tdm_device_record_event");
    TDM_CHECK_ARG(out, "tdm_device_record_event");
    *out = NULL;
    tdm_status s = tdm_device_check_alive(dev, "tdm_device_record_event");
    if (s != TDM_OK)
        return s;
    tdm_event *event = calloc(1, sizeof *event);
    if (!event)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_device_record_event: out of host memory");
    event->device = dev;
    s = tdm_device_result(dev, dev->ops->event_record(dev, dev->impl, &event->impl));
    if (s != TDM_OK) {
        free(event);
        return s;
    }
    *out = event;
    return TDM_OK;
}

tdm_status tdm_event_wait(tdm_event *event)
{
    TDM_CHECK_ARG(event, "tdm_event_wait");
    tdm_device *dev = event->device;
    tdm_status s = tdm_device_check_alive(dev, "tdm_event_wait");
    return s != TDM_OK ? s
                       : tdm_device_result(dev, dev->ops->event_wait(dev, dev->impl, event->impl));
}

tdm_status tdm_event_query(tdm_event *event, int *done)
{
    TDM_CHECK_ARG(event, "tdm_event_query");
    TDM_CHECK_ARG(done, "tdm_event_query");
    tdm_device *dev = event->device;
    tdm_status s = tdm_device_check_alive(dev, "tdm_event_query");
    if (s != TDM_OK)
        return s;
    return tdm_device_result(dev, dev->ops->event_query(dev, dev->impl, event->impl, done));
}

void tdm_event_destroy(tdm_event *event)
{
    if (!event)
        return;
    event->device->ops->event_release(event->device, event->device->impl, event->impl);
    free(event);
}

const char *tdm_device_type_name(tdm_device_type type)
{
    switch (type) {
    case TDM_DEVICE_CPU: return "cpu";
    case TDM_DEVICE_GPU: return "gpu";
    case TDM_DEVICE_INTEGRATED_GPU: return "integrated";
    case TDM_DEVICE_OTHER: break;
    }
    return "other";
}
