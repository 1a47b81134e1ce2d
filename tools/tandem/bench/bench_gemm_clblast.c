/* bench gemm's device peer on OpenCL: CLBlast's Sgemm, or Hgemm for the f16 rows
 * (halves in, halves out: CLBlast sums in half too), called directly from
 * libclblast.so.1, opened at run time, with the OpenCL entry points its loader
 * brought in. tandem's API does not hand out its cl_command_queue, so CLBlast runs
 * on a context and queue of its own for the same cl_device_id: the device's N-th in
 * platform order, as tandem numbers them, and of the same name. */
#include <stdlib.h>

#include "bench_gemm.h"

#ifdef TDM_HAVE_CLBLAST
#include <stdio.h>
#include <string.h>

#include <clblast_c.h>

#include "bench_clock.h"
#include "platform/tdm_dynlib.h"

#define CLBLAST_CALLS(X)                                                                           \
    X(clGetPlatformIDs)                                                                            \
    X(clGetDeviceIDs)                                                                              \
    X(clGetDeviceInfo)                                                                             \
    X(clCreateContext)                                                                             \
    X(clCreateCommandQueue)                                                                        \
    X(clCreateBuffer)                                                                              \
    X(clEnqueueWriteBuffer)                                                                        \
    X(clFinish)                                                                                    \
    X(clReleaseMemObject)                                                                          \
    X(clReleaseCommandQueue)                                                                       \
    X(clReleaseContext)                                                                            \
    X(CLBlastSgemm)                                                                                \
    X(CLBlastHgemm)

#define CLBLAST_POINTER(name) __typeof__(name) *name;

struct clblast_peer {
    tdm_dynlib *handle;
    struct {
        CLBLAST_CALLS(CLBLAST_POINTER)
    } cl;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_mem a, b, c;
    size_t n;
    int f16;
};

/* The index-th device over every platform, in order; NULL when there are fewer. */
static cl_device_id nth_device(clblast_peer *p, unsigned index)
{
    cl_platform_id platforms[16];
    cl_uint platform_count = 0;
    if (p->cl.clGetPlatformIDs(16, platforms, &platform_count) != CL_SUCCESS)
        return NULL;
    for (cl_uint i = 0; i < platform_count && i < 16; i++) {
        cl_device_id ids[64];
        cl_uint count = 0;
        if (p->cl.clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 64, ids, &count) != CL_SUCCESS)
            continue; /* tandem skips such a platform too */
        if (index < count && index < 64)
            return ids[index];
        index -= count;
    }
    return NULL;
}

static void release_buffers(clblast_peer *p)
{
    cl_mem *buffers[] = {&p->a, &p->b, &p->c};
    for (size_t i = 0; i < 3; i++)
        if (*buffers[i])
            p->cl.clReleaseMemObject(*buffers[i]);
    p->a = p->b = p->c = NULL;
}

/* The device named by desc, with a context and queue of the peer's own; 0 or -1. */
static int open_device(clblast_peer *p, const tdm_device_desc *desc, const char **why)
{
    unsigned index;
    int end = 0;
    if (sscanf(desc->id, "opencl:%u%n", &index, &end) != 1 || desc->id[end] != '\0') {
        *why = "not a physical OpenCL device";
        return -1;
    }
    cl_device_id dev = nth_device(p, index);
    char name[TDM_DEVICE_NAME_MAX] = "";
    if (dev)
        p->cl.clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    if (!dev || strcmp(name, desc->name) != 0) {
        *why = "the device is not the same in OpenCL's own order";
        return -1;
    }
    cl_int err;
    p->device = dev;
    p->context = p->cl.clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err == CL_SUCCESS)
        p->queue = p->cl.clCreateCommandQueue(p->context, dev, 0, &err);
    *why = err == CL_SUCCESS ? NULL : "no OpenCL context or queue of its own";
    return err == CL_SUCCESS ? 0 : -1;
}

/* Whether the device has cl_khr_fp16, which Hgemm needs: asked first, so that
 * CLBlast does not print an error of its own. */
static int has_half(clblast_peer *p)
{
    size_t size = 0;
    char *extensions = NULL;
    int found =
        p->cl.clGetDeviceInfo(p->device, CL_DEVICE_EXTENSIONS, 0, NULL, &size) == CL_SUCCESS &&
        (extensions = calloc(1, size + 1)) != NULL &&
        p->cl.clGetDeviceInfo(p->device, CL_DEVICE_EXTENSIONS, size, extensions, NULL) ==
            CL_SUCCESS &&
        strstr(extensions, "cl_khr_fp16") != NULL;
    free(extensions);
    return found;
}

clblast_peer *clblast_peer_open(const tdm_device_desc *desc, int f16, const char **why)
{
    clblast_peer *p = calloc(1, sizeof *p);
    if (!p) {
        *why = "out of memory";
        return NULL;
    }
    static char text[512];
    char reason[256];
    p->handle = tdm_dynlib_open("CLBlast", reason, sizeof reason);
    int found = p->handle != NULL;
#define CLBLAST_FETCH(name)                                                                        \
    found = found && (*(void **)&p->cl.name = tdm_dynlib_symbol(p->handle, #name));
    CLBLAST_CALLS(CLBLAST_FETCH)
#undef CLBLAST_FETCH
    if (p->handle)
        snprintf(text, sizeof text, "%s lacks an entry point", tdm_dynlib_file("CLBlast"));
    else
        snprintf(text, sizeof text, "%s (Debian: libclblast1)", reason);
    *why = text;
    if (found && open_device(p, desc, why) == 0) {
        if (!f16 || has_half(p))
            return p;
        *why = "the device has no half precision (cl_khr_fp16), which Hgemm needs";
    }
    clblast_peer_close(p);
    return NULL;
}

void clblast_peer_close(clblast_peer *p)
{
    if (!p)
        return;
    if (p->handle) {
        release_buffers(p);
        if (p->queue)
            p->cl.clReleaseCommandQueue(p->queue);
        if (p->context)
            p->cl.clReleaseContext(p->context);
        tdm_dynlib_close(p->handle);
    }
    free(p);
}

int clblast_peer_load(clblast_peer *p, const gemm_data *d, const char **why)
{
    size_t element = d->f16 ? sizeof *d->a16 : sizeof *d->a, bytes = d->n * d->n * element;
    const void *a = d->f16 ? (const void *)d->a16 : d->a, *b = d->f16 ? (const void *)d->b16 : d->b;
    cl_int err = CL_SUCCESS;
    release_buffers(p);
    p->n = d->n;
    p->f16 = d->f16;
    cl_mem *buffers[] = {&p->a, &p->b, &p->c};
    for (size_t i = 0; i < 3 && err == CL_SUCCESS; i++)
        *buffers[i] = p->cl.clCreateBuffer(p->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err == CL_SUCCESS)
        err = p->cl.clEnqueueWriteBuffer(p->queue, p->a, CL_TRUE, 0, bytes, a, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = p->cl.clEnqueueWriteBuffer(p->queue, p->b, CL_TRUE, 0, bytes, b, 0, NULL, NULL);
    *why = err == CL_SUCCESS ? NULL : "its buffers could not be made";
    return err == CL_SUCCESS ? 0 : -1;
}

double clblast_peer_time(clblast_peer *p, int trans_a, int trans_b, const char **why)
{
    const CLBlastTranspose ta = trans_a ? CLBlastTransposeYes : CLBlastTransposeNo,
                           tb = trans_b ? CLBlastTransposeYes : CLBlastTransposeNo;
    const cl_half one = 0x3c00, zero = 0; /* 1 and 0 in half */
    size_t n = p->n;
    double t0 = bench_seconds();
    CLBlastStatusCode s =
        p->f16 ? p->cl.CLBlastHgemm(CLBlastLayoutRowMajor, ta, tb, n, n, n, one, p->a, 0, n, p->b,
                                    0, n, zero, p->c, 0, n, &p->queue, NULL)
               : p->cl.CLBlastSgemm(CLBlastLayoutRowMajor, ta, tb, n, n, n, 1.0f, p->a, 0, n, p->b,
                                    0, n, 0.0f, p->c, 0, n, &p->queue, NULL);
    if (s == CLBlastSuccess && p->cl.clFinish(p->queue) != CL_SUCCESS)
        s = CLBlastUnknownError;
    double seconds = bench_seconds() - t0;
    *why = s == CLBlastSuccess ? NULL : "CLBlast failed";
    return s == CLBlastSuccess ? seconds : -1;
}

#else /* built without CLBlast's header: no CLBlast peer */

clblast_peer *clblast_peer_open(const tdm_device_desc *desc, int f16, const char **why)
{
    (void)desc, (void)f16;
    *why = "built without CLBlast (libclblast-dev)";
    return NULL;
}

void clblast_peer_close(clblast_peer *p)
{
    (void)p;
}

int clblast_peer_load(clblast_peer *p, const gemm_data *d, const char **why)
{
    (void)p, (void)d;
    *why = "built without CLBlast";
    return -1;
}

double clblast_peer_time(clblast_peer *p, int trans_a, int trans_b, const char **why)
{
    (void)p, (void)trans_a, (void)trans_b;
    *why = "built without CLBlast";
    return -1;
}
#endif
