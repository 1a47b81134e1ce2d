/* Internal: device-lost bookkeeping around every backend call. */
#ifndef TDM_CORE_DEVICE_STATUS_H
#define TDM_CORE_DEVICE_STATUS_H

#include "device/device_impl.h"

/* TDM_ERR_DEVICE_LOST (with a message) if the device was lost earlier, else TDM_OK. */
tdm_status tdm_device_check_alive(const tdm_device *dev, const char *func);

/* Passes a backend's status through, remembering a lost device so that every later
 * call on it fails at once instead of reaching a dead driver. */
tdm_status tdm_device_result(tdm_device *dev, tdm_status status);

#endif
