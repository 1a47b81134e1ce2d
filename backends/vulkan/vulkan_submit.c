/* Recording and submitting command buffers, and waiting for them.
 *
 * Submission n signals value n on the device's timeline semaphore (or, without
 * one, the fence of its slot). A slot whose submission has completed is reused,
 * and at most TDM_VK_MAX_SLOTS are in flight, so memory stays bounded however
 * far the host runs ahead. */
#include <stdlib.h>

#include "error.h"
#include "vulkan_internal.h"

#define TDM_VK_MAX_SLOTS 64

static tdm_status completed_value(tdm_vk_device *vd, uint64_t *value)
{
    VkResult r = vd->get_counter(vd->device, vd->timeline, value);
    return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkGetSemaphoreCounterValue", r);
}

static tdm_status wait_timeline(tdm_vk_device *vd, uint64_t value)
{
    VkSemaphoreWaitInfo info = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &vd->timeline,
        .pValues = &value,
    };
    VkResult r = vd->wait_semaphores(vd->device, &info, UINT64_MAX);
    return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkWaitSemaphores", r);
}

/* Fence fallback, under vd->lock: every submission up to value is either still in
 * its slot or its slot was reused, which needed it complete. */
static tdm_status wait_fences(tdm_vk_device *vd, uint64_t value)
{
    for (size_t i = 0; i < vd->slot_count; i++) {
        tdm_vk_slot *slot = &vd->slots[i];
        if (slot->value == 0 || slot->value > value)
            continue;
        VkResult r = vkWaitForFences(vd->device, 1, &slot->fence, VK_TRUE, UINT64_MAX);
        if (r != VK_SUCCESS)
            return tdm_vk_fail(vd, "vkWaitForFences", r);
    }
    return TDM_OK;
}

static tdm_status fences_done(tdm_vk_device *vd, uint64_t value, int *done)
{
    *done = 1;
    for (size_t i = 0; i < vd->slot_count && *done; i++) {
        tdm_vk_slot *slot = &vd->slots[i];
        if (slot->value == 0 || slot->value > value)
            continue;
        VkResult r = vkGetFenceStatus(vd->device, slot->fence);
        if (r != VK_SUCCESS && r != VK_NOT_READY)
            return tdm_vk_fail(vd, "vkGetFenceStatus", r);
        *done = r == VK_SUCCESS;
    }
    return TDM_OK;
}

/* Under vd->lock. completed is the timeline's value (unused with fences). */
static tdm_status slot_idle(tdm_vk_device *vd, tdm_vk_slot *slot, uint64_t completed,
                            int *idle)
{
    *idle = slot->value == 0 || (vd->timeline && slot->value <= completed);
    if (!*idle && !vd->timeline) {
        VkResult r = vkGetFenceStatus(vd->device, slot->fence);
        if (r == VK_SUCCESS)
            r = vkResetFences(vd->device, 1, &slot->fence);
        else if (r == VK_NOT_READY)
            return TDM_OK;
        if (r != VK_SUCCESS)
            return tdm_vk_fail(vd, "vkGetFenceStatus/vkResetFences", r);
        *idle = 1;
    }
    if (*idle)
        slot->value = 0;
    return TDM_OK;
}

static tdm_status new_slot(tdm_vk_device *vd, tdm_vk_slot **out)
{
    tdm_vk_slot *slots = realloc(vd->slots, (vd->slot_count + 1) * sizeof *slots);
    if (!slots)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", vd->dev->desc.id);
    vd->slots = slots;
    tdm_vk_slot *slot = &slots[vd->slot_count];
    *slot = (tdm_vk_slot){0};
    VkCommandBufferAllocateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = vd->pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VkResult r = vkAllocateCommandBuffers(vd->device, &info, &slot->cmd);
    if (r != VK_SUCCESS)
        return tdm_vk_fail(vd, "vkAllocateCommandBuffers", r);
    if (!vd->timeline) {
        VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        r = vkCreateFence(vd->device, &fence, NULL, &slot->fence);
        if (r != VK_SUCCESS) {
            vkFreeCommandBuffers(vd->device, vd->pool, 1, &slot->cmd);
            return tdm_vk_fail(vd, "vkCreateFence", r);
        }
    }
    vd->slot_count++;
    *out = slot;
    return TDM_OK;
}

/* With every slot in flight, waits for the oldest: back-pressure on the host. */
static tdm_status reuse_oldest(tdm_vk_device *vd, tdm_vk_slot **out)
{
    tdm_vk_slot *oldest = &vd->slots[0];
    for (size_t i = 1; i < vd->slot_count; i++)
        if (vd->slots[i].value < oldest->value)
            oldest = &vd->slots[i];
    tdm_status s = vd->timeline ? wait_timeline(vd, oldest->value)
                                : wait_fences(vd, oldest->value);
    int idle = 0;
    if (s == TDM_OK)
        s = slot_idle(vd, oldest, oldest->value, &idle);
    *out = oldest;
    return s;
}

static tdm_status acquire_slot(tdm_vk_device *vd, tdm_vk_slot **out)
{
    uint64_t completed = 0;
    tdm_status s = vd->timeline ? completed_value(vd, &completed) : TDM_OK;
    for (size_t i = 0; i < vd->slot_count && s == TDM_OK; i++) {
        int idle = 0;
        s = slot_idle(vd, &vd->slots[i], completed, &idle);
        if (s == TDM_OK && idle) {
            *out = &vd->slots[i];
            return TDM_OK;
        }
    }
    if (s != TDM_OK)
        return s;
    return vd->slot_count < TDM_VK_MAX_SLOTS ? new_slot(vd, out) : reuse_oldest(vd, out);
}

/* Orders this command buffer after every earlier one on the queue. */
static void barrier_before(VkCommandBuffer cmd)
{
    VkMemoryBarrier barrier = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
    };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &barrier, 0, NULL, 0, NULL);
}

/* Makes its writes visible to host reads of mapped memory once it has completed. */
static void barrier_after(VkCommandBuffer cmd)
{
    VkMemoryBarrier barrier = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                         0, 1, &barrier, 0, NULL, 0, NULL);
}

static tdm_status record(tdm_vk_device *vd, tdm_vk_slot *slot, tdm_vk_record_fn fn, void *arg)
{
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    VkResult r = vkBeginCommandBuffer(slot->cmd, &begin);
    if (r != VK_SUCCESS)
        return tdm_vk_fail(vd, "vkBeginCommandBuffer", r);
    barrier_before(slot->cmd);
    tdm_status s = fn(vd, slot, arg);
    barrier_after(slot->cmd);
    r = vkEndCommandBuffer(slot->cmd); /* also when fn failed: the slot stays usable */
    if (s == TDM_OK && r != VK_SUCCESS)
        s = tdm_vk_fail(vd, "vkEndCommandBuffer", r);
    return s;
}

static tdm_status queue_submit(tdm_vk_device *vd, tdm_vk_slot *slot)
{
    uint64_t value = vd->submitted + 1;
    VkTimelineSemaphoreSubmitInfo timeline = {
        .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
        .signalSemaphoreValueCount = 1,
        .pSignalSemaphoreValues = &value,
    };
    VkSubmitInfo info = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .pNext = vd->timeline ? &timeline : NULL,
        .commandBufferCount = 1,
        .pCommandBuffers = &slot->cmd,
        .signalSemaphoreCount = vd->timeline ? 1 : 0,
        .pSignalSemaphores = &vd->timeline,
    };
    VkResult r = vkQueueSubmit(vd->queue, 1, &info, slot->fence);
    if (r != VK_SUCCESS)
        return tdm_vk_fail(vd, "vkQueueSubmit", r);
    vd->submitted = value;
    slot->value = value;
    return TDM_OK;
}

tdm_status tdm_vk_submit(tdm_vk_device *vd, tdm_vk_record_fn fn, void *arg, uint64_t *value)
{
    pthread_mutex_lock(&vd->lock);
    tdm_vk_slot *slot = NULL;
    tdm_status s = acquire_slot(vd, &slot);
    if (s == TDM_OK)
        s = record(vd, slot, fn, arg);
    if (s == TDM_OK)
        s = queue_submit(vd, slot);
    if (s == TDM_OK && value)
        *value = vd->submitted;
    pthread_mutex_unlock(&vd->lock);
    return s;
}

tdm_status tdm_vk_wait(tdm_vk_device *vd, uint64_t value)
{
    if (value == 0)
        return TDM_OK;
    if (vd->timeline)
        return wait_timeline(vd, value);
    pthread_mutex_lock(&vd->lock);
    tdm_status s = wait_fences(vd, value);
    pthread_mutex_unlock(&vd->lock);
    return s;
}

tdm_status tdm_vk_is_done(tdm_vk_device *vd, uint64_t value, int *done)
{
    if (vd->timeline) {
        uint64_t completed = 0;
        tdm_status s = completed_value(vd, &completed);
        *done = s == TDM_OK && completed >= value;
        return s;
    }
    pthread_mutex_lock(&vd->lock);
    tdm_status s = fences_done(vd, value, done);
    pthread_mutex_unlock(&vd->lock);
    return s;
}

uint64_t tdm_vk_last_submitted(tdm_vk_device *vd)
{
    pthread_mutex_lock(&vd->lock);
    uint64_t value = vd->submitted;
    pthread_mutex_unlock(&vd->lock);
    return value;
}

/* The device is idle; command buffers go with the pool. */
void tdm_vk_release_slots(tdm_vk_device *vd)
{
    for (size_t i = 0; i < vd->slot_count; i++) {
        vkDestroyFence(vd->device, vd->slots[i].fence, NULL);
        vkDestroyDescriptorPool(vd->device, vd->slots[i].descriptors, NULL);
    }
    free(vd->slots);
    vd->slots = NULL;
    vd->slot_count = 0;
}
