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
#include <time.h>

#include "device/backend_services.h"
#include "vulkan_internal.h"

static void *flusher_main(void *arg)
{
    tdm_vk_device *vd = arg;
    pthread_mutex_lock(&vd->lock);
    while (!vd->flusher_stop) {
        if (!vd->batch) {
            vd->flusher_idle = 1;
            pthread_cond_wait(&vd->flusher_wake, &vd->lock);
            vd->flusher_idle = 0;
            continue;
        }
        uint64_t deadline = vd->batch_opened_ns + TDM_VK_BATCH_NS;
        if (tdm_vk_now_ns() >= deadline) {
            tdm_vk_submit_batch(vd); /* a failure is kept for the device's next call */
            continue;
        }
        struct timespec at = {(time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u)};
        pthread_cond_timedwait(&vd->flusher_wake, &vd->lock, &at);
    }
    pthread_mutex_unlock(&vd->lock);
    return NULL;
}

static int timer_switched_off(void)
{
    const char *value = getenv("TDM_VK_NO_FLUSH_TIMER");
    return value && *value && strcmp(value, "0") != 0;
}

tdm_status tdm_vk_flusher_start(tdm_vk_device *vd)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: cannot create a condition variable",
                        vd->dev->desc.id);
    int err = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (err == 0)
        err = pthread_cond_init(&vd->flusher_wake, &attr);
    pthread_condattr_destroy(&attr);
    if (err != 0)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: cannot create a condition variable: %s",
                        vd->dev->desc.id, strerror(err));
    vd->flusher_ready = 1;
    if (timer_switched_off())
        return TDM_OK;
    err = pthread_create(&vd->flusher, NULL, flusher_main, vd);
    if (err != 0)
        return tdm_fail(err == EAGAIN ? TDM_ERR_OUT_OF_MEMORY : TDM_ERR_BACKEND,
                        "%s: cannot start the batch flusher thread: %s", vd->dev->desc.id,
                        strerror(err));
    vd->flusher_running = 1;
    return TDM_OK;
}

void tdm_vk_flusher_stop(tdm_vk_device *vd)
{
    if (vd->flusher_running) {
        pthread_mutex_lock(&vd->lock);
        vd->flusher_stop = 1;
        pthread_cond_signal(&vd->flusher_wake);
        pthread_mutex_unlock(&vd->lock);
        pthread_join(vd->flusher, NULL);
        vd->flusher_running = 0;
    }
    if (vd->flusher_ready)
        pthread_cond_destroy(&vd->flusher_wake);
    vd->flusher_ready = 0;
}
