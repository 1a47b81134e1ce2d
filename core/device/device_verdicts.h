/* Internal: the default device choice as a pure function of the devices'
 * descriptions, so that tests can put any machine in front of it. */
#ifndef TDM_CORE_DEVICE_VERDICTS_H
#define TDM_CORE_DEVICE_VERDICTS_H

#include <stddef.h>

#include "tandem/device.h"

/* What the choice knows of one device of the context, at its context index. */
typedef struct tdm_choice_candidate {
    const tdm_device_desc *desc;
    int runs_every_kernel; /* supports every kernel of the table (float16 twins and
                              kernels with a fallback aside) */
    int lost;
} tdm_choice_candidate;

/* Writes the verdict on each of the n devices (all of the context, in index order,
 * so that same_hardware_as indexes the array). */
void tdm_choose_default_devices(const tdm_choice_candidate *devs, size_t n,
                                tdm_device_choice *verdicts);

/* Whether two physical devices are one piece of hardware: the same UUID (which
 * OpenCL and Vulkan agree on only within one driver stack), else the same PCI bus
 * address, else the same LUID. */
int tdm_same_hardware(const tdm_device_desc *a, const tdm_device_desc *b);

/* Sets same_hardware_as on each of the n physical devices that is the same
 * hardware as an earlier one, to the first such. */
void tdm_mark_same_hardware(tdm_device_desc *const *descs, size_t n);

#endif
