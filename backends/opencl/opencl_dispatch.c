/* The `launch` and `supports` ops: a kernel of the table runs from its OpenCL C source
 * (opencl_launch.c), except gemm on CLBlast and gemm_f16, which may be split over k
 * (opencl_gemm.c), and the implicit convolutions, which a library runs on the host
 * (opencl_host_conv.c). Above those paths, which call nothing here. */
#include "device/backend_api.h"
#include "opencl_internal.h"
#include "opencl_program.h"

/* Kernels with a source in kernels/; gemm and the implicit convolutions where a
 * library runs them. */
int tdm_opencl_supports(const tdm_device *dev, const void *state, tdm_kernel kernel)
{
    (void)dev;
    const tdm_opencl_device *d = state;
    if (kernel == TDM_KERNEL_gemm)
        return tdm_opencl_gemm_supported(d);
    if (tdm_opencl_host_conv_kernel(kernel))
        return d->host_conv;
    return tdm_opencl_source_find(tdm_kernel_get(tdm_kernel_get(kernel)->base)->name) != NULL;
}

tdm_status tdm_opencl_launch(tdm_device *dev, void *state, const tdm_launch *launch)
{
    (void)dev;
    tdm_opencl_device *d = state;
    const tdm_kernel_info *info = tdm_kernel_get(launch->kernel);

    if (!info || !launch->buffers[0])
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s '%s': launch of an unknown kernel (%d) "
                        "or without its first buffer",
                        d->desc->id, d->desc->name, (int)launch->kernel);
    if (launch->kernel == TDM_KERNEL_gemm)
        return tdm_opencl_gemm(d, launch);
    if (launch->kernel == TDM_KERNEL_gemm_f16)
        return tdm_opencl_gemm_f16(d, launch);
    if (tdm_opencl_host_conv_kernel(launch->kernel))
        return tdm_opencl_host_conv(d, launch);
    return tdm_opencl_enqueue(d, launch, 1);
}
