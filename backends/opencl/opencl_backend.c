/* The OpenCL backend: its ops table, and discovery of platforms and devices with
 * one cl_context per platform, so that the devices of a platform share buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "opencl_internal.h"

/* All platforms the ICD loader offers; NOT_FOUND when there is none. */
static tdm_status get_platforms(cl_platform_id **out, cl_uint *count)
{
    cl_int err = clGetPlatformIDs(0, NULL, count);

    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && *count == 0))
        return tdm_fail(TDM_ERR_NOT_FOUND,
                        "opencl: no OpenCL platform found (is an ICD installed in "
                        "/etc/OpenCL/vendors?)");
    if (err != CL_SUCCESS)
        return tdm_fail(TDM_ERR_BACKEND, "opencl: clGetPlatformIDs failed: %s (%d)",
                        tdm_opencl_error_name(err), (int)err);
    *out = calloc(*count, sizeof **out);
    if (!*out)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "opencl: out of host memory");
    err = clGetPlatformIDs(*count, *out, NULL);
    if (err == CL_SUCCESS)
        return TDM_OK;
    free(*out);
    return tdm_fail(TDM_ERR_BACKEND, "opencl: clGetPlatformIDs failed: %s (%d)",
                    tdm_opencl_error_name(err), (int)err);
}

/* The platform's devices in *ids (caller frees). 0 when it has none or the query
 * fails, which skips that platform only. */
static cl_uint platform_devices(tdm_backend *be, const tdm_opencl_platform *p, cl_device_id **ids)
{
    cl_uint n = 0;
    cl_int err = clGetDeviceIDs(p->id, CL_DEVICE_TYPE_ALL, 0, NULL, &n);

    *ids = NULL;
    if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && n == 0)) {
        tdm_log(be->ctx, TDM_LOG_INFO, "opencl: platform '%s' has no devices", p->name);
        return 0;
    }
    if (err == CL_SUCCESS) {
        *ids = calloc(n, sizeof **ids);
        err =
            *ids ? clGetDeviceIDs(p->id, CL_DEVICE_TYPE_ALL, n, *ids, NULL) : CL_OUT_OF_HOST_MEMORY;
    }
    if (err == CL_SUCCESS)
        return n;
    tdm_log(be->ctx, TDM_LOG_WARN, "opencl: platform '%s' skipped: clGetDeviceIDs failed: %s (%d)",
            p->name, tdm_opencl_error_name(err), (int)err);
    free(*ids);
    *ids = NULL;
    return 0;
}

/* Gives platform p a context over its n devices; 0 (logged) when that fails. */
static int platform_context(tdm_backend *be, tdm_opencl_platform *p, cl_uint n,
                            const cl_device_id *ids)
{
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p->id, 0};
    cl_int err;

    p->context = clCreateContext(props, n, ids, NULL, NULL, &err);
    if (err == CL_SUCCESS)
        return 1;
    tdm_log(be->ctx, TDM_LOG_WARN, "opencl: platform '%s' skipped: clCreateContext failed: %s (%d)",
            p->name, tdm_opencl_error_name(err), (int)err);
    return 0;
}

/* Takes the platform in slot platform_count with its n devices, numbered after
 * those of earlier platforms. be->devices has room for them. */
static tdm_status commit_platform(tdm_backend *be, cl_uint n, const cl_device_id *ids)
{
    tdm_opencl_platform *p = &be->platforms[be->platform_count];

    if (tdm_mutex_init(&p->program_lock) != 0) {
        clReleaseContext(p->context);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "opencl: platform '%s': cannot create a mutex",
                        p->name);
    }
    if (tdm_mutex_init(&p->serial_lock) != 0) {
        tdm_mutex_destroy(&p->program_lock);
        clReleaseContext(p->context);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "opencl: platform '%s': cannot create a mutex",
                        p->name);
    }
    for (cl_uint i = 0; i < n; i++)
        be->devices[be->device_count++] = (tdm_opencl_physical){ids[i], p};
    be->platform_count++;
    return TDM_OK;
}

/* Adds the next platform. One without devices or context is skipped (logged);
 * only running out of host memory fails. */
static tdm_status add_platform(tdm_backend *be, cl_platform_id id)
{
    tdm_opencl_platform *p = &be->platforms[be->platform_count];
    cl_device_id *ids;
    tdm_status st = TDM_OK;

    p->id = id;
    if (clGetPlatformInfo(id, CL_PLATFORM_NAME, sizeof p->name, p->name, NULL) != CL_SUCCESS)
        snprintf(p->name, sizeof p->name, "(unnamed)");
    p->serial = !strcmp(p->name, "Oclgrind"); /* the simulator: see serial_lock */
    cl_uint n = platform_devices(be, p, &ids);
    if (n == 0)
        return TDM_OK;
    tdm_opencl_physical *grown = realloc(be->devices, (be->device_count + n) * sizeof *grown);
    if (!grown) {
        free(ids);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "opencl: out of host memory");
    }
    be->devices = grown;
    if (platform_context(be, p, n, ids))
        st = commit_platform(be, n, ids);
    free(ids);
    return st;
}

static void opencl_destroy(tdm_backend *be)
{
    if (!be)
        return;
    tdm_opencl_clblast_forget_programs();
    for (size_t i = 0; i < be->platform_count; i++) {
        tdm_opencl_program_cache_free(&be->platforms[i]);
        tdm_mutex_destroy(&be->platforms[i].program_lock);
        tdm_mutex_destroy(&be->platforms[i].serial_lock);
        clReleaseContext(be->platforms[i].context);
    }
    free(be->platforms);
    free(be->devices);
    free(be);
}

static tdm_status opencl_create(tdm_context *ctx, tdm_backend **out)
{
    cl_platform_id *ids = NULL;
    cl_uint count = 0;
    tdm_status st;

    const char *loader;
    st = tdm_opencl_load(&loader);
    if (st != TDM_OK)
        return st;
    tdm_pocl_cache_prepare(ctx); /* must precede the first OpenCL call */
    st = get_platforms(&ids, &count);
    if (st != TDM_OK)
        return st;
    tdm_backend *be = calloc(1, sizeof *be);
    if (be)
        be->platforms = calloc(count, sizeof *be->platforms);
    if (!be || !be->platforms) {
        free(be);
        free(ids);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "opencl: out of host memory");
    }
    be->ctx = ctx;
    be->opencl_note = loader;
    if (!tdm_opencl_clblast_load(&be->clblast_note))
        tdm_log(ctx, TDM_LOG_INFO, "opencl: no CLBlast: %s", be->clblast_note);
    if (!tdm_opencl_host_gemm_load(&be->host_blas_note))
        tdm_log(ctx, TDM_LOG_INFO, "opencl: no host BLAS for CPU devices: %s", be->host_blas_note);
    if (!tdm_opencl_host_conv_load(&be->host_conv_note))
        tdm_log(ctx, TDM_LOG_INFO, "opencl: no oneDNN for CPU devices' convolutions: %s",
                be->host_conv_note);
    for (cl_uint i = 0; i < count && st == TDM_OK; i++)
        st = add_platform(be, ids[i]);
    free(ids);
    if (st != TDM_OK) {
        opencl_destroy(be);
        return st;
    }
    *out = be;
    return TDM_OK;
}

static size_t opencl_device_count(const tdm_backend *be)
{
    return be->device_count;
}

static void opencl_summary(const tdm_backend *be, char *out, size_t size)
{
    const int clblast = tdm_opencl_clblast_load(NULL), openblas = tdm_opencl_host_gemm_load(NULL),
              onednn = tdm_opencl_host_conv_load(NULL);
    snprintf(out, size,
             "%s, %zu platform(s); gemm %s (%s); on CPU devices %s (%s), convolutions %s (%s)",
             be->opencl_note, be->platform_count,
             clblast ? "through CLBlast" : "unsupported without CLBlast", be->clblast_note,
             openblas ? "through OpenBLAS" : "without OpenBLAS", be->host_blas_note,
             onednn ? "through oneDNN" : "lowered without oneDNN", be->host_conv_note);
}

const tdm_backend_ops tdm_opencl_backend = {
    .kind = TDM_BACKEND_OPENCL,
    .create = opencl_create,
    .destroy = opencl_destroy,
    .summary = opencl_summary,
    .device_count = opencl_device_count,
    .describe = tdm_opencl_describe,
    .open_device = tdm_opencl_open_device,
    .close_device = tdm_opencl_close_device,
    .buffer_alloc = tdm_opencl_buffer_alloc,
    .buffer_free = tdm_opencl_buffer_free,
    .write = tdm_opencl_write,
    .read = tdm_opencl_read,
    .fill = tdm_opencl_fill,
    .can_copy = tdm_opencl_can_copy,
    .shares_memory = tdm_opencl_shares_memory,
    .copy = tdm_opencl_copy,
    .launch = tdm_opencl_launch,
    .supports = tdm_opencl_supports,
    .finish = tdm_opencl_finish,
    .event_record = tdm_opencl_event_record,
    .event_wait = tdm_opencl_event_wait,
    .event_query = tdm_opencl_event_query,
    .event_release = tdm_opencl_event_release,
    .queue_wait = tdm_opencl_queue_wait,
    .host_address = tdm_opencl_host_address,
    .timestamp = tdm_opencl_timestamp,
};
