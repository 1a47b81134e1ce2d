/* A copy between two VkBuffers of one device, recorded into the open batch or
 * submitted with it: for copies between buffers, and for the host transfers' staging
 * and imports. */
#include "vulkan_internal.h"

typedef struct copy_args {
    VkBuffer dst, src;
    VkBufferCopy region;
} copy_args;

static tdm_status record_copy(tdm_vk_device *vd, tdm_vk_slot *slot, void *arg)
{
    (void)vd;
    const copy_args *a = arg;
    vkCmdCopyBuffer(slot->cmd, a->src, a->dst, 1, &a->region);
    return TDM_OK;
}

tdm_status tdm_vk_copy_region(tdm_vk_device *vd, VkBuffer dst, size_t dst_offset, VkBuffer src,
                              size_t src_offset, size_t size, int submitted, uint64_t *value)
{
    copy_args args = {dst, src, {.srcOffset = src_offset, .dstOffset = dst_offset, .size = size}};
    tdm_vk_command cmd = {
        .record = record_copy,
        .arg = &args,
        .access_count = 2,
        .access = {{src, src_offset, src_offset + size, 0},
                   {dst, dst_offset, dst_offset + size, 1}},
    };
    return submitted ? tdm_vk_submit(vd, &cmd, value) : tdm_vk_record(vd, &cmd, value);
}
