/* The `launch` and `supports` ops: a kernel of the table runs from its OpenCL C source
 * (opencl_launch.c), except gemm on CLBlast and gemm_f16, which may be split over k
 * (opencl_gemm.c), and the implicit convolutions, which a library runs on the host
 * (opencl_host_conv.c). Above those paths, which call nothing here. */
#include "device/backend_api.h"
#include "opencl_internal.h"
#include "opencl_program.h"

/* Kernels with a source in kernels/; gemm and the implicit convolutions where a
 * library runs them. */
int tdm_opencl_supports(const tdm_device *dev, tdm_kernel kernel)
{
    if (kernel == TDM_KERNEL_gemm)
        return tdm_opencl_gemm_supported(dev);
    if (tdm_opencl_host_conv_kernel(kernel))
        return tdm_opencl_dev(dev)->host_conv;
    return tdm_opencl_source_find(tdm_kernel_get(tdm_kernel_get(kernel)->base)->name) != NULL;
}

tdm_status tdm_opencl_launch(tdm_device *dev, const tdm_launch *launch)
{
    const tdm_kernel_info *info = tdm_kernel_get(launch->kernel);

    if (!info || !launch->buffers[0])
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s '%s': launch of an unknown kernel (%d) "
                        "or without its first buffer",
                        tdm_backend_device_desc(dev)->id, tdm_backend_device_desc(dev)->name,
                        (int)launch->kernel);
    if (launch->kernel == TDM_KERNEL_gemm)
        return tdm_opencl_gemm(dev, launch);
    if (launch->kernel == TDM_KERNEL_gemm_f16)
        return tdm_opencl_gemm_f16(dev, launch);
    if (tdm_opencl_host_conv_kernel(launch->kernel))
        return tdm_opencl_host_conv(dev, launch);
    return tdm_opencl_enqueue(dev, launch, 1);
}
