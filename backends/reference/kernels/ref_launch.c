/* The reference backend's launch slot: a kernel of the table runs as it is, a float16
 * twin on float copies of its halves. */
#include "reference_launch.h"

tdm_status tdm_reference_launch(tdm_device *dev, const tdm_launch *launch)
{
    if (tdm_kernel_get(launch->kernel)->base != launch->kernel)
        return tdm_reference_half_twin(dev, launch);
    tdm_reference_run(launch);
    return TDM_OK;
}
