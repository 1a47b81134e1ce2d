/* Compiled programs kept on disk (device/disk_cache.h): a program built from source
 * is saved as the driver's binary, and a later run creates it from that binary. The
 * key names the platform, the device, its driver, the build options, the program
 * and a hash of its sources, so an edited kernel or a new driver misses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "opencl_program.h"

/* A device or platform string, cut to fit; "" when the query fails. */
static void device_string(cl_device_id device, cl_device_info what, char *out, size_t cap)
{
    if (clGetDeviceInfo(device, what, cap, out, NULL) != CL_SUCCESS)
        out[0] = '\0';
    out[cap - 1] = '\0';
}

static void platform_string(cl_platform_id platform, cl_platform_info what, char *out, size_t cap)
{
    if (clGetPlatformInfo(platform, what, cap, out, NULL) != CL_SUCCESS)
        out[0] = '\0';
    out[cap - 1] = '\0';
}

char *tdm_opencl_binary_key(const tdm_opencl_device *d, const char *name,
                            const char *const *sources, cl_uint source_count, const char *options)
{
    char platform[256], platform_version[256], device[256], vendor[256], driver[256], version[256];
    uint64_t h = TDM_DISK_CACHE_HASH_START;

    platform_string(d->platform->id, CL_PLATFORM_NAME, platform, sizeof platform);
    platform_string(d->platform->id, CL_PLATFORM_VERSION, platform_version,
                    sizeof platform_version);
    device_string(d->device, CL_DEVICE_NAME, device, sizeof device);
    device_string(d->device, CL_DEVICE_VENDOR, vendor, sizeof vendor);
    device_string(d->device, CL_DRIVER_VERSION, driver, sizeof driver);
    device_string(d->device, CL_DEVICE_VERSION, version, sizeof version);
    /* Each source's length goes in too, so moving text between sources changes it. */
    for (cl_uint i = 0; i < source_count; i++) {
        uint64_t len = strlen(sources[i]);
        h = tdm_disk_cache_hash(h, &len, sizeof len);
        h = tdm_disk_cache_hash(h, sources[i], len);
    }
    const char *fmt = "opencl program %s\nplatform %s (%s)\ndevice %s\nvendor %s\n"
                      "driver %s\ndevice version %s\noptions %s\nsources %016llx\n";
    int n = snprintf(NULL, 0, fmt, name, platform, platform_version, device, vendor, driver,
                     version, options ? options : "", (unsigned long long)h);
    char *key = n > 0 ? malloc((size_t)n + 1) : NULL;
    if (key)
        snprintf(key, (size_t)n + 1, fmt, name, platform, platform_version, device, vendor, driver,
                 version, options ? options : "", (unsigned long long)h);
    return key;
}

int tdm_opencl_binary_load(const tdm_opencl_device *d, const char *key, const char *options,
                           cl_program *out)
{
    void *binary;
    size_t size;

    if (!tdm_disk_cache_load(tdm_backend_device_context(d->dev), "opencl", key, &binary, &size))
        return 0;
    cl_int status = CL_SUCCESS, err;
    const unsigned char *bytes = binary;
    cl_program program =
        clCreateProgramWithBinary(d->context, 1, &d->device, &size, &bytes, &status, &err);
    free(binary); /* the program keeps its own copy */
    const char *call = "clCreateProgramWithBinary";
    if (err == CL_SUCCESS && status != CL_SUCCESS)
        err = status;
    if (err == CL_SUCCESS) {
        call = "clBuildProgram";
        err = clBuildProgram(program, 1, &d->device, options ? options : "", NULL, NULL);
    }
    if (err != CL_SUCCESS) {
        char why[128];
        snprintf(why, sizeof why, "%s: %s (%d)", call, tdm_opencl_error_name(err), (int)err);
        if (program)
            clReleaseProgram(program);
        tdm_disk_cache_refused(tdm_backend_device_context(d->dev), key, why);
        return 0;
    }
    *out = program;
    return 1;
}

void tdm_opencl_binary_store(const tdm_opencl_device *d, const char *key, cl_program program)
{
    size_t size = 0;

    /* The program was built for one device: one size, one binary. */
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) !=
            CL_SUCCESS ||
        size == 0)
        return;
    unsigned char *binary = malloc(size);
    if (binary &&
        clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) == CL_SUCCESS)
        tdm_disk_cache_store(tdm_backend_device_context(d->dev), "opencl", key, binary, size);
    free(binary);
}
