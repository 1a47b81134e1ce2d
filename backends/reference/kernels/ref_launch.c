/* The reference backend's launch slot: every kernel of the table, by X-macro, so a
 * kernel missing here fails to compile. */
#include "ref_kernels.h"

#include "reference_launch.h"

tdm_status tdm_reference_launch(tdm_device *dev, const tdm_launch *launch)
{
    (void)dev;
    switch (launch->kernel) {
#define TDM_KERNEL(name, ...)                                                                      \
    case TDM_KERNEL_##name: {                                                                      \
        const ref_##name##_args args = ref_##name##_unpack(launch);                                \
        ref_##name(&args);                                                                         \
        break;                                                                                     \
    }
#include "device/kernels.def"
#undef TDM_KERNEL
    case TDM_KERNEL_COUNT: break;
    }
    return TDM_OK;
}
