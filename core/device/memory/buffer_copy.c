/* tdm_buffer_copy: direct where the backend can reach both buffers, otherwise
 * staged through host memory in chunks (staged_copy.c). */
#include "device/memory/buffer_checks.h"
#include "device/device_status.h"
#include "device/memory/peer_access.h"
#include "base/error.h"
#include "device/memory/staged_copy.h"

static tdm_status check_copy(const tdm_buffer_view *dst, const tdm_buffer_view *src)
{
    const char *f = "tdm_buffer_copy";
    tdm_status s = tdm_check_view(dst, f, "dst");
    if (s == TDM_OK)
        s = tdm_check_view(src, f, "src");
    if (s != TDM_OK)
        return s;
    if (dst->size != src->size)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: dst size %zu differs from src size %zu", f,
                        dst->size, src->size);
    if (dst->buffer == src->buffer && dst->offset < src->offset + src->size &&
        src->offset < dst->offset + dst->size)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: dst [%zu, %zu) overlaps src [%zu, %zu) in the same buffer", f,
                        dst->offset, dst->offset + dst->size, src->offset, src->offset + src->size);
    s = tdm_device_check_alive(dst->buffer->device, f);
    return s != TDM_OK ? s : tdm_device_check_alive(src->buffer->device, f);
}

tdm_status tdm_buffer_copy(const tdm_buffer_view *dst, const tdm_buffer_view *src)
{
    tdm_status s = check_copy(dst, src);
    if (s != TDM_OK || src->size == 0)
        return s;
    tdm_device *to = dst->buffer->device;
    if (!tdm_device_copies_directly(to, src->buffer->device))
        return tdm_staged_copy(dst, src);
    /* The copy runs on dst's queue: a lost device there is dst's. */
    return tdm_device_result(to,
                             to->ops->copy(dst->buffer, dst->buffer->impl, dst->offset, src->buffer,
                                           src->buffer->impl, src->offset, src->size));
}
