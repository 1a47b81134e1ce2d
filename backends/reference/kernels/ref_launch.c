/* The reference backend's launch slot: every kernel of the table, by X-macro, so a
 * kernel missing here fails to compile. */
#include "ref_kernels.h"

#include "reference_launch.h"

static void (*const kernels[TDM_KERNEL_COUNT])(const tdm_launch *) = {
#define TDM_KERNEL(name, ...) [TDM_KERNEL_##name] = ref_##name,
#include "kernels.def"
#undef TDM_KERNEL
};

tdm_status tdm_reference_launch(tdm_device *dev, const tdm_launch *launch)
{
    (void)dev;
    kernels[launch->kernel](launch);
    return TDM_OK;
}
