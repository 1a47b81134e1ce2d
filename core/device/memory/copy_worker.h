/* Internal: each device's copy worker, the persistent thread that runs the blocking
 * transfers of staged copies and host reductions on that device, so that a read
 * from one device overlaps a write to another without a thread per transfer.
 * A job on a copy worker must not wait for a job of the same worker. */
#ifndef TDM_CORE_COPY_WORKER_H
#define TDM_CORE_COPY_WORKER_H

#include "device/device_impl.h"

/* The device's copy worker, started on first use; NULL (with the last error set)
 * when no thread can be started. */
tdm_worker *tdm_device_copy_worker(tdm_device *dev);

/* Stops it (closing the device). */
void tdm_device_stop_copy_worker(tdm_device *dev);

#endif
