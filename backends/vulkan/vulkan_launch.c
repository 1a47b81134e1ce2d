/* Kernel launches: shaders/NAME.comp for every kernel of core/kernel/kernels.def.
 *
 * Buffer b of the kernel's table line is bound at binding b as a window over the
 * elements the table's extent gives it: from its view's byte offset rounded down to
 * minStorageBufferOffsetAlignment, at most maxStorageBufferRange bytes. The push
 * constants (kernel_args.glsl) carry the view's offset within the window in
 * elements, and the table's uints and floats. open_device set max_binding_bytes to
 * maxStorageBufferRange less the alignment, so the core's splitting leaves every
 * range a launch touches inside its window. The windows are also what the launch
 * reads and writes for the batch's barriers.
 *
 * A float16 twin (kernels.def's TDM_HALF_TWIN) runs the module NAME_f16, its kernel's
 * shader built again over arrays of 16-bit halves: only on a device with
 * storageBuffer16BitAccess, which a word of two halves cannot stand in for (two
 * invocations storing the halves of one word would race). */
#include <string.h>

#include "device/backend_api.h"
#include "spirv_modules.h"
#include "vulkan_internal.h"

typedef struct launch_args {
    const tdm_kernel_info *info;
    const tdm_launch *launch;
    size_t index; /* the pipeline */
    VkDescriptorBufferInfo windows[TDM_KERNEL_MAX_BUFFERS];
    tdm_vk_kernel_args constants;
} launch_args;

static tdm_status record_launch(tdm_vk_device *vd, tdm_vk_slot *slot, void *arg)
{
    launch_args *a = arg;
    const char *module = a->index == TDM_VK_PIPELINE_COOPMAT ? vd->coopmat.module : a->info->name;
    tdm_status s = tdm_vk_bind(vd, slot, a->index, module, a->windows, a->info->buffer_count,
                               &a->constants, sizeof a->constants);
    if (s == TDM_OK)
        vkCmdDispatch(slot->cmd, tdm_vk_product_groups(vd, a->index, a->launch), 1, 1);
    return s;
}

/* Buffer b's window and its view's offset within it. An unused (NULL) optional
 * buffer binds buffer 0's window, which the kernel never reads through it, so that
 * it adds nothing to what the launch touches. */
static void bind_view(const tdm_vk_device *vd, launch_args *a, unsigned b, tdm_vk_command *cmd)
{
    const tdm_launch *l = a->launch;
    VkDescriptorBufferInfo *w = &a->windows[b];
    if (!l->buffers[b]) {
        *w = a->windows[0];
        a->constants.off[b] = 0;
        return;
    }
    const tdm_buffer *buf = l->buffers[b];
    const tdm_kernel_buffer *kb = &a->info->buffers[b];
    uint64_t size = tdm_kernel_type_size(kb->type);
    uint64_t offset = (uint64_t)l->offsets[b] * size;
    uint64_t bytes = tdm_kernel_extent(a->info, l->u, kb->extent) * size;
    if (offset >= tdm_backend_buffer_size(buf)) /* an empty view at the end: nothing is reached */
        offset = 0;
    w->buffer = ((const tdm_vk_buffer *)tdm_backend_buffer_state(buf))->buffer;
    tdm_vk_window(vd, tdm_backend_buffer_size(buf), offset, bytes, w);
    a->constants.off[b] = (uint32_t)((offset - w->offset) / size);
    cmd->access[cmd->access_count++] = tdm_vk_window_access(w, kb->written);
}

/* Whether the kernel is a float16 twin that the device cannot run. */
static int lacks_storage16(const tdm_vk_device *vd, tdm_kernel kernel)
{
    return tdm_kernel_get(kernel)->base != kernel && !vd->storage16;
}

/* Kernels whose shader this build embeds, less the twins a device without 16-bit
 * storage cannot run. */
int tdm_vk_supports(const tdm_device *dev, const void *state, tdm_kernel kernel)
{
    (void)dev;
    return tdm_spirv_module_find(tdm_kernel_get(kernel)->name) != NULL &&
           !lacks_storage16(state, kernel);
}

tdm_status tdm_vk_launch_on(tdm_vk_device *vd, const tdm_launch *launch, size_t index)
{
    const tdm_device_desc *desc = tdm_backend_device_desc(vd->dev);
    const tdm_kernel_info *info = tdm_kernel_get(launch->kernel);
    if (!info)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: no kernel %d", desc->id,
                        (int)launch->kernel);
    if (!tdm_spirv_module_find(info->name))
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s '%s': kernel %s has no shader (shaders/%s.comp) in this build",
                        desc->id, desc->name, info->name, tdm_kernel_get(info->base)->name);
    if (lacks_storage16(vd, launch->kernel))
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s '%s': kernel %s stores float16 activations, which needs "
                        "storageBuffer16BitAccess (Vulkan 1.1's 16-bit storage), and the device "
                        "lacks it",
                        desc->id, desc->name, info->name);
    if (!launch->buffers[0])
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: %s: buffer '%s' is NULL", desc->id,
                        info->name, info->buffers[0].name);
    launch_args a = {.info = info, .launch = launch, .index = index};
    tdm_vk_command cmd = {.record = record_launch, .arg = &a};
    for (unsigned b = 0; b < info->buffer_count; b++)
        bind_view(vd, &a, b, &cmd);
    memcpy(a.constants.u, launch->u, sizeof a.constants.u);
    memcpy(a.constants.f, launch->f, sizeof a.constants.f);
    return tdm_vk_record(vd, &cmd, NULL);
}
