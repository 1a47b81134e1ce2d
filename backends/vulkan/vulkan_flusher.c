/* One thread per device that submits a batch left open for TDM_VK_BATCH_NS, so that
 * the device does not idle behind work the host recorded and then left alone.
 *
 * It sleeps until a batch opens, then until that batch's deadline; a batch that was
 * submitted meanwhile leaves it to sleep until the next one's. The batch that opens
 * signals it (vulkan_batch.c), only when it sleeps without a deadline: once per batch
 * at most. The flusher calls into vulkan_batch.c, which calls nothing of the flusher's.
 * TDM_VK_NO_FLUSH_TIMER=1 leaves it out, so that tests show waits and queries
 * submitting the work they need by themselves. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "vulkan_internal.h"

static void flusher_main(void *arg)
{
    tdm_vk_device *vd = arg;
    tdm_mutex_lock(&vd->lock);
    while (!vd->flusher_stop) {
        if (!vd->batch) {
            vd->flusher_idle = 1;
            tdm_cond_wait(&vd->flusher_wake, &vd->lock);
            vd->flusher_idle = 0;
            continue;
        }
        uint64_t deadline = vd->batch_opened_ns + TDM_VK_BATCH_NS;
        if (tdm_host_now_ns() >= deadline) {
            tdm_vk_submit_batch(vd); /* a failure is kept for the device's next call */
            continue;
        }
        tdm_cond_wait_until(&vd->flusher_wake, &vd->lock, deadline);
    }
    tdm_mutex_unlock(&vd->lock);
}

static int timer_switched_off(void)
{
    const char *value = getenv("TDM_VK_NO_FLUSH_TIMER");
    return value && *value && strcmp(value, "0") != 0;
}

tdm_status tdm_vk_flusher_start(tdm_vk_device *vd)
{
    int err = tdm_cond_init(&vd->flusher_wake);
    if (err != 0)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: cannot create a condition variable: %s",
                        tdm_backend_device_desc(vd->dev)->id, strerror(err));
    vd->flusher_ready = 1;
    if (timer_switched_off())
        return TDM_OK;
    err = tdm_thread_start(&vd->flusher, flusher_main, vd);
    if (err != 0)
        return tdm_fail(err == EAGAIN ? TDM_ERR_OUT_OF_MEMORY : TDM_ERR_BACKEND,
                        "%s: cannot start the batch flusher thread: %s",
                        tdm_backend_device_desc(vd->dev)->id, strerror(err));
    vd->flusher_running = 1;
    return TDM_OK;
}

void tdm_vk_flusher_stop(tdm_vk_device *vd)
{
    if (vd->flusher_running) {
        tdm_mutex_lock(&vd->lock);
        vd->flusher_stop = 1;
        tdm_cond_signal(&vd->flusher_wake);
        tdm_mutex_unlock(&vd->lock);
        tdm_thread_join(&vd->flusher);
        vd->flusher_running = 0;
    }
    if (vd->flusher_ready)
        tdm_cond_destroy(&vd->flusher_wake);
    vd->flusher_ready = 0;
}
