/* Building OpenCL C programs, each compiled once per device and cached. */
#ifndef TDM_OPENCL_PROGRAM_H
#define TDM_OPENCL_PROGRAM_H

#include "opencl_internal.h"

/* Builds the concatenation of `sources` for the device as program `name`, or returns the one built
 * earlier under that name for the same cl_device_id (logical devices share their parent's). The
 * program belongs to the backend until the context is destroyed: do not release it. The cache key
 * is the name, so pass the same source and options (NULL for none) with it every time. On a failed
 * build the last error holds the program's name, the device, the error and the start of the build
 * log. Thread-safe. */
tdm_status tdm_opencl_build_program(tdm_opencl_device *d, const char *name,
                                    const char *const *sources, cl_uint source_count,
                                    const char *options, cl_program *out);

/* opencl_binary_cache.c: programs kept on disk between runs (device/disk_cache.h).
 * The key of a program built from these sources and options for the device (malloc'd; NULL
 * when out of memory, and the program is then not kept). */
char *tdm_opencl_binary_key(const tdm_opencl_device *d, const char *name,
                            const char *const *sources, cl_uint source_count, const char *options);
/* 1 with *out built from the binary kept under key; 0 when there is none or the
 * driver refused it (counted and logged). */
int tdm_opencl_binary_load(const tdm_opencl_device *d, const char *key, const char *options,
                           cl_program *out);
/* Keeps the program's binary under key; a failure only logs. */
void tdm_opencl_binary_store(const tdm_opencl_device *d, const char *key, cl_program program);

/* The OpenCL C source of kernels/<name>.cl (or of the prelude kernels/<name>.clh),
 * embedded as a string at build time, or NULL when there is none. The build system
 * generates its definition. */
const char *tdm_opencl_source_find(const char *name);

#endif
