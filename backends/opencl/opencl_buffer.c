/* Buffers: cl_mem objects of the platform's context, so that every device of that
 * context can use and copy them. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "opencl_internal.h"

/* The codes drivers use for "no memory left" when creating a buffer; an invalid
 * size is one over a limit, which tandem also reports as out of memory. */
static int is_allocation_failure(cl_int err)
{
    return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
           err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE;
}

/* PoCL allocates lazily, so an allocation failure may only surface on first use.
 * On a CPU driver that stores a buffer in the host memory it is given, tandem gives
 * it memory of its own, which the host then reads and writes in place. */
tdm_status tdm_opencl_buffer_alloc(tdm_buffer *buf, void *device_state, void **state)
{
    tdm_opencl_device *d = device_state;
    const size_t size = tdm_backend_buffer_size(buf);
    tdm_opencl_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s '%s': out of host memory", d->desc->id,
                        d->desc->name);
    b->owner = d;
    cl_int err;
    tdm_opencl_serial_begin(d);
    b->mem = d->host_memory && size
                 ? tdm_opencl_create_in_host_memory(d, size, &b->host, &err)
                 : clCreateBuffer(d->context, CL_MEM_READ_WRITE, size, NULL, &err);
    tdm_opencl_serial_end(d);
    if (err == CL_SUCCESS) {
        *state = b;
        return TDM_OK;
    }
    free(b);
    return tdm_fail(is_allocation_failure(err) ? TDM_ERR_OUT_OF_MEMORY : TDM_ERR_BACKEND,
                    "%s '%s': could not allocate %zu bytes (%.1f MiB): clCreateBuffer "
                    "failed: %s (%d)",
                    d->desc->id, d->desc->name, size, (double)size / 1048576.0,
                    tdm_opencl_error_name(err), (int)err);
}

void tdm_opencl_buffer_free(tdm_buffer *buf, void *state)
{
    (void)buf;
    tdm_opencl_buffer *b = state;
    tdm_opencl_serial_begin(b->owner);
    clReleaseMemObject(b->mem); /* its host memory goes with it, once no command uses it */
    tdm_opencl_serial_end(b->owner);
    free(b);
}

static tdm_status check(const tdm_opencl_device *d, const char *call, cl_int err)
{
    return err == CL_SUCCESS ? TDM_OK : tdm_opencl_fail(d->dev, call, err);
}

/* Writes up to this size return before the device runs them, from a copy of the
 * host's bytes, while the copies waiting in every queue come to no more than
 * STAGED_BYTES_MAX; the rest wait. */
#define STAGED_WRITE_MAX ((size_t)1 << 20)
#define STAGED_BYTES_MAX ((size_t)64 << 20)

static atomic_size_t staged_bytes; /* the copies that queues have not yet written */

/* A copy of a write's bytes, held until the device has taken them. */
typedef struct staged_write {
    size_t size;
    unsigned char bytes[];
} staged_write;

static void CL_CALLBACK release_staged(cl_event event, cl_int status, void *user)
{
    (void)event, (void)status;
    staged_write *w = user;
    atomic_fetch_sub_explicit(&staged_bytes, w->size, memory_order_relaxed);
    free(w);
}

/* A copy of src for a write that returns before the device has run it, or NULL
 * where the write should wait: a large one, or too many bytes already waiting. */
static staged_write *stage(const void *src, size_t size)
{
    if (size > STAGED_WRITE_MAX)
        return NULL;
    size_t before = atomic_fetch_add_explicit(&staged_bytes, size, memory_order_relaxed);
    staged_write *w = before + size <= STAGED_BYTES_MAX ? malloc(sizeof *w + size) : NULL;
    if (!w) {
        atomic_fetch_sub_explicit(&staged_bytes, size, memory_order_relaxed);
        return NULL;
    }
    w->size = size;
    memcpy(w->bytes, src, size);
    return w;
}

/* Queues the write from the copy; the copy goes once the write has run. A driver
 * without event callbacks (Wine's OpenCL) gets the write waited for instead. *call
 * is the OpenCL call that failed. */
static cl_int write_staged(const tdm_opencl_buffer *b, size_t offset, staged_write *w,
                           const char **call)
{
    cl_event done = NULL;
    cl_int err = clEnqueueWriteBuffer(b->owner->queue, b->mem, CL_FALSE, offset, w->size, w->bytes,
                                      0, NULL, &done);
    if (err != CL_SUCCESS) {
        release_staged(NULL, err, w);
    } else if (clSetEventCallback(done, CL_COMPLETE, release_staged, w) != CL_SUCCESS) {
        tdm_device_count_host_wait(b->owner->dev);
        *call = "clWaitForEvents";
        err = clWaitForEvents(1, &done);
        if (err == CL_SUCCESS)
            release_staged(done, err, w); /* else the write may still read it: leaked */
    }
    if (done)
        clReleaseEvent(done);
    return err;
}

/* Small writes return without waiting for the device: a step's input then queues
 * behind the last step's update instead of stopping the host until it is done, and
 * the device's threads find the next step queued. The bytes are copied first, so
 * src is free on return either way. */
tdm_status tdm_opencl_write(tdm_buffer *buf, void *state, size_t offset, const void *src,
                            size_t size)
{
    const tdm_opencl_buffer *b = state;
    staged_write *w = stage(src, size);
    const char *call = "clEnqueueWriteBuffer";
    tdm_opencl_serial_begin(b->owner);
    cl_int err;
    if (w) {
        err = write_staged(b, offset, w, &call);
    } else {
        tdm_device_count_host_wait(tdm_backend_buffer_device(buf));
        err = clEnqueueWriteBuffer(b->owner->queue, b->mem, CL_TRUE, offset, size, src, 0, NULL,
                                   NULL);
    }
    tdm_opencl_serial_end(b->owner);
    return check(b->owner, call, err);
}

tdm_status tdm_opencl_read(tdm_buffer *buf, void *state, size_t offset, void *dst, size_t size)
{
    const tdm_opencl_buffer *b = state;
    tdm_opencl_serial_begin(b->owner);
    tdm_device_count_host_wait(tdm_backend_buffer_device(buf));
    cl_int err =
        clEnqueueReadBuffer(b->owner->queue, b->mem, CL_TRUE, offset, size, dst, 0, NULL, NULL);
    tdm_opencl_serial_end(b->owner);
    return check(b->owner, "clEnqueueReadBuffer", err);
}

tdm_status tdm_opencl_fill(tdm_buffer *buf, void *state, size_t offset, const uint32_t *pattern,
                           size_t words, size_t size)
{
    (void)buf;
    const tdm_opencl_buffer *b = state;
    tdm_opencl_serial_begin(b->owner);
    cl_int err = clEnqueueFillBuffer(b->owner->queue, b->mem, pattern, 4 * words, offset, size, 0,
                                     NULL, NULL);
    tdm_opencl_serial_end(b->owner);
    return check(b->owner, "clEnqueueFillBuffer", err);
}

/* One context means one memory space: buffers move between its devices directly. */
int tdm_opencl_can_copy(const tdm_device *dst, const void *dst_state, const tdm_device *src,
                        const void *src_state)
{
    (void)dst;
    (void)src;
    const tdm_opencl_device *x = dst_state, *y = src_state;
    return x->context == y->context;
}

int tdm_opencl_shares_memory(const tdm_device *a, const void *a_state, const tdm_device *b,
                             const void *b_state)
{
    (void)a;
    (void)b;
    const tdm_opencl_device *x = a_state, *y = b_state;
    return x->context == y->context &&
           (x->device == y->device || (x->host_memory && y->host_memory));
}

/* Checks an enqueue, then flushes: a command another queue waits on must have
 * been flushed, or the wait may never end. */
static tdm_status flushed(tdm_opencl_device *d, const char *call, cl_int err)
{
    if (err == CL_SUCCESS) {
        tdm_device_count_submission(d->dev);
        call = "clFlush";
        err = clFlush(d->queue);
    }
    return check(d, call, err);
}

/* Between the queues of two devices of one context: a marker on src's queue lets
 * the copy on dst's queue see src's earlier work, and a barrier on src's queue
 * keeps src's later work from overwriting src before the copy has read it. */
static tdm_status copy_peer(const tdm_opencl_buffer *dst, size_t dst_offset,
                            const tdm_opencl_buffer *src, size_t src_offset, size_t size)
{
    cl_command_queue src_queue = src->owner->queue;
    cl_event ready = NULL, copied = NULL;
    tdm_status st = flushed(src->owner, "clEnqueueMarkerWithWaitList",
                            clEnqueueMarkerWithWaitList(src_queue, 0, NULL, &ready));

    if (st == TDM_OK)
        st = flushed(dst->owner, "clEnqueueCopyBuffer",
                     clEnqueueCopyBuffer(dst->owner->queue, src->mem, dst->mem, src_offset,
                                         dst_offset, size, 1, &ready, &copied));
    if (st == TDM_OK)
        st = flushed(src->owner, "clEnqueueBarrierWithWaitList",
                     clEnqueueBarrierWithWaitList(src_queue, 1, &copied, NULL));
    if (ready)
        clReleaseEvent(ready);
    if (copied)
        clReleaseEvent(copied);
    return st;
}

/* Both devices are of one context, hence one platform and one serial_lock. */
tdm_status tdm_opencl_copy(tdm_buffer *dst, void *dst_state, size_t dst_offset, tdm_buffer *src,
                           void *src_state, size_t src_offset, size_t size)
{
    (void)dst;
    (void)src;
    const tdm_opencl_buffer *to = dst_state, *from = src_state;
    tdm_status st;

    tdm_opencl_serial_begin(to->owner);
    if (to->owner->queue != from->owner->queue)
        st = copy_peer(to, dst_offset, from, src_offset, size);
    else
        st = check(to->owner, "clEnqueueCopyBuffer",
                   clEnqueueCopyBuffer(to->owner->queue, from->mem, to->mem, src_offset, dst_offset,
                                       size, 0, NULL, NULL));
    tdm_opencl_serial_end(to->owner);
    return st;
}
