/* Buffers: allocation against the device's limits, host transfers. */
#include <inttypes.h>
#include <stdlib.h>

#include "device/buffer_checks.h"
#include "device/device_status.h"
#include "base/error.h"
#include "device/scratch_pool.h"

tdm_status tdm_check_range(const tdm_buffer *buf, size_t offset, size_t size, const char *func,
                           const char *what)
{
    if (offset > buf->size || size > buf->size - offset)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s offset %zu + size %zu is past the end of the %zu-byte buffer",
                        func, what, offset, size, buf->size);
    return TDM_OK;
}

tdm_status tdm_check_view(const tdm_buffer_view *view, const char *func, const char *what)
{
    if (!view)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, what);
    if (!view->buffer)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: %s->buffer is NULL", func, what);
    return tdm_check_range(view->buffer, view->offset, view->size, func, what);
}

/* Reserves the bytes against the device's limits, or fails naming device and limit. */
static tdm_status reserve(tdm_device *dev, size_t size)
{
    const tdm_device_desc *d = &dev->desc;
    if (size > d->max_allocation)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "tdm_buffer_alloc: device %s '%s' cannot allocate %zu bytes in one "
                        "buffer: its max single allocation is %" PRIu64 " bytes",
                        d->id, d->name, size, d->max_allocation);
    pthread_mutex_lock(&dev->lock);
    uint64_t in_use = dev->bytes_in_use;
    int fits = size <= d->global_memory - in_use;
    if (fits)
        dev->bytes_in_use += size;
    pthread_mutex_unlock(&dev->lock);
    if (!fits)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "tdm_buffer_alloc: device %s '%s' cannot allocate %zu bytes: %" PRIu64
                        " of its %" PRIu64 " bytes are in use",
                        d->id, d->name, size, in_use, d->global_memory);
    return TDM_OK;
}

static void link_buffer(tdm_device *dev, tdm_buffer *buf, size_t reserved)
{
    pthread_mutex_lock(&dev->lock);
    if (buf) {
        buf->next = dev->buffers;
        if (dev->buffers)
            dev->buffers->prev = buf;
        dev->buffers = buf;
    } else {
        dev->bytes_in_use -= reserved;
    }
    pthread_mutex_unlock(&dev->lock);
}

static tdm_status allocate(tdm_device *dev, size_t size, tdm_buffer **out)
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
    s = tdm_device_result(dev, dev->ops->buffer_alloc(buf));
    if (s != TDM_OK) {
        free(buf);
        buf = NULL;
    }
    link_buffer(dev, buf, size);
    *out = buf;
    return s;
}

/* Memory the engine keeps idle for reuse is given back before an allocation fails. */
tdm_status tdm_buffer_alloc(tdm_device *dev, size_t size, tdm_buffer **out)
{
    tdm_status s = allocate(dev, size, out);
    if (s == TDM_ERR_OUT_OF_MEMORY && dev && tdm_scratch_trim(dev))
        s = allocate(dev, size, out);
    return s;
}

void tdm_buffer_free(tdm_buffer *buf)
{
    if (!buf)
        return;
    tdm_device *dev = buf->device;
    if (!atomic_load(&dev->lost)) /* a loss seen here makes every later call fail fast */
        tdm_device_result(dev, dev->ops->finish(dev));
    pthread_mutex_lock(&dev->lock);
    if (buf->prev)
        buf->prev->next = buf->next;
    else
        dev->buffers = buf->next;
    if (buf->next)
        buf->next->prev = buf->prev;
    dev->bytes_in_use -= buf->size;
    pthread_mutex_unlock(&dev->lock);
    dev->ops->buffer_free(buf);
    free(buf);
}

size_t tdm_buffer_size(const tdm_buffer *buf)
{
    return buf ? buf->size : 0;
}

tdm_device *tdm_buffer_device(const tdm_buffer *buf)
{
    return buf ? buf->device : NULL;
}

tdm_buffer_view tdm_buffer_whole(tdm_buffer *buf)
{
    tdm_buffer_view view = {buf, 0, buf ? buf->size : 0};
    return view;
}

/* The checks write and read share: buffer, host pointer, range, live device. */
static tdm_status check_transfer(tdm_buffer *buf, size_t offset, const void *host, size_t size,
                                 const char *func, const char *host_name)
{
    if (!buf)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument 'buf' is NULL", func);
    if (!host && size > 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func,
                        host_name);
    tdm_status s = tdm_check_range(buf, offset, size, func, "buffer");
    return s != TDM_OK ? s : tdm_device_check_alive(buf->device, func);
}

tdm_status tdm_buffer_write(tdm_buffer *buf, size_t offset, const void *src, size_t size)
{
    tdm_status s = check_transfer(buf, offset, src, size, "tdm_buffer_write", "src");
    if (s != TDM_OK || size == 0)
        return s;
    return tdm_device_result(buf->device, buf->device->ops->write(buf, offset, src, size));
}

tdm_status tdm_buffer_read(tdm_buffer *buf, size_t offset, void *dst, size_t size)
{
    tdm_status s = check_transfer(buf, offset, dst, size, "tdm_buffer_read", "dst");
    if (s != TDM_OK || size == 0)
        return s;
    return tdm_device_result(buf->device, buf->device->ops->read(buf, offset, dst, size));
}
