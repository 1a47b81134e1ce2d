/* Fills: vkCmdFillBuffer for one-word patterns, the fill_words shader otherwise.
 *
 * A storage buffer binding reaches at most maxStorageBufferRange bytes (128 MiB
 * on lavapipe), so the shader fills in windows: each binds a range that starts on
 * a minStorageBufferOffsetAlignment boundary, and gets the pattern rotated so
 * that its first word continues the phase of the whole fill. */
#include "error.h"
#include "vulkan_internal.h"

/* Windows recorded per command buffer: the descriptor sets each slot's pool holds. */
#define TDM_VK_WINDOWS_PER_SUBMIT 16

_Static_assert(sizeof(tdm_vk_fill_constants) == 76, "fill_words.comp expects 76 bytes");

typedef struct fill_args {
    VkBuffer buffer;
    size_t buffer_size;
    size_t start, next, end; /* bytes: where the pattern starts, the next to fill, end */
    const uint32_t *pattern;
    size_t words;
} fill_args;

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static tdm_status record_fill_buffer(tdm_vk_device *vd, tdm_vk_slot *slot, void *arg)
{
    (void)vd;
    fill_args *a = arg;
    vkCmdFillBuffer(slot->cmd, a->buffer, a->start, a->end - a->start, a->pattern[0]);
    return TDM_OK;
}

/* The slot's previous submission has completed, so its sets may be recycled. */
static tdm_status reset_descriptors(tdm_vk_device *vd, tdm_vk_slot *slot)
{
    if (slot->descriptors != VK_NULL_HANDLE) {
        VkResult r = vkResetDescriptorPool(vd->device, slot->descriptors, 0);
        return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkResetDescriptorPool", r);
    }
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, TDM_VK_WINDOWS_PER_SUBMIT};
    VkDescriptorPoolCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = TDM_VK_WINDOWS_PER_SUBMIT,
        .poolSizeCount = 1,
        .pPoolSizes = &size,
    };
    VkResult r = vkCreateDescriptorPool(vd->device, &info, NULL, &slot->descriptors);
    return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkCreateDescriptorPool", r);
}

static tdm_status bind_range(tdm_vk_device *vd, tdm_vk_slot *slot, VkBuffer buffer,
                             VkDeviceSize offset, VkDeviceSize range)
{
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
    VkDescriptorBufferInfo target = {buffer, offset, range};
    VkWriteDescriptorSet write = {
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstSet = set,
        .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .pBufferInfo = &target,
    };
    vkUpdateDescriptorSets(vd->device, 1, &write, 0, NULL);
    vkCmdBindDescriptorSets(slot->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vd->pipeline_layout, 0,
                            1, &set, 0, NULL);
    return TDM_OK;
}

/* Records one window from a->next and advances a->next past it. */
static tdm_status record_window(tdm_vk_device *vd, tdm_vk_slot *slot, fill_args *a)
{
    size_t base = a->next - a->next % vd->storage_alignment;
    size_t range = min_size(vd->max_storage_range, a->buffer_size - base);
    tdm_status s = bind_range(vd, slot, a->buffer, base, range);
    if (s != TDM_OK)
        return s;
    size_t count = min_size((range - (a->next - base)) / 4, (a->end - a->next) / 4);
    size_t phase = (a->next - a->start) / 4 % a->words;
    tdm_vk_fill_constants c = {
        .first_word = (uint32_t)((a->next - base) / 4),
        .word_count = (uint32_t)count,
        .pattern_words = (uint32_t)a->words,
    };
    for (size_t i = 0; i < a->words; i++)
        c.pattern[i] = a->pattern[(i + phase) % a->words];
    vkCmdPushConstants(slot->cmd, vd->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       sizeof c, &c);
    /* The shader loops, so the group count only needs to cover the device. */
    vkCmdDispatch(slot->cmd, (uint32_t)min_size((count + 63) / 64, vd->max_groups), 1, 1);
    a->next += count * 4;
    return TDM_OK;
}

static tdm_status record_windows(tdm_vk_device *vd, tdm_vk_slot *slot, void *arg)
{
    fill_args *a = arg;
    tdm_status s = tdm_vk_fill_pipeline(vd);
    if (s == TDM_OK)
        s = reset_descriptors(vd, slot);
    if (s != TDM_OK)
        return s;
    vkCmdBindPipeline(slot->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vd->fill_pipeline);
    for (int w = 0; w < TDM_VK_WINDOWS_PER_SUBMIT && s == TDM_OK && a->next < a->end; w++)
        s = record_window(vd, slot, a);
    return s;
}

tdm_status tdm_vk_fill(tdm_buffer *buf, size_t offset, const uint32_t *pattern, size_t words,
                       size_t size)
{
    tdm_vk_device *vd = buf->device->impl;
    const tdm_vk_buffer *vb = buf->impl;
    fill_args a = {vb->buffer, buf->size, offset, offset, offset + size, pattern, words};
    if (size == 0)
        return TDM_OK;
    if (words == 1)
        return tdm_vk_submit(vd, record_fill_buffer, &a, NULL);
    tdm_status s = TDM_OK;
    while (s == TDM_OK && a.next < a.end)
        s = tdm_vk_submit(vd, record_windows, &a, NULL);
    return s;
}
