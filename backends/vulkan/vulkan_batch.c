/* Batches: launches, fills and copies are recorded into one open command buffer per
 * device and submitted together.
 *
 * A batch starts with a full barrier that orders it after every earlier submission
 * on the queue and ends with one that makes its writes visible to the host. Between
 * its commands go only the barriers the data needs (vulkan_hazards.c). It is
 * submitted when someone waits for or asks about its work (finish, event wait and
 * query, blocking host transfers, from any thread), when it holds
 * TDM_VK_BATCH_COMMANDS commands, or once it has been open TDM_VK_BATCH_NS.
 *
 * The bounds: on lavapipe a submission of its own cost a launch 15 to 30 us of host
 * time more than recording it into a batch (tandem bench launch, docs/PERFORMANCE.md). At
 * 64 commands that is under half a microsecond each, far below what recording and
 * running a launch cost, while the device does not wait for a long recording to end
 * before it starts. 1 ms bounds how long a device waits for work the host recorded
 * and then left alone (a thread waiting on another device, say), and keeps what the
 * batches closed by the clock cost in submissions to a few percent of a core. */
#include "device/backend_api.h"
#include "vulkan_internal.h"

static tdm_status check_lost(const tdm_vk_device *vd)
{
    if (!vd->lost_call)
        return TDM_OK;
    return tdm_fail(tdm_vk_status(vd->lost_result),
                    "%s '%s': recorded work was lost when %s failed: %s (%d)",
                    tdm_backend_device_desc(vd->dev)->id, tdm_backend_device_desc(vd->dev)->name,
                    vd->lost_call, tdm_vk_result_name(vd->lost_result), (int)vd->lost_result);
}

static void record_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage,
                           VkPipelineStageFlags dst_stage, const VkMemoryBarrier *memory)
{
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, memory ? 1 : 0, memory, 0, NULL, 0, NULL);
}

/* Orders the batch after every earlier submission on the queue. */
static void barrier_before(VkCommandBuffer cmd)
{
    VkMemoryBarrier barrier = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
    };
    record_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                   &barrier);
}

/* Makes the batch's writes visible to host reads of mapped memory once it completes. */
static void barrier_after(VkCommandBuffer cmd)
{
    VkMemoryBarrier barrier = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    record_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT, &barrier);
}

/* Between two commands of a batch: dispatches and transfers (fills, copies). */
static void barrier_between(VkCommandBuffer cmd, tdm_vk_barrier kind)
{
    const VkPipelineStageFlags stages =
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkMemoryBarrier memory = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                         VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
    };
    if (kind != TDM_VK_BARRIER_NONE)
        record_barrier(cmd, stages, stages, kind == TDM_VK_BARRIER_MEMORY ? &memory : NULL);
}

static tdm_status open_batch(tdm_vk_device *vd)
{
    tdm_vk_slot *slot = NULL;
    tdm_status s = tdm_vk_acquire_slot(vd, &slot);
    if (s == TDM_OK)
        s = tdm_vk_descriptors_reset(vd, slot); /* its last submission has completed */
    if (s != TDM_OK)
        return s;
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    VkResult r = vkBeginCommandBuffer(slot->cmd, &begin);
    if (r != VK_SUCCESS)
        return tdm_vk_fail(vd, "vkBeginCommandBuffer", r);
    barrier_before(slot->cmd);
    vd->batch = slot;
    vd->batch_commands = 0;
    vd->batch_opened_ns = tdm_host_now_ns();
    vd->hazards = (tdm_vk_hazards){0};
    if (vd->flusher_idle) /* it sleeps until a batch opens: this one */
        tdm_cond_signal(&vd->flusher_wake);
    return TDM_OK;
}

tdm_status tdm_vk_submit_batch(tdm_vk_device *vd)
{
    tdm_vk_slot *slot = vd->batch;
    if (!slot)
        return TDM_OK;
    vd->batch = NULL;
    barrier_after(slot->cmd);
    const char *call = "vkEndCommandBuffer";
    VkResult r = vkEndCommandBuffer(slot->cmd);
    if (r == VK_SUCCESS) {
        call = "vkQueueSubmit";
        r = tdm_vk_queue_submit(vd, slot);
    }
    if (r == VK_SUCCESS)
        return TDM_OK;
    vd->lost_call = call;
    vd->lost_result = r;
    return check_lost(vd);
}

/* Under vd->lock. */
static tdm_status record_locked(tdm_vk_device *vd, const tdm_vk_command *cmd, uint64_t *value)
{
    tdm_status s = check_lost(vd);
    if (s == TDM_OK && !vd->batch)
        s = open_batch(vd);
    if (s != TDM_OK)
        return s;
    tdm_vk_barrier barrier = tdm_vk_hazard_barrier(&vd->hazards, cmd->access, cmd->access_count);
    barrier_between(vd->batch->cmd, barrier);
    tdm_vk_hazard_clear(&vd->hazards, barrier);
    s = cmd->record(vd, vd->batch, cmd->arg);
    if (s != TDM_OK)
        return s; /* nothing of it was recorded: the batch carries on without it */
    tdm_vk_hazard_add(&vd->hazards, cmd->access, cmd->access_count);
    if (value)
        *value = vd->submitted + 1;
    if (++vd->batch_commands == TDM_VK_BATCH_COMMANDS ||
        tdm_host_now_ns() - vd->batch_opened_ns >= TDM_VK_BATCH_NS)
        s = tdm_vk_submit_batch(vd);
    return s;
}

tdm_status tdm_vk_record(tdm_vk_device *vd, const tdm_vk_command *cmd, uint64_t *value)
{
    tdm_mutex_lock(&vd->lock);
    tdm_status s = record_locked(vd, cmd, value);
    tdm_mutex_unlock(&vd->lock);
    return s;
}

tdm_status tdm_vk_submit(tdm_vk_device *vd, const tdm_vk_command *cmd, uint64_t *value)
{
    tdm_mutex_lock(&vd->lock);
    tdm_status s = record_locked(vd, cmd, value);
    if (s == TDM_OK)
        s = tdm_vk_submit_batch(vd);
    tdm_mutex_unlock(&vd->lock);
    return s;
}

uint64_t tdm_vk_last_recorded(tdm_vk_device *vd)
{
    tdm_mutex_lock(&vd->lock);
    uint64_t value = vd->submitted + (vd->batch ? 1 : 0);
    tdm_mutex_unlock(&vd->lock);
    return value;
}

/* Under vd->lock: the batch that `value` belongs to is submitted. */
static tdm_status submit_up_to(tdm_vk_device *vd, uint64_t value)
{
    tdm_status s = check_lost(vd);
    if (s == TDM_OK && value > vd->submitted)
        s = tdm_vk_submit_batch(vd);
    return s;
}

tdm_status tdm_vk_wait(tdm_vk_device *vd, uint64_t value)
{
    if (value == 0)
        return TDM_OK;
    tdm_mutex_lock(&vd->lock);
    tdm_status s = submit_up_to(vd, value);
    if (s == TDM_OK && !vd->timeline)
        s = tdm_vk_wait_submitted(vd, value);
    tdm_mutex_unlock(&vd->lock);
    if (s == TDM_OK && vd->timeline)
        s = tdm_vk_wait_submitted(vd, value);
    return s;
}

tdm_status tdm_vk_completed(tdm_vk_device *vd, uint64_t value, int *done)
{
    tdm_mutex_lock(&vd->lock);
    uint64_t submitted = vd->submitted;
    tdm_status s = check_lost(vd);
    *done = 0;
    if (s == TDM_OK && value <= submitted && !vd->timeline)
        s = tdm_vk_submitted_done(vd, value, done);
    tdm_mutex_unlock(&vd->lock);
    if (s == TDM_OK && value <= submitted && vd->timeline)
        s = tdm_vk_submitted_done(vd, value, done);
    return s;
}

tdm_status tdm_vk_is_done(tdm_vk_device *vd, uint64_t value, int *done)
{
    *done = value == 0;
    if (value == 0)
        return TDM_OK;
    tdm_mutex_lock(&vd->lock);
    tdm_status s = submit_up_to(vd, value);
    if (s == TDM_OK && !vd->timeline)
        s = tdm_vk_submitted_done(vd, value, done);
    tdm_mutex_unlock(&vd->lock);
    if (s == TDM_OK && vd->timeline)
        s = tdm_vk_submitted_done(vd, value, done);
    return s;
}
