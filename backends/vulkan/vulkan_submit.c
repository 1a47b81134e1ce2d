/* Command buffer slots, queue submissions, and waiting for them.
 *
 * Submission n signals value n on the device's timeline semaphore (or, without
 * one, the fence of its slot). A slot whose submission has completed is reused,
 * and at most TDM_VK_MAX_SLOTS are in flight, so memory stays bounded however
 * far the host runs ahead. */
#include <stdlib.h>

#include "device/backend_api.h"
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
static tdm_status slot_idle(tdm_vk_device *vd, tdm_vk_slot *slot, uint64_t completed, int *idle)
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
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory",
                        tdm_backend_device_desc(vd->dev)->id);
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
    tdm_device_count_host_wait(vd->dev);
    tdm_vk_slot *oldest = &vd->slots[0];
    for (size_t i = 1; i < vd->slot_count; i++)
        if (vd->slots[i].value < oldest->value)
            oldest = &vd->slots[i];
    tdm_status s = vd->timeline ? wait_timeline(vd, oldest->value) : wait_fences(vd, oldest->value);
    int idle = 0;
    if (s == TDM_OK)
        s = slot_idle(vd, oldest, oldest->value, &idle);
    *out = oldest;
    return s;
}

tdm_status tdm_vk_acquire_slot(tdm_vk_device *vd, tdm_vk_slot **out)
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

VkResult tdm_vk_queue_submit(tdm_vk_device *vd, tdm_vk_slot *slot)
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
    tdm_device_count_submission(vd->dev);
    VkResult r = vkQueueSubmit(vd->queue, 1, &info, slot->fence);
    if (r == VK_SUCCESS) {
        vd->submitted = value;
        slot->value = value;
    }
    return r;
}

tdm_status tdm_vk_wait_submitted(tdm_vk_device *vd, uint64_t value)
{
    tdm_device_count_host_wait(vd->dev);
    return vd->timeline ? wait_timeline(vd, value) : wait_fences(vd, value);
}

tdm_status tdm_vk_submitted_done(tdm_vk_device *vd, uint64_t value, int *done)
{
    if (!vd->timeline)
        return fences_done(vd, value, done);
    uint64_t completed = 0;
    tdm_status s = completed_value(vd, &completed);
    *done = s == TDM_OK && completed >= value;
    return s;
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
