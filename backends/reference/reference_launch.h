/* Internal to the reference backend: its launch slot (kernels/ref_launch.c). */
#ifndef TDM_REFERENCE_LAUNCH_H
#define TDM_REFERENCE_LAUNCH_H

#include "device/backend_api.h"

tdm_status tdm_reference_launch(tdm_device *dev, void *state, const tdm_launch *launch);

/* A float16 twin's launch (kernels/ref_half_twin.c); bias_act's as its parts' twins. */
tdm_status tdm_reference_half_twin(tdm_device *dev, const tdm_launch *launch);

/* A launch of a kernel of the table, no twin (kernels/ref_run.c), its buffers' host
 * memory memory[0..TDM_KERNEL_MAX_BUFFERS) (NULL where the launch names none). */
void tdm_reference_run(const tdm_launch *launch, void *const *memory);

#endif
