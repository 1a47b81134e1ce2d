/* The reference backend: plain C on host memory, single-threaded, synchronous.
 * Every other backend's results are checked against it, so it favours obvious
 * correctness over speed. Its one device is the host; logical devices split from
 * it share host memory, so copies between any two of them are direct. */
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "reference_launch.h"

struct tdm_backend {
    int unused; /* the reference backend keeps no state of its own */
};

static tdm_status host_create(tdm_context *ctx, tdm_backend **out)
{
    (void)ctx;
    *out = calloc(1, sizeof **out);
    return *out ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "reference backend: out of memory");
}

static void host_destroy(tdm_backend *be)
{
    free(be);
}

static size_t host_device_count(const tdm_backend *be)
{
    (void)be;
    return 1;
}

static uint64_t host_memory_bytes(void)
{
    uint64_t memory = tdm_host_memory_bytes();
    return memory ? memory : 1ull << 30;
}

static void host_describe(const tdm_backend *be, size_t index, tdm_device_desc *desc)
{
    (void)be;
    (void)index;
    strcpy(desc->name, "reference (host C)");
    strcpy(desc->vendor, "tandem");
    strcpy(desc->driver, "tandem reference backend");
    desc->type = TDM_DEVICE_CPU;
    desc->global_memory = host_memory_bytes();
    desc->max_allocation = desc->global_memory / 2;
    desc->compute_units = 1;
    strcpy(desc->gemm, "tandem's loops");
}

static tdm_status host_open_device(tdm_backend *be, size_t index, tdm_device *dev, void **state,
                                   tdm_backend_traits *traits)
{
    (void)be;
    (void)index;
    (void)dev;
    (void)traits;
    *state = NULL;
    return TDM_OK;
}

static void host_close_device(tdm_device *dev, void *state)
{
    (void)dev;
    (void)state;
}

/* A buffer's state is its host memory. */
static tdm_status host_buffer_alloc(tdm_buffer *buf, void *device_state, void **state)
{
    (void)device_state;
    size_t size = tdm_backend_buffer_size(buf);
    *state = malloc(size);
    if (!*state)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of host memory",
                        tdm_backend_device_desc(tdm_backend_buffer_device(buf))->id, size);
    return TDM_OK;
}

static void host_buffer_free(tdm_buffer *buf, void *state)
{
    (void)buf;
    free(state);
}

static tdm_status host_write(tdm_buffer *buf, void *state, size_t offset, const void *src,
                             size_t size)
{
    (void)buf;
    memcpy((unsigned char *)state + offset, src, size);
    return TDM_OK;
}

static tdm_status host_read(tdm_buffer *buf, void *state, size_t offset, void *dst, size_t size)
{
    (void)buf;
    memcpy(dst, (unsigned char *)state + offset, size);
    return TDM_OK;
}

static tdm_status host_fill(tdm_buffer *buf, void *state, size_t offset, const uint32_t *pattern,
                            size_t words, size_t size)
{
    (void)buf;
    size_t pattern_bytes = 4 * words;
    for (size_t done = 0; done < size; done += pattern_bytes)
        memcpy((unsigned char *)state + offset + done, pattern, pattern_bytes);
    return TDM_OK;
}

static int host_can_copy(const tdm_device *dst, const void *dst_state, const tdm_device *src,
                         const void *src_state)
{
    (void)dst;
    (void)dst_state;
    (void)src;
    (void)src_state;
    return 1;
}

static tdm_status host_copy(tdm_buffer *dst, void *dst_state, size_t dst_offset, tdm_buffer *src,
                            void *src_state, size_t src_offset, size_t size)
{
    (void)dst;
    (void)src;
    memcpy((unsigned char *)dst_state + dst_offset, (unsigned char *)src_state + src_offset, size);
    return TDM_OK;
}

/* Synchronous: everything has completed by the time a call returns. */
static tdm_status host_finish(tdm_device *dev, void *state)
{
    (void)dev;
    (void)state;
    return TDM_OK;
}

static tdm_status host_event_record(tdm_device *dev, void *state, void **event)
{
    (void)dev;
    (void)state;
    *event = NULL;
    return TDM_OK;
}

static tdm_status host_event_wait(tdm_device *dev, void *state, void *event)
{
    (void)dev;
    (void)state;
    (void)event;
    return TDM_OK;
}

static tdm_status host_event_query(tdm_device *dev, void *state, void *event, int *done)
{
    (void)dev;
    (void)state;
    (void)event;
    *done = 1;
    return TDM_OK;
}

static void host_event_release(tdm_device *dev, void *state, void *event)
{
    (void)dev;
    (void)state;
    (void)event;
}

/* Every event has completed by the time it is recorded. */
static tdm_status host_queue_wait(tdm_device *dev, void *state, tdm_device *src, void *src_state,
                                  void *event)
{
    (void)dev;
    (void)state;
    (void)src;
    (void)src_state;
    (void)event;
    return TDM_OK;
}

static void *host_address(tdm_buffer *buf, void *state)
{
    (void)buf;
    return state;
}

const tdm_backend_ops tdm_reference_backend = {
    .kind = TDM_BACKEND_REFERENCE,
    .create = host_create,
    .destroy = host_destroy,
    .device_count = host_device_count,
    .describe = host_describe,
    .open_device = host_open_device,
    .close_device = host_close_device,
    .buffer_alloc = host_buffer_alloc,
    .buffer_free = host_buffer_free,
    .write = host_write,
    .read = host_read,
    .fill = host_fill,
    .can_copy = host_can_copy,
    .shares_memory = host_can_copy, /* every reference device's buffers are host memory */
    .copy = host_copy,
    .launch = tdm_reference_launch,
    .finish = host_finish,
    .event_record = host_event_record,
    .event_wait = host_event_wait,
    .event_query = host_event_query,
    .event_release = host_event_release,
    .queue_wait = host_queue_wait,
    .host_address = host_address,
};
