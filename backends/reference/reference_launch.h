/* Internal to the reference backend: its launch slot (kernels/ref_launch.c). */
#ifndef TDM_REFERENCE_LAUNCH_H
#define TDM_REFERENCE_LAUNCH_H

#include "device/device_impl.h"

tdm_status tdm_reference_launch(tdm_device *dev, const tdm_launch *launch);

/* A float16 twin's launch (kernels/ref_half_twin.c). */
tdm_status tdm_reference_half_twin(tdm_device *dev, const tdm_launch *launch);

/* bias_act's float16 twin, as its parts' twins (kernels/ref_bias_act.c). */
tdm_status tdm_reference_bias_act_f16(tdm_device *dev, const tdm_launch *launch);

#endif
