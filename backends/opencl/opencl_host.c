/* Host addresses for OpenCL buffers on CPU drivers. A CPU driver may keep a buffer
 * created over host memory (CL_MEM_USE_HOST_PTR) in that very memory, so the core can
 * fold and stage in place (the HOST and RANKS plans) without copies. The OpenCL
 * specification lets a driver cache such a buffer elsewhere instead, so a device gets
 * this only where a probe shows the memory is the storage itself, and the core
 * touches it only between events (docs/modules/collective.md, "Ordering rules"). */
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

/* Page-aligned: beyond any CL_DEVICE_MEM_BASE_ADDR_ALIGN, and whole pages. */
#define HOST_ALIGN ((size_t)4096)

static void CL_CALLBACK free_host_memory(cl_mem mem, void *host)
{
    (void)mem;
    free(host);
}

cl_mem tdm_opencl_create_in_host_memory(tdm_opencl_device *d, size_t size, void **host, cl_int *err)
{
    *host = aligned_alloc(HOST_ALIGN, (size + HOST_ALIGN - 1) / HOST_ALIGN * HOST_ALIGN);
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
        free(*host);
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

void *tdm_opencl_host_address(tdm_buffer *buf)
{
    return ((tdm_opencl_buffer *)buf->impl)->host;
}
