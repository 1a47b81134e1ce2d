#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "device_status.h"
#include "error.h"
#include "staged_copy.h"

/* Large enough to amortise each transfer's fixed cost, small enough to stay cheap. */
#define STAGING_CHUNK ((size_t)8 << 20)

/* Each chunk starts on this boundary, so that backends which import host memory
 * (Vulkan's VK_EXT_external_memory_host, 4 KiB on most drivers) can copy straight
 * from and into it: two Vulkan devices then share one host allocation. */
#define STAGING_ALIGN ((size_t)64 << 10)

/* One chunk read on the helper thread; its error message travels back with it,
 * since the last error is per thread. */
typedef struct chunk_read {
    const tdm_buffer_view *src;
    size_t done, size;
    unsigned char *host;
    tdm_status status;
    char message[512];
} chunk_read;

static void *read_chunk(void *arg)
{
    chunk_read *r = arg;
    tdm_device *from = r->src->buffer->device;
    r->status = tdm_device_result(
        from, from->ops->read(r->src->buffer, r->src->offset + r->done, r->host, r->size));
    if (r->status != TDM_OK)
        strncpy(r->message, tdm_last_error(), sizeof r->message - 1);
    return NULL;
}

static chunk_read next_read(const tdm_buffer_view *src, size_t done, size_t chunk,
                            unsigned char *host)
{
    chunk_read r = {src, done, src->size - done < chunk ? src->size - done : chunk, host,
                    TDM_OK, ""};
    return r;
}

/* Writes the chunk just read while the next one is read on another thread (a
 * failed thread start falls back to reading it here, afterwards). */
static tdm_status write_and_read_next(const tdm_buffer_view *dst, const chunk_read *current,
                                      chunk_read *next)
{
    tdm_device *to = dst->buffer->device;
    pthread_t reader;
    int threaded = next->size && pthread_create(&reader, NULL, read_chunk, next) == 0;
    tdm_status s = tdm_device_result(
        to, to->ops->write(dst->buffer, dst->offset + current->done, current->host,
                           current->size));
    if (threaded)
        pthread_join(reader, NULL);
    else if (next->size)
        read_chunk(next);
    if (s == TDM_OK && next->status != TDM_OK)
        s = tdm_fail(next->status, "%s", next->message);
    return s;
}

tdm_status tdm_staged_copy(const tdm_buffer_view *dst, const tdm_buffer_view *src)
{
    size_t chunk = src->size < STAGING_CHUNK ? src->size : STAGING_CHUNK;
    size_t stride = (chunk + STAGING_ALIGN - 1) / STAGING_ALIGN * STAGING_ALIGN;
    unsigned char *host = aligned_alloc(STAGING_ALIGN, 2 * stride);
    if (!host)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_buffer_copy: no host memory for staging");
    chunk_read current = next_read(src, 0, chunk, host);
    read_chunk(&current);
    tdm_status s = current.status != TDM_OK ? tdm_fail(current.status, "%s", current.message)
                                            : TDM_OK;
    for (size_t k = 1; s == TDM_OK && current.size; k++) {
        chunk_read next = next_read(src, current.done + current.size, chunk,
                                    host + (k % 2) * stride);
        s = write_and_read_next(dst, &current, &next);
        current = next;
    }
    free(host);
    return s;
}
