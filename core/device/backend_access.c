/* device/backend_api.h: what a backend reads of the core's handles, and the counters it
 * adds to. */
#include <stdatomic.h>
#include <stdio.h>

#include "device/backend_api.h"
#include "device/device_impl.h"

const tdm_device_desc *tdm_backend_device_desc(const tdm_device *dev)
{
    return &dev->desc;
}

tdm_context *tdm_backend_device_context(const tdm_device *dev)
{
    return dev->ctx;
}

void tdm_backend_device_set_matrix_engine(tdm_device *dev, const char *text)
{
    snprintf(dev->desc.matrix_engine, sizeof dev->desc.matrix_engine, "%s", text);
}

tdm_device *tdm_backend_buffer_device(const tdm_buffer *buf)
{
    return buf->device;
}

size_t tdm_backend_buffer_size(const tdm_buffer *buf)
{
    return buf->size;
}

void *tdm_backend_buffer_state(const tdm_buffer *buf)
{
    return buf->impl;
}

void tdm_device_count_submission(tdm_device *dev)
{
    atomic_fetch_add_explicit(&dev->submissions, 1, memory_order_relaxed);
}

void tdm_device_count_host_wait(tdm_device *dev)
{
    atomic_fetch_add_explicit(&dev->host_waits, 1, memory_order_relaxed);
}
