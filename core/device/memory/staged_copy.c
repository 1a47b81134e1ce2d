#include <stdio.h>

#include "device/memory/copy_worker.h"
#include "device/device_status.h"
#include "base/error.h"
#include "device/memory/host_staging.h"
#include "device/memory/staged_copy.h"

/* One chunk read on src's copy worker; its error message travels back with it,
 * since the last error is per thread. */
typedef struct chunk_read {
    tdm_job job; /* first: the worker hands back this pointer */
    const tdm_buffer_view *src;
    size_t done, size;
    unsigned char *host;
    tdm_status status;
    char message[512];
} chunk_read;

static void read_chunk(tdm_job *job)
{
    chunk_read *r = (chunk_read *)job;
    tdm_device *from = r->src->buffer->device;
    r->status =
        tdm_device_result(from, from->ops->read(r->src->buffer, r->src->buffer->impl,
                                                r->src->offset + r->done, r->host, r->size));
    if (r->status != TDM_OK)
        snprintf(r->message, sizeof r->message, "%s", tdm_last_error());
}

static void start_read(tdm_worker *reader, chunk_read *r, const tdm_buffer_view *src, size_t done,
                       unsigned char *host)
{
    size_t left = src->size - done;
    *r = (chunk_read){.job.run = read_chunk,
                      .src = src,
                      .done = done,
                      .size = left < TDM_STAGING_CHUNK ? left : TDM_STAGING_CHUNK,
                      .host = host};
    if (!r->size)
        return;
    if (reader)
        tdm_worker_post(reader, &r->job);
    else
        read_chunk(&r->job); /* no thread for it: read here, in turn */
}

static tdm_status finish_read(tdm_worker *reader, chunk_read *r)
{
    if (reader && r->size)
        tdm_worker_wait(reader, &r->job);
    return r->status == TDM_OK ? TDM_OK : tdm_fail(r->status, "%s", r->message);
}

tdm_status tdm_staged_copy(const tdm_buffer_view *dst, const tdm_buffer_view *src)
{
    tdm_context *ctx = dst->buffer->device->ctx;
    tdm_device *to = dst->buffer->device;
    unsigned char *host[2] = {tdm_staging_acquire(ctx), tdm_staging_acquire(ctx)};
    tdm_status s = host[0] && host[1] ? TDM_OK : TDM_ERR_OUT_OF_MEMORY;
    tdm_worker *reader = s == TDM_OK ? tdm_device_copy_worker(src->buffer->device) : NULL;
    chunk_read r[2];
    if (s == TDM_OK) {
        start_read(reader, &r[0], src, 0, host[0]);
        s = finish_read(reader, &r[0]);
    }
    for (size_t k = 0; s == TDM_OK && r[k % 2].size; k++) {
        chunk_read *current = &r[k % 2], *next = &r[(k + 1) % 2];
        start_read(reader, next, src, current->done + current->size, host[(k + 1) % 2]);
        s = tdm_device_result(to, to->ops->write(dst->buffer, dst->buffer->impl,
                                                 dst->offset + current->done, current->host,
                                                 current->size));
        tdm_status read = finish_read(reader, next);
        if (s == TDM_OK)
            s = read;
    }
    tdm_staging_release(ctx, host[0]);
    tdm_staging_release(ctx, host[1]);
    return s;
}
