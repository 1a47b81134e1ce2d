/* What every dispatch records, fills and kernel launches alike: storage buffer
 * windows, a descriptor set from the slot's pool, the pipeline and its push constants.
 *
 * Each slot owns one descriptor pool for TDM_VK_BATCH_COMMANDS sets, reset whenever
 * the slot opens a batch again (its previous submission has completed by then), so
 * descriptor memory stays bounded by the slot count however long a program runs. */
#include "device/backend_api.h"
#include "vulkan_internal.h"

void tdm_vk_window(const tdm_vk_device *vd, VkDeviceSize buffer_size, VkDeviceSize offset,
                   VkDeviceSize size, VkDescriptorBufferInfo *window)
{
    window->offset = offset - offset % vd->storage_alignment;
    VkDeviceSize end = (offset + size + 3) / 4 * 4; /* shaders access whole words */
    if (end < window->offset + 4)                   /* a range is never empty */
        end = window->offset + 4;
    if (end > buffer_size)
        end = buffer_size;
    window->range = end - window->offset;
    if (window->range > vd->max_storage_range)
        window->range = vd->max_storage_range;
}

tdm_vk_access tdm_vk_window_access(const VkDescriptorBufferInfo *window, int write)
{
    return (tdm_vk_access){window->buffer, window->offset, window->offset + window->range, write};
}

tdm_status tdm_vk_descriptors_reset(tdm_vk_device *vd, tdm_vk_slot *slot)
{
    if (slot->descriptors != VK_NULL_HANDLE) {
        VkResult r = vkResetDescriptorPool(vd->device, slot->descriptors, 0);
        return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkResetDescriptorPool", r);
    }
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                 TDM_VK_BATCH_COMMANDS * TDM_KERNEL_MAX_BUFFERS};
    VkDescriptorPoolCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = TDM_VK_BATCH_COMMANDS,
        .poolSizeCount = 1,
        .pPoolSizes = &size,
    };
    VkResult r = vkCreateDescriptorPool(vd->device, &info, NULL, &slot->descriptors);
    return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkCreateDescriptorPool", r);
}

tdm_status tdm_vk_bind(tdm_vk_device *vd, tdm_vk_slot *slot, size_t index, const char *name,
                       const VkDescriptorBufferInfo *windows, uint32_t count, const void *constants,
                       uint32_t size)
{
    VkPipeline pipeline;
    tdm_status s = tdm_vk_pipeline(vd, index, name, &pipeline);
    if (s != TDM_OK)
        return s;
    VkDescriptorSetAllocateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = slot->descriptors,
        .descriptorSetCount = 1,
        .pSetLayouts = &vd->set_layout,
    };
    VkDescriptorSet set;
    VkResult r = vkAllocateDescriptorSets(vd->device, &info, &set);
    if (r != VK_SUCCESS)
        return tdm_vk_fail(vd, "vkAllocateDescriptorSets", r);
    /* Bindings past count stay unwritten: the pipeline does not use them. */
    VkWriteDescriptorSet writes[TDM_KERNEL_MAX_BUFFERS];
    for (uint32_t b = 0; b < count; b++)
        writes[b] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = set,
            .dstBinding = b,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &windows[b],
        };
    vkUpdateDescriptorSets(vd->device, count, writes, 0, NULL);
    vkCmdBindPipeline(slot->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(slot->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vd->pipeline_layout, 0, 1,
                            &set, 0, NULL);
    vkCmdPushConstants(slot->cmd, vd->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, size,
                       constants);
    return TDM_OK;
}
