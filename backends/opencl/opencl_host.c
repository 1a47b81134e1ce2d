/* Host addresses for OpenCL buffers on CPU drivers. A CPU driver may keep a buffer
 * created over host memory (CL_MEM_USE_HOST_PTR) in that very memory, so the core can
 * fold and stage in place (the HOST and RANKS plans) without copies. The OpenCL
 * specification lets a driver cache such a buffer elsewhere instead, so a device gets
 * this only where a probe shows the memory is the storage itself, and the core
 * touches it only between events (docs/modules/collective.md, "Ordering rules").
 * There the host's libraries also run kernels, as native kernels in the device's
 * queue: OpenBLAS's gemm and oneDNN's convolutions. */
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "opencl_internal.h"

/* Page-aligned: beyond any CL_DEVICE_MEM_BASE_ADDR_ALIGN, and whole pages. */
#define HOST_ALIGN ((size_t)4096)

static void CL_CALLBACK free_host_memory(cl_mem mem, void *host)
{
    (void)mem;
    tdm_host_aligned_free(host);
}

cl_mem tdm_opencl_create_in_host_memory(tdm_opencl_device *d, size_t size, void **host, cl_int *err)
{
    *host = tdm_host_aligned_alloc(HOST_ALIGN, (size + HOST_ALIGN - 1) / HOST_ALIGN * HOST_ALIGN);
    if (!*host) {
        *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    cl_mem mem =
        clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, *host, err);
    if (*err == CL_SUCCESS)
        *err = clSetMemObjectDestructorCallback(mem, free_host_memory, *host);
    if (*err != CL_SUCCESS) {
        if (mem)
            clReleaseMemObject(mem); /* before the callback was set: the memory is ours */
        tdm_host_aligned_free(*host);
        *host = NULL;
        return NULL;
    }
    return mem;
}

/* A write through the queue must show in the host memory, and a store there must
 * show in a read through the queue. */
static int memory_is_storage(tdm_opencl_device *d, cl_mem mem, unsigned char *host)
{
    unsigned char pattern[64], back[64];
    for (size_t i = 0; i < sizeof pattern; i++)
        pattern[i] = (unsigned char)(i * 37 + 11);
    if (clEnqueueWriteBuffer(d->queue, mem, CL_TRUE, 0, sizeof pattern, pattern, 0, NULL, NULL) !=
            CL_SUCCESS ||
        memcmp(host, pattern, sizeof pattern))
        return 0;
    for (size_t i = 0; i < sizeof pattern; i++)
        host[i] = (unsigned char)~pattern[i];
    return clEnqueueReadBuffer(d->queue, mem, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL) ==
               CL_SUCCESS &&
           !memcmp(back, host, sizeof back);
}

int tdm_opencl_probe_host_memory(tdm_opencl_device *d)
{
    cl_device_type type = 0;
    cl_bool unified = CL_FALSE;
    if (clGetDeviceInfo(d->device, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS ||
        !(type & CL_DEVICE_TYPE_CPU) ||
        clGetDeviceInfo(d->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL) !=
            CL_SUCCESS ||
        !unified)
        return 0;
    void *host = NULL;
    cl_int err;
    cl_mem mem = tdm_opencl_create_in_host_memory(d, 64, &host, &err);
    if (!mem)
        return 0;
    int ok = memory_is_storage(d, mem, host);
    clReleaseMemObject(mem);
    return ok;
}

void *tdm_opencl_host_address(tdm_buffer *buf, void *state)
{
    (void)buf;
    return ((tdm_opencl_buffer *)state)->host;
}

float *tdm_opencl_host_floats(const tdm_launch *launch, unsigned slot)
{
    const tdm_opencl_buffer *b = tdm_backend_buffer_state(launch->buffers[slot]);
    return (float *)b->host + launch->offsets[slot];
}

/* One library call on the host's cores at a time: OpenBLAS and oneDNN each split a
 * call among every core, and a call beside another would get fewer and spin against
 * it. It also keeps their bits: a call's split among threads changes the bits, so
 * each call of a shape gets one split, and a process on two devices has the bits of
 * two processes on one. */
static tdm_mutex host_compute_lock = TDM_MUTEX_INIT;

void tdm_opencl_host_compute_begin(void)
{
    tdm_mutex_lock(&host_compute_lock);
}

void tdm_opencl_host_compute_end(void)
{
    tdm_mutex_unlock(&host_compute_lock);
}

/* What a host command holds until it completes. */
typedef struct host_command {
    cl_mem mem[TDM_KERNEL_MAX_BUFFERS];
    unsigned count;
    void (*finished)(void *context);
    void *context;
} host_command;

static void release_command(host_command *h)
{
    for (unsigned i = 0; i < h->count; i++)
        clReleaseMemObject(h->mem[i]);
    if (h->finished)
        h->finished(h->context);
    free(h);
}

static void CL_CALLBACK on_complete(cl_event event, cl_int status, void *user)
{
    (void)event, (void)status;
    release_command(user);
}

tdm_status tdm_opencl_host_command(tdm_opencl_device *d, void(CL_CALLBACK *run)(void *),
                                   const void *args, size_t size, const tdm_launch *launch,
                                   void (*finished)(void *context), void *context)
{
    host_command *h = malloc(sizeof *h);
    if (!h) {
        if (finished)
            finished(context);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s '%s': out of host memory", d->desc->id,
                        d->desc->name);
    }
    *h = (host_command){.count = 0, .finished = finished, .context = context};
    const unsigned count = tdm_kernel_get(launch->kernel)->buffer_count;
    for (unsigned b = 0; b < count; b++)
        if (launch->buffers[b]) {
            h->mem[h->count] = tdm_opencl_mem(launch->buffers[b]);
            clRetainMemObject(h->mem[h->count++]);
        }

    cl_event done = NULL;
    const char *call = "clEnqueueNativeKernel";
    cl_command_queue queue = d->queue;
    int may_run = 0; /* the command was queued and may not have run yet */
    tdm_opencl_serial_begin(d);
    cl_int err =
        clEnqueueNativeKernel(queue, run, (void *)args, size, 0, NULL, NULL, 0, NULL, &done);
    if (err == CL_SUCCESS) {
        call = "clSetEventCallback";
        err = clSetEventCallback(done, CL_COMPLETE, on_complete, h);
        /* without its callback, the command is waited for here: once the queue is
         * finished nothing reads its buffers or context any more */
        may_run = err != CL_SUCCESS && clFinish(queue) != CL_SUCCESS;
    }
    tdm_opencl_serial_end(d);
    if (done)
        clReleaseEvent(done);
    if (err != CL_SUCCESS) {
        if (!may_run) /* else the command keeps them: leaked, never freed under it */
            release_command(h);
        return tdm_opencl_fail(d->dev, call, err);
    }
    return TDM_OK;
}
