/* Opening devices: one in-order command queue per tdm_device. */
#include <stdlib.h>

#include "error.h"
#include "opencl_internal.h"

/* A logical device takes this path too: its own queue on the same cl_device_id
 * and context, so its work is ordered apart from its siblings' yet shares buffers. */
tdm_status tdm_opencl_open_device(tdm_backend *be, size_t index, tdm_device *dev)
{
    const tdm_opencl_physical *phys = &be->devices[index];
    tdm_opencl_device *d = calloc(1, sizeof *d);
    cl_int err;

    if (!d)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s '%s': out of host memory", dev->desc.id,
                        dev->desc.name);
    d->platform = phys->platform;
    d->context = phys->platform->context;
    d->device = phys->id;
    /* In-order (no properties): the ordering the core promises rests on it. */
    d->queue = clCreateCommandQueue(d->context, d->device, 0, &err);
    if (err != CL_SUCCESS) {
        free(d);
        return tdm_opencl_fail(dev, "clCreateCommandQueue", err);
    }
    dev->impl = d;
    return TDM_OK;
}

void tdm_opencl_close_device(tdm_device *dev)
{
    tdm_opencl_device *d = tdm_opencl_dev(dev);

    clReleaseCommandQueue(d->queue);
    free(d);
    dev->impl = NULL;
}

tdm_status tdm_opencl_finish(tdm_device *dev)
{
    cl_int err = clFinish(tdm_opencl_dev(dev)->queue);

    return err == CL_SUCCESS ? TDM_OK : tdm_opencl_fail(dev, "clFinish", err);
}
