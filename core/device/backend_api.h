/* Internal: the backends' one door into the core, as ggml's backend-impl.h: the
 * contract a backend implements (device/backend.h) and what it may use of the core.
 * A backend includes this header and the kernel table (kernels.def, which backends
 * expand by X-macro), nothing else of the core; module_boundaries refuses any other.
 * The core's device, buffer and event structs stay its own: a backend sees handles and
 * reads what it needs through the calls below. Each header included is the one source
 * of its part; none of them includes a backend.
 *
 *   errors           tdm_fail, tdm_fail_context, tdm_last_error: every failure sets
 *                    the last error (base/error.h)
 *   drivers' libraries opened at run time: tdm_library_load, _symbol, _require
 *                    (base/library.h)
 *   halves           float16 bits to and from float (base/half_bits.h)
 *   the kernel table its entries, extents, uint arguments and twins (kernel/kernel.h),
 *                    each kernel's arguments by name (kernel/kernel_args.h), the words
 *                    its entries spell a buffer with (kernel/kernel_flags.h)
 *   the log          tdm_log through the context's callback (device/log.h)
 *   the disk cache   compiled programs and pipeline caches kept between runs
 *                    (device/disk_cache.h)
 *   scratch          buffers a device reuses across calls (device/memory/scratch_pool.h)
 *   the platform     threads and locks, libraries opened at run time, folders, the
 *                    host's cores, memory and clock (platform/tdm_thread.h,
 *                    tdm_dynlib.h, tdm_files.h, tdm_host.h)
 *   handles          below: a device's description, context and state, a buffer's
 *                    device, size and state, the counters a backend adds to, the
 *                    context's validation layers */
#ifndef TDM_CORE_BACKEND_API_H
#define TDM_CORE_BACKEND_API_H

#include "base/error.h"
#include "base/half_bits.h"
#include "base/library.h"
#include "device/backend.h"
#include "device/disk_cache.h"
#include "kernel/kernel.h"
#include "kernel/kernel_args.h"
#include "kernel/kernel_flags.h"
#include "device/log.h"
#include "device/memory/scratch_pool.h"
#include "platform/tdm_dynlib.h"
#include "platform/tdm_files.h"
#include "platform/tdm_host.h"
#include "platform/tdm_text.h"
#include "platform/tdm_thread.h"

/* A device: its description (the backend's describe, with the core's fields) and the
 * context it belongs to (for the log and the disk cache). Its state is not asked
 * for: every entry point receives it (backend.h). */
const tdm_device_desc *tdm_backend_device_desc(const tdm_device *dev);
tdm_context *tdm_backend_device_context(const tdm_device *dev);

/* What multiplies float16 matrices on the device, once a backend has found out after
 * open (its description's matrix_engine; cut to fit). */
void tdm_backend_device_set_matrix_engine(tdm_device *dev, const char *text);

/* A buffer: the device it lives on, its size in bytes, and the state buffer_alloc
 * gave, for the buffers of a launch (tdm_launch holds their handles). */
tdm_device *tdm_backend_buffer_device(const tdm_buffer *buf);
size_t tdm_backend_buffer_size(const tdm_buffer *buf);
void *tdm_backend_buffer_state(const tdm_buffer *buf);

/* One more submission to the device's queue, or one more time the host blocked until
 * work of the device completed (tdm_device_counters). */
void tdm_device_count_submission(tdm_device *dev);
void tdm_device_count_host_wait(tdm_device *dev);

/* Whether the Vulkan validation layer was asked for (option, else TDM_VK_VALIDATION). */
int tdm_context_wants_validation(const tdm_context *ctx);

/* Called by a backend's validation-layer hook: counts and logs the message. */
void tdm_context_report_validation(tdm_context *ctx, const char *message);

#endif
