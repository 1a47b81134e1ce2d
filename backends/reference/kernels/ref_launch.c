/* The reference backend's launch slot: a kernel of the table runs as it is, a float16
 * twin on float copies of its halves. */
#include "reference_launch.h"

tdm_status tdm_reference_launch(tdm_device *dev, void *state, const tdm_launch *launch)
{
    (void)state; /* a reference device keeps none */
    if (tdm_kernel_get(launch->kernel)->base != launch->kernel)
        return tdm_reference_half_twin(dev, launch);
    void *memory[TDM_KERNEL_MAX_BUFFERS] = {0};
    for (unsigned b = 0; b < TDM_KERNEL_MAX_BUFFERS; b++)
        if (launch->buffers[b])
            memory[b] = tdm_backend_buffer_state(launch->buffers[b]);
    tdm_reference_run(launch, memory);
    return TDM_OK;
}
