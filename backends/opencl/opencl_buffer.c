/* Buffers: cl_mem objects of the platform's context, so that every device of that
 * context can use and copy them. */
#include <stdlib.h>

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
tdm_status tdm_opencl_buffer_alloc(tdm_buffer *buf, void **state)
{
    const tdm_device *dev = tdm_backend_buffer_device(buf);
    tdm_opencl_device *d = tdm_opencl_dev(dev);
    tdm_opencl_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s '%s': out of host memory",
                        tdm_backend_device_desc(dev)->id, tdm_backend_device_desc(dev)->name);
    cl_int err;
    tdm_opencl_serial_begin(dev);
    b->mem = d->host_memory && tdm_backend_buffer_size(buf)
                 ? tdm_opencl_create_in_host_memory(d, tdm_backend_buffer_size(buf), &b->host, &err)
                 : clCreateBuffer(d->context, CL_MEM_READ_WRITE, tdm_backend_buffer_size(buf), NULL,
                                  &err);
    tdm_opencl_serial_end(dev);
    if (err == CL_SUCCESS) {
        *state = b;
        return TDM_OK;
    }
    free(b);
    return tdm_fail(is_allocation_failure(err) ? TDM_ERR_OUT_OF_MEMORY : TDM_ERR_BACKEND,
                    "%s '%s': could not allocate %zu bytes (%.1f MiB): clCreateBuffer "
                    "failed: %s (%d)",
                    tdm_backend_device_desc(dev)->id, tdm_backend_device_desc(dev)->name,
                    tdm_backend_buffer_size(buf), (double)tdm_backend_buffer_size(buf) / 1048576.0,
                    tdm_opencl_error_name(err), (int)err);
}

void tdm_opencl_buffer_free(tdm_buffer *buf)
{
    tdm_opencl_buffer *b = tdm_backend_buffer_state(buf);
    const tdm_device *dev = tdm_backend_buffer_device(buf);
    tdm_opencl_serial_begin(dev);
    clReleaseMemObject(b->mem); /* its host memory goes with it, once no command uses it */
    tdm_opencl_serial_end(dev);
    free(b);
}

static tdm_status check(const tdm_device *dev, const char *call, cl_int err)
{
    return err == CL_SUCCESS ? TDM_OK : tdm_opencl_fail(dev, call, err);
}

tdm_status tdm_opencl_write(tdm_buffer *buf, size_t offset, const void *src, size_t size)
{
    tdm_opencl_serial_begin(tdm_backend_buffer_device(buf));
    tdm_device_count_host_wait(tdm_backend_buffer_device(buf));
    cl_int err =
        clEnqueueWriteBuffer(tdm_opencl_dev(tdm_backend_buffer_device(buf))->queue,
                             tdm_opencl_mem(buf), CL_TRUE, offset, size, src, 0, NULL, NULL);
    tdm_opencl_serial_end(tdm_backend_buffer_device(buf));
    return check(tdm_backend_buffer_device(buf), "clEnqueueWriteBuffer", err);
}

tdm_status tdm_opencl_read(tdm_buffer *buf, size_t offset, void *dst, size_t size)
{
    tdm_opencl_serial_begin(tdm_backend_buffer_device(buf));
    tdm_device_count_host_wait(tdm_backend_buffer_device(buf));
    cl_int err =
        clEnqueueReadBuffer(tdm_opencl_dev(tdm_backend_buffer_device(buf))->queue,
                            tdm_opencl_mem(buf), CL_TRUE, offset, size, dst, 0, NULL, NULL);
    tdm_opencl_serial_end(tdm_backend_buffer_device(buf));
    return check(tdm_backend_buffer_device(buf), "clEnqueueReadBuffer", err);
}

tdm_status tdm_opencl_fill(tdm_buffer *buf, size_t offset, const uint32_t *pattern, size_t words,
                           size_t size)
{
    tdm_opencl_serial_begin(tdm_backend_buffer_device(buf));
    cl_int err =
        clEnqueueFillBuffer(tdm_opencl_dev(tdm_backend_buffer_device(buf))->queue,
                            tdm_opencl_mem(buf), pattern, 4 * words, offset, size, 0, NULL, NULL);
    tdm_opencl_serial_end(tdm_backend_buffer_device(buf));
    return check(tdm_backend_buffer_device(buf), "clEnqueueFillBuffer", err);
}

/* One context means one memory space: buffers move between its devices directly. */
int tdm_opencl_can_copy(const tdm_device *dst, const tdm_device *src)
{
    return tdm_opencl_dev(dst)->context == tdm_opencl_dev(src)->context;
}

int tdm_opencl_shares_memory(const tdm_device *a, const tdm_device *b)
{
    const tdm_opencl_device *x = tdm_opencl_dev(a), *y = tdm_opencl_dev(b);
    return x->context == y->context &&
           (x->device == y->device || (x->host_memory && y->host_memory));
}

/* Checks an enqueue, then flushes: a command another queue waits on must have
 * been flushed, or the wait may never end. */
static tdm_status flushed(tdm_device *dev, const char *call, cl_int err)
{
    if (err == CL_SUCCESS) {
        tdm_device_count_submission(dev);
        call = "clFlush";
        err = clFlush(tdm_opencl_dev(dev)->queue);
    }
    return check(dev, call, err);
}

/* Between the queues of two devices of one context: a marker on src's queue lets
 * the copy on dst's queue see src's earlier work, and a barrier on src's queue
 * keeps src's later work from overwriting src before the copy has read it. */
static tdm_status copy_peer(tdm_buffer *dst, size_t dst_offset, tdm_buffer *src, size_t src_offset,
                            size_t size)
{
    cl_command_queue src_queue = tdm_opencl_dev(tdm_backend_buffer_device(src))->queue;
    cl_event ready = NULL, copied = NULL;
    tdm_status st = flushed(tdm_backend_buffer_device(src), "clEnqueueMarkerWithWaitList",
                            clEnqueueMarkerWithWaitList(src_queue, 0, NULL, &ready));

    if (st == TDM_OK)
        st = flushed(tdm_backend_buffer_device(dst), "clEnqueueCopyBuffer",
                     clEnqueueCopyBuffer(tdm_opencl_dev(tdm_backend_buffer_device(dst))->queue,
                                         tdm_opencl_mem(src), tdm_opencl_mem(dst), src_offset,
                                         dst_offset, size, 1, &ready, &copied));
    if (st == TDM_OK)
        st = flushed(tdm_backend_buffer_device(src), "clEnqueueBarrierWithWaitList",
                     clEnqueueBarrierWithWaitList(src_queue, 1, &copied, NULL));
    if (ready)
        clReleaseEvent(ready);
    if (copied)
        clReleaseEvent(copied);
    return st;
}

/* Both devices are of one context, hence one platform and one serial_lock. */
tdm_status tdm_opencl_copy(tdm_buffer *dst, size_t dst_offset, tdm_buffer *src, size_t src_offset,
                           size_t size)
{
    cl_command_queue queue = tdm_opencl_dev(tdm_backend_buffer_device(dst))->queue;
    tdm_status st;

    tdm_opencl_serial_begin(tdm_backend_buffer_device(dst));
    if (queue != tdm_opencl_dev(tdm_backend_buffer_device(src))->queue)
        st = copy_peer(dst, dst_offset, src, src_offset, size);
    else
        st = check(tdm_backend_buffer_device(dst), "clEnqueueCopyBuffer",
                   clEnqueueCopyBuffer(queue, tdm_opencl_mem(src), tdm_opencl_mem(dst), src_offset,
                                       dst_offset, size, 0, NULL, NULL));
    tdm_opencl_serial_end(tdm_backend_buffer_device(dst));
    return st;
}
