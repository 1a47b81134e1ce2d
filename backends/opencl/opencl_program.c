/* The program cache: one built cl_program per (device, name) in each platform.
 * A platform has exactly one context, so that is a key of (context, device, name). */
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "opencl_program.h"

/* How much of a build log goes into the last error: errors come first, and the
 * whole message has to fit the last-error buffer. */
#define BUILD_LOG_MAX 3000

struct tdm_opencl_program {
    tdm_opencl_program *next;
    cl_device_id device;
    cl_program program;
    char name[];
};

static tdm_opencl_program *find(const tdm_opencl_platform *p, cl_device_id device, const char *name)
{
    tdm_opencl_program *e = p->programs;

    while (e && (e->device != device || strcmp(e->name, name) != 0))
        e = e->next;
    return e;
}

/* The device's build log without trailing blank lines, malloc'd, or NULL. */
static char *build_log(cl_program program, cl_device_id device)
{
    size_t size = 0;

    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
            CL_SUCCESS ||
        size == 0)
        return NULL;
    char *log = malloc(size + 1);
    if (log && clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) ==
                   CL_SUCCESS) {
        log[size] = '\0';
        while (size > 0 && (log[size - 1] == '\n' || log[size - 1] == '\0'))
            log[--size] = '\0';
        return log;
    }
    free(log);
    return NULL;
}

static tdm_status build_failed(const tdm_opencl_device *d, const char *name, cl_program program,
                               cl_int err)
{
    char *log = build_log(program, d->device);
    int cut = log && strlen(log) > BUILD_LOG_MAX;
    tdm_status st = tdm_fail(tdm_opencl_status(err),
                             "%s '%s': building program '%s' failed: clBuildProgram: %s (%d); "
                             "build log%s:\n%.*s%s",
                             d->desc->id, d->desc->name, name, tdm_opencl_error_name(err), (int)err,
                             cut ? " (truncated)" : "", BUILD_LOG_MAX, log ? log : "(none)",
                             cut ? "\n[...]" : "");

    free(log);
    return st;
}

static tdm_status build_from_source(const tdm_opencl_device *d, const char *name,
                                    const char *const *sources, cl_uint source_count,
                                    const char *options, cl_program *out)
{
    cl_int err;
    cl_program program =
        clCreateProgramWithSource(d->context, source_count, (const char **)sources, NULL, &err);

    if (err != CL_SUCCESS)
        return tdm_fail(tdm_opencl_status(err),
                        "%s '%s': program '%s': clCreateProgramWithSource failed: %s (%d)",
                        d->desc->id, d->desc->name, name, tdm_opencl_error_name(err), (int)err);
    err = clBuildProgram(program, 1, &d->device, options ? options : "", NULL, NULL);
    if (err != CL_SUCCESS) {
        tdm_status st = build_failed(d, name, program, err);
        clReleaseProgram(program);
        return st;
    }
    *out = program;
    return TDM_OK;
}

/* From the binary kept on disk when there is a sound one, else from source, keeping
 * the binary for the next run. */
static tdm_status build(const tdm_opencl_device *d, const char *name, const char *const *sources,
                        cl_uint source_count, const char *options, cl_program *out)
{
    char *key = tdm_opencl_binary_key(d, name, sources, source_count, options);
    tdm_status st = TDM_OK;

    if (!key || !tdm_opencl_binary_load(d, key, options, out)) {
        st = build_from_source(d, name, sources, source_count, options, out);
        if (st == TDM_OK && key)
            tdm_opencl_binary_store(d, key, *out);
    }
    free(key);
    return st;
}

/* Builds the program and adds it to the platform's cache; the caller holds the lock. */
static tdm_status build_cached(const tdm_opencl_device *d, const char *name,
                               const char *const *sources, cl_uint source_count,
                               const char *options, tdm_opencl_program **out)
{
    tdm_opencl_platform *p = d->platform;
    size_t len = strlen(name) + 1;
    tdm_opencl_program *e = malloc(sizeof *e + len);

    if (!e)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s '%s': out of host memory", d->desc->id,
                        d->desc->name);
    tdm_status st = build(d, name, sources, source_count, options, &e->program);
    if (st != TDM_OK) {
        free(e);
        return st;
    }
    e->device = d->device;
    memcpy(e->name, name, len);
    e->next = p->programs;
    p->programs = e;
    *out = e;
    return TDM_OK;
}

tdm_status tdm_opencl_build_program(tdm_opencl_device *d, const char *name,
                                    const char *const *sources, cl_uint source_count,
                                    const char *options, cl_program *out)
{
    TDM_CHECK_ARG(name, "tdm_opencl_build_program");
    TDM_CHECK_ARG(sources, "tdm_opencl_build_program");
    tdm_status st = TDM_OK;

    /* Held across the build so that each program is compiled once per device;
     * builds for devices of one platform take turns. */
    tdm_mutex_lock(&d->platform->program_lock);
    tdm_opencl_program *e = find(d->platform, d->device, name);
    if (!e)
        st = build_cached(d, name, sources, source_count, options, &e);
    tdm_mutex_unlock(&d->platform->program_lock);
    if (st == TDM_OK)
        *out = e->program;
    return st;
}

void tdm_opencl_program_cache_free(tdm_opencl_platform *platform)
{
    while (platform->programs) {
        tdm_opencl_program *e = platform->programs;
        platform->programs = e->next;
        clReleaseProgram(e->program);
        free(e);
    }
}
