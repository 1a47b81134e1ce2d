/* Internal: a buffer's memory, below the scratch pool that reuses it. */
#ifndef TDM_CORE_BUFFER_MEMORY_H
#define TDM_CORE_BUFFER_MEMORY_H

#include "device/device_impl.h"

/* A new buffer of size bytes on dev, or a failure naming tdm_buffer_alloc and the
 * limit (nothing is taken from the scratch pool: tdm_scratch_allocate does that). */
tdm_status tdm_buffer_allocate(tdm_device *dev, size_t size, tdm_buffer **out);

#endif
