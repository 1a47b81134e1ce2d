/* Which pipeline a launch takes: the kernel's own, a tiled one for the products, or
 * the matrix engine's for gemm_f16; kept apart from the launches themselves, which
 * the matrix engine's start-up check makes too (vulkan_coopmat_check.c). */
#include "vulkan_internal.h"

/* The product kernels (gemm, gemm_f16, the implicit convolutions) take one of the
 * device's tiled pipelines where their product holds enough of its tiles
 * (vulkan_gemm_tiles.c): in a narrower product a tile computes mostly padding
 * (im2col's few output channels, a weight gradient), and on lavapipe as a GPU a shader
 * with barriers runs such products over twice as slowly. gemm_f16 takes the matrix
 * engine's once the device's first one has checked it (vulkan_coopmat_check.c). */
tdm_status tdm_vk_launch(tdm_device *dev, void *state, const tdm_launch *launch)
{
    (void)dev;
    tdm_vk_device *vd = state;
    if (launch->kernel == TDM_KERNEL_gemm_f16 && vd->coopmat.state == TDM_VK_COOPMAT_UNCHECKED)
        tdm_vk_coopmat_check(vd);
    size_t index = tdm_kernel_get(launch->kernel)
                       ? tdm_vk_gemm_pipeline(vd, launch->kernel, launch->u)
                       : (size_t)launch->kernel; /* refused below */
    return tdm_vk_launch_on(vd, launch, index);
}
