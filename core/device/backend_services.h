/* Internal, for the backends not yet through the door: device/backend_api.h and the
 * core's structs besides. Goes once every backend reads handles through the door. */
#ifndef TDM_CORE_BACKEND_SERVICES_H
#define TDM_CORE_BACKEND_SERVICES_H

#include "device/backend_api.h"
#include "device/device_impl.h"

#endif
