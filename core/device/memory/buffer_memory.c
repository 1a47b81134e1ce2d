/* A buffer's memory: reserved against the device's limits, allocated by the backend,
 * linked into the device's list, and freed. */
#include <inttypes.h>
#include <stdlib.h>

#include "base/error.h"
#include "device/memory/buffer_memory.h"
#include "device/device_status.h"

/* Reserves the bytes against the device's limits, or fails naming device and limit. */
static tdm_status reserve(tdm_device *dev, size_t size)
{
    const tdm_device_desc *d = &dev->desc;
    if (size > d->max_allocation)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "tdm_buffer_alloc: device %s '%s' cannot allocate %zu bytes in one "
                        "buffer: its max single allocation is %" PRIu64 " bytes",
                        d->id, d->name, size, d->max_allocation);
    tdm_mutex_lock(&dev->lock);
    uint64_t in_use = dev->bytes_in_use;
    int fits = size <= d->global_memory - in_use;
    if (fits)
        dev->bytes_in_use += size;
    tdm_mutex_unlock(&dev->lock);
    if (!fits)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "tdm_buffer_alloc: device %s '%s' cannot allocate %zu bytes: %" PRIu64
                        " of its %" PRIu64 " bytes are in use",
                        d->id, d->name, size, in_use, d->global_memory);
    return TDM_OK;
}

static void link_buffer(tdm_device *dev, tdm_buffer *buf, size_t reserved)
{
    tdm_mutex_lock(&dev->lock);
    if (buf) {
        buf->next = dev->buffers;
        if (dev->buffers)
            dev->buffers->prev = buf;
        dev->buffers = buf;
    } else {
        dev->bytes_in_use -= reserved;
    }
    tdm_mutex_unlock(&dev->lock);
}

tdm_status tdm_buffer_allocate(tdm_device *dev, size_t size, tdm_buffer **out)
{
    TDM_CHECK_ARG(dev, "tdm_buffer_alloc");
    TDM_CHECK_ARG(out, "tdm_buffer_alloc");
    *out = NULL;
    if (size == 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_buffer_alloc: argument 'size' is 0");
    tdm_status s = tdm_device_check_alive(dev, "tdm_buffer_alloc");
    if (s == TDM_OK)
        s = reserve(dev, size);
    if (s != TDM_OK)
        return s;
    tdm_buffer *buf = calloc(1, sizeof *buf);
    if (!buf) {
        link_buffer(dev, NULL, size);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_buffer_alloc: out of host memory");
    }
    buf->device = dev;
    buf->size = size;
    s = tdm_device_result(dev, dev->ops->buffer_alloc(buf, dev->impl, &buf->impl));
    if (s != TDM_OK) {
        free(buf);
        buf = NULL;
    }
    link_buffer(dev, buf, size);
    *out = buf;
    return s;
}

void tdm_buffer_free(tdm_buffer *buf)
{
    if (!buf)
        return;
    tdm_device *dev = buf->device;
    /* No wait: the backend releases the memory once the work recorded before the free
     * has completed (backend.h). */
    tdm_mutex_lock(&dev->lock);
    if (buf->prev)
        buf->prev->next = buf->next;
    else
        dev->buffers = buf->next;
    if (buf->next)
        buf->next->prev = buf->prev;
    dev->bytes_in_use -= buf->size;
    tdm_mutex_unlock(&dev->lock);
    dev->ops->buffer_free(buf, buf->impl);
    free(buf);
}
