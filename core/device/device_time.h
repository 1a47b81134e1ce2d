/* Internal: when a device's queue reaches a point, on the host's monotonic clock
 * (docs/modules/device.md, "Device timestamps"). */
#ifndef TDM_CORE_DEVICE_TIME_H
#define TDM_CORE_DEVICE_TIME_H

#include <stdint.h>

#include "tandem/device.h"

typedef enum tdm_time_source {
    TDM_TIME_HOST,  /* the host's clock, read once the device had finished */
    TDM_TIME_DEVICE /* the device's timestamp, mapped onto the host's clock */
} tdm_time_source;

/* Waits for the work submitted to dev so far and gives when the device finished it,
 * in tdm_seconds: its timestamp where the backend keeps them, bounded by the host's
 * clock before and after the call; else the host's clock after the wait. One thread
 * at a time per device. */
tdm_status tdm_device_time(tdm_device *dev, double *seconds, tdm_time_source *source);

/* A device timestamp in tdm_seconds, unbounded; *error is how far off the mapping
 * may be, in seconds (half the tightest host interval around a calibration stamp),
 * drift aside. Calibrates dev on first use. TDM_ERR_UNSUPPORTED without timestamps. */
tdm_status tdm_device_time_map(tdm_device *dev, uint64_t device_ns, double *seconds, double *error);

#endif
