/* The reference backend's launch slot: every kernel of the table and every twin, by
 * X-macro, so a kernel missing here fails to compile. */
#include "ref_kernels.h"

#include "reference_launch.h"

tdm_status tdm_reference_launch(tdm_device *dev, const tdm_launch *launch)
{
    switch (launch->kernel) {
#define TDM_KERNEL(name, ...)                                                                      \
    case TDM_KERNEL_##name: {                                                                      \
        const ref_##name##_args args = ref_##name##_unpack(launch);                                \
        ref_##name(&args);                                                                         \
        break;                                                                                     \
    }
#define TDM_HALF_TWIN(name)                                                                        \
    case TDM_KERNEL_##name##_f16:                                                                  \
        return tdm_reference_half_twin(dev, launch);
#include "device/kernels.def"
#undef TDM_KERNEL
#undef TDM_HALF_TWIN
    case TDM_KERNEL_COUNT: break;
    }
    return TDM_OK;
}
