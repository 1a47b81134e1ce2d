/* CLBlast's kernel parameters per device (clblast_tuning.def), keyed as the GEMM
 * tuning table is; opencl_clblast.c applies them before a device's first gemm. */
#ifndef TDM_CLBLAST_TUNING_H
#define TDM_CLBLAST_TUNING_H

#include <stddef.h>

#include "tuning_key.h"

#define TDM_CLBLAST_MAX_PARAMETERS 16

typedef struct tdm_clblast_parameters {
    const char *name; /* the row's NAME */
    tdm_tuning_key key;
    const char *kernel; /* CLBlast's name for the kernel: "Xgemm" */
    size_t count;
    const char *names[TDM_CLBLAST_MAX_PARAMETERS];
    size_t values[TDM_CLBLAST_MAX_PARAMETERS];
} tdm_clblast_parameters;

/* The rows the device takes, *count of them from the one returned; NULL (and 0) where
 * no key matches it. */
const tdm_clblast_parameters *tdm_clblast_tuning(const tdm_device_desc *desc, size_t *count);

#endif
