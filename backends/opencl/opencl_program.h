/* Building OpenCL C programs, each compiled once per device and cached. */
#ifndef TDM_OPENCL_PROGRAM_H
#define TDM_OPENCL_PROGRAM_H

#include "opencl_internal.h"

/* Builds the concatenation of `sources` for dev as program `name`, or returns the one built earlier
 * under that name for the same cl_device_id (logical devices share their parent's).
 * The program belongs to the backend until the context is destroyed: do not
 * release it. The cache key is the name, so pass the same source and options
 * (NULL for none) with it every time. On a failed build the last error holds the
 * program's name, the device, the error and the start of the build log.
 * Thread-safe. */
tdm_status tdm_opencl_build_program(tdm_device *dev, const char *name,
                                    const char *const *sources, cl_uint source_count,
                                    const char *options, cl_program *out);

/* The OpenCL C source of kernels/<name>.cl (or of the prelude kernels/<name>.clh),
 * embedded as a string at build time, or NULL when there is none. The build system
 * generates its definition. */
const char *tdm_opencl_source_find(const char *name);

#endif
