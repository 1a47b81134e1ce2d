/* tdm_buffer_copy: direct where the backend can reach both buffers, otherwise
 * staged through host memory in chunks. */
#include <stdlib.h>

#include "buffer_checks.h"
#include "device_status.h"
#include "error.h"

/* Large enough to amortise each transfer's fixed cost, small enough to stay cheap. */
#define STAGING_CHUNK ((size_t)8 << 20)

static tdm_status check_copy(const tdm_buffer_view *dst, const tdm_buffer_view *src)
{
    const char *f = "tdm_buffer_copy";
    tdm_status s = tdm_check_view(dst, f, "dst");
    if (s == TDM_OK)
        s = tdm_check_view(src, f, "src");
    if (s != TDM_OK)
        return s;
    if (dst->size != src->size)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: dst size %zu differs from src size %zu", f, dst->size, src->size);
    if (dst->buffer == src->buffer && dst->offset < src->offset + src->size &&
        src->offset < dst->offset + dst->size)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: dst [%zu, %zu) overlaps src [%zu, %zu) in the same buffer", f,
                        dst->offset, dst->offset + dst->size, src->offset,
                        src->offset + src->size);
    s = tdm_device_check_alive(dst->buffer->device, f);
    return s != TDM_OK ? s : tdm_device_check_alive(src->buffer->device, f);
}

static int direct_path(const tdm_device *dst, const tdm_device *src)
{
    if (dst == src)
        return 1;
    return dst->ops == src->ops && dst->ops->can_copy && dst->ops->can_copy(dst, src);
}

/* Blocking reads and writes keep the promised ordering on both devices. */
static tdm_status staged_copy(const tdm_buffer_view *dst, const tdm_buffer_view *src)
{
    size_t chunk = src->size < STAGING_CHUNK ? src->size : STAGING_CHUNK;
    unsigned char *host = malloc(chunk);
    if (!host)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_buffer_copy: no host memory for staging");
    tdm_device *from = src->buffer->device, *to = dst->buffer->device;
    tdm_status s = TDM_OK;
    for (size_t done = 0; done < src->size && s == TDM_OK; done += chunk) {
        size_t n = src->size - done < chunk ? src->size - done : chunk;
        s = tdm_device_result(from, from->ops->read(src->buffer, src->offset + done, host, n));
        if (s == TDM_OK)
            s = tdm_device_result(to, to->ops->write(dst->buffer, dst->offset + done, host, n));
    }
    free(host);
    return s;
}

tdm_status tdm_buffer_copy(const tdm_buffer_view *dst, const tdm_buffer_view *src)
{
    tdm_status s = check_copy(dst, src);
    if (s != TDM_OK || src->size == 0)
        return s;
    tdm_device *to = dst->buffer->device;
    if (!direct_path(to, src->buffer->device))
        return staged_copy(dst, src);
    /* The copy runs on dst's queue: a lost device there is dst's. */
    return tdm_device_result(
        to, to->ops->copy(dst->buffer, dst->offset, src->buffer, src->offset, src->size));
}
