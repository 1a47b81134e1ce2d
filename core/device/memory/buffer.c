/* Buffers: allocation against the device's limits, host transfers. */

#include "device/memory/buffer_checks.h"
#include "device/device_status.h"
#include "base/error.h"
#include "device/memory/scratch_pool.h"

tdm_status tdm_check_range(const tdm_buffer *buf, size_t offset, size_t size, const char *func,
                           const char *what)
{
    if (offset > buf->size || size > buf->size - offset)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s offset %zu + size %zu is past the end of the %zu-byte buffer", func,
                        what, offset, size, buf->size);
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

tdm_status tdm_buffer_alloc(tdm_device *dev, size_t size, tdm_buffer **out)
{
    return tdm_scratch_allocate(dev, size, out);
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
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, host_name);
    tdm_status s = tdm_check_range(buf, offset, size, func, "buffer");
    return s != TDM_OK ? s : tdm_device_check_alive(buf->device, func);
}

tdm_status tdm_buffer_write(tdm_buffer *buf, size_t offset, const void *src, size_t size)
{
    tdm_status s = check_transfer(buf, offset, src, size, "tdm_buffer_write", "src");
    if (s != TDM_OK || size == 0)
        return s;
    return tdm_device_result(buf->device,
                             buf->device->ops->write(buf, buf->impl, offset, src, size));
}

tdm_status tdm_buffer_read(tdm_buffer *buf, size_t offset, void *dst, size_t size)
{
    tdm_status s = check_transfer(buf, offset, dst, size, "tdm_buffer_read", "dst");
    if (s != TDM_OK || size == 0)
        return s;
    return tdm_device_result(buf->device,
                             buf->device->ops->read(buf, buf->impl, offset, dst, size));
}
