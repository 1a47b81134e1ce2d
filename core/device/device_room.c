/* A device's room for buffers not yet made (device_room.h). */
#include <inttypes.h>

#include "base/error.h"
#include "device/device_room.h"
#include "platform/tdm_thread.h"

tdm_status tdm_device_check_room(tdm_device *dev, uint64_t largest, const char *what_largest,
                                 uint64_t total, const char *what_total, const char *func)
{
    const tdm_device_desc *d = &dev->desc;
    if (largest > d->max_allocation)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "%s: %s needs %" PRIu64 " bytes in one buffer, more than device %s '%s' "
                        "allocates at once: its max single allocation is %" PRIu64 " bytes",
                        func, what_largest, largest, d->id, d->name, d->max_allocation);
    tdm_mutex_lock(&dev->lock);
    uint64_t in_use = dev->bytes_in_use;
    tdm_mutex_unlock(&dev->lock);
    if (total > d->global_memory - in_use)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "%s: %s need %" PRIu64 " bytes on device %s '%s', more than its memory "
                        "has free: %" PRIu64 " of its %" PRIu64 " bytes are in use",
                        func, what_total, total, d->id, d->name, in_use, d->global_memory);
    return TDM_OK;
}
