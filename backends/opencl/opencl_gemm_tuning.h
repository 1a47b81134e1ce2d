/* CLBlast's kernel parameters for devices its own database serves poorly (the CPU
 * drivers), found with CLBlast's tuners and applied through CLBlastOverrideParameters
 * before a device's first gemm. */
#ifndef TDM_OPENCL_GEMM_TUNING_H
#define TDM_OPENCL_GEMM_TUNING_H

#include <stddef.h>

#include "tandem/device.h"

#define TDM_CLBLAST_MAX_PARAMETERS 16

typedef struct tdm_clblast_parameters {
    const char *kernel; /* CLBlast's name for the kernel: "Xgemm" */
    size_t count;
    const char *names[TDM_CLBLAST_MAX_PARAMETERS];
    size_t values[TDM_CLBLAST_MAX_PARAMETERS];
} tdm_clblast_parameters;

/* The parameter sets shipped for a device of that type on that OpenCL platform,
 * ended by one whose kernel is NULL; NULL when none are. */
const tdm_clblast_parameters *tdm_opencl_gemm_tuning(const char *platform_name,
                                                     tdm_device_type type);

#endif
