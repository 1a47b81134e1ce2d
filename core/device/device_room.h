/* Internal: whether a device has room for buffers before any of them is made, so
 * that a model too large for it is refused before its values are built on the host. */
#ifndef TDM_CORE_DEVICE_ROOM_H
#define TDM_CORE_DEVICE_ROOM_H

#include <stdint.h>

#include "device/device_impl.h"

/* TDM_ERR_OUT_OF_MEMORY, naming func, the device, the bytes and the limit they pass,
 * where `largest` (the biggest buffer, named by what_largest) passes the device's
 * single allocation, or `total` (named by what_total) its memory not in use. The
 * limits are the device's description, as `tandem devices` and the allocator read
 * them. */
tdm_status tdm_device_check_room(tdm_device *dev, uint64_t largest, const char *what_largest,
                                 uint64_t total, const char *what_total, const char *func);

#endif
