/* Internal: ordering one device's work after another's (docs/modules/collective.md,
 * "Ordering rules"). */
#ifndef TDM_CORE_EVENT_ORDER_H
#define TDM_CORE_EVENT_ORDER_H

#include "device/device_impl.h"

/* Work submitted to dev after this call runs after everything submitted to the
 * event's device before the event. dev's queue waits without the host where the
 * backend can (queue_wait); otherwise this thread waits for the event. */
tdm_status tdm_device_wait_event(tdm_device *dev, tdm_event *event);

#endif
