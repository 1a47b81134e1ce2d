/* Opening devices: one in-order command queue per tdm_device. */
#include <stdio.h>
#include <stdlib.h>

#include "device/backend_api.h"
#include "gemm_tuning.h"
#include "opencl_internal.h"

/* The options every table kernel is built with on this device: correctly rounded
 * float division and sqrt where the device offers them (the spec allows the option
 * only there), never -cl-fast-relaxed-math; TDM_CPU on a CPU, where the image kernels
 * give a work-item a run of elements (kernels/pool_window.clh). A device that also
 * says GPU is a GPU, as tdm_devices reports it (Oclgrind says CPU, GPU and
 * accelerator at once). Whether it is a CPU. */
static int choose_build_options(tdm_opencl_device *d)
{
    cl_device_fp_config fp = 0;
    cl_device_type type = 0;
    int rounded = clGetDeviceInfo(d->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL) ==
                      CL_SUCCESS &&
                  (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT);
    int cpu = clGetDeviceInfo(d->device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS &&
              (type & CL_DEVICE_TYPE_CPU) && !(type & CL_DEVICE_TYPE_GPU);

    snprintf(d->build_options, sizeof d->build_options, "%s%s",
             rounded ? "-cl-fp32-correctly-rounded-divide-sqrt" : "", cpu ? " -DTDM_CPU" : "");
    return cpu;
}

/* A logical device takes this path too: its own queue on the same cl_device_id
 * and context, so its work is ordered apart from its siblings' yet shares buffers. */
tdm_status tdm_opencl_open_device(tdm_backend *be, size_t index, tdm_device *dev, void **state,
                                  tdm_backend_traits *traits)
{
    const tdm_opencl_physical *phys = &be->devices[index];
    tdm_opencl_device *d = calloc(1, sizeof *d);
    cl_int err;

    if (!d)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s '%s': out of host memory",
                        tdm_backend_device_desc(dev)->id, tdm_backend_device_desc(dev)->name);
    if (tdm_mutex_init(&d->kernel_lock) != 0) {
        free(d);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s '%s': cannot create a mutex",
                        tdm_backend_device_desc(dev)->id, tdm_backend_device_desc(dev)->name);
    }
    d->dev = dev;
    d->desc = tdm_backend_device_desc(dev);
    d->platform = phys->platform;
    d->context = phys->platform->context;
    d->device = phys->id;
    /* In-order: the ordering the core promises rests on it. Profiled where the device
     * can, for timestamps (docs/modules/device.md, "Device timestamps"). */
    cl_command_queue_properties can = 0;
    if (clGetDeviceInfo(d->device, CL_DEVICE_QUEUE_PROPERTIES, sizeof can, &can, NULL) !=
        CL_SUCCESS)
        can = 0;
    d->profiling = (can & CL_QUEUE_PROFILING_ENABLE) != 0;
    d->queue = clCreateCommandQueue(d->context, d->device,
                                    d->profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
    if (err != CL_SUCCESS) {
        tdm_mutex_destroy(&d->kernel_lock);
        free(d);
        return tdm_opencl_fail(dev, "clCreateCommandQueue", err);
    }
    /* read back by name at each gemm */
    tdm_gemm_tuning_take(be->ctx, tdm_backend_device_desc(dev), traits);
    traits->image_runs = choose_build_options(d);
    traits->quad_items = 1; /* the sources in kernels/ loop over quads */
    d->host_memory = tdm_opencl_probe_host_memory(d);
    /* the host's BLAS reaches the buffers where they live */
    d->host_gemm = d->host_memory &&
                   tdm_opencl_host_gemm_usable(d->device, tdm_backend_device_desc(dev)->type);
    d->host_conv = tdm_opencl_host_conv_usable(d);
    *state = d; /* kernels reach a whole cl_mem: no binding-range limit */
    return TDM_OK;
}

void tdm_opencl_close_device(tdm_device *dev, void *state)
{
    (void)dev;
    tdm_opencl_device *d = state;

    tdm_opencl_kernels_release(d);
    clReleaseCommandQueue(d->queue);
    tdm_mutex_destroy(&d->kernel_lock);
    free(d);
}

tdm_status tdm_opencl_finish(tdm_device *dev, void *state)
{
    const tdm_opencl_device *d = state;
    tdm_opencl_serial_begin(d);
    tdm_device_count_host_wait(dev);
    cl_int err = clFinish(d->queue);
    tdm_opencl_serial_end(d);

    return err == CL_SUCCESS ? TDM_OK : tdm_opencl_fail(dev, "clFinish", err);
}
