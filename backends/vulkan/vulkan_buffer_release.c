/* A buffer's release. A free does not wait, so a buffer the device may still use is
 * not destroyed at once: it goes on the device's retire list with the submission
 * that completes every command recorded before the free, and is destroyed once that
 * submission has completed: at a later free, allocation or finish, or when the
 * device closes. The list is in submission order, so those still pending come after
 * the first. */
#include <stdlib.h>

#include "vulkan_internal.h"

void tdm_vk_buffer_destroy(tdm_vk_device *vd, tdm_vk_buffer *vb)
{
    vkDestroyBuffer(vd->device, vb->buffer, NULL);
    vkFreeMemory(vd->device, vb->memory, NULL); /* unmaps too */
    free(vb);
}

/* Destroys the retired buffers whose submission has completed; under retire_lock.
 * A device that is lost keeps them until it closes. */
static void sweep(tdm_vk_device *vd)
{
    while (vd->retired) {
        int done = 0;
        if (tdm_vk_completed(vd, vd->retired->retire_after, &done) != TDM_OK || !done)
            return;
        tdm_vk_buffer *vb = vd->retired;
        vd->retired = vb->retired_next;
        if (!vd->retired)
            vd->retired_last = NULL;
        tdm_vk_buffer_destroy(vd, vb);
    }
}

void tdm_vk_retire(tdm_vk_device *vd, tdm_vk_buffer *vb)
{
    tdm_mutex_lock(&vd->retire_lock);
    vb->retire_after = tdm_vk_last_recorded(vd);
    vb->retired_next = NULL;
    if (vd->retired_last)
        vd->retired_last->retired_next = vb;
    else
        vd->retired = vb;
    vd->retired_last = vb;
    sweep(vd);
    tdm_mutex_unlock(&vd->retire_lock);
}

void tdm_vk_retire_sweep(tdm_vk_device *vd)
{
    tdm_mutex_lock(&vd->retire_lock);
    sweep(vd);
    tdm_mutex_unlock(&vd->retire_lock);
}

int tdm_vk_retire_wait(tdm_vk_device *vd)
{
    tdm_mutex_lock(&vd->retire_lock);
    const uint64_t last = vd->retired_last ? vd->retired_last->retire_after : 0;
    tdm_mutex_unlock(&vd->retire_lock);
    if (!last || tdm_vk_wait(vd, last) != TDM_OK)
        return 0;
    tdm_vk_retire_sweep(vd);
    return 1;
}

void tdm_vk_retire_release(tdm_vk_device *vd)
{
    while (vd->retired) {
        tdm_vk_buffer *vb = vd->retired;
        vd->retired = vb->retired_next;
        tdm_vk_buffer_destroy(vd, vb);
    }
    vd->retired_last = NULL;
}
