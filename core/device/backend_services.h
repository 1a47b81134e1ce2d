/* Internal: the backends' one door into the core besides their contract (backend.h),
 * as ggml's backend-impl.h: what a backend may use of the core, and the only core
 * header a backend includes with backend.h and the kernel table (kernels.def, which
 * backends expand by X-macro). module_boundaries refuses a backend any other. Each
 * header below is the one source of its part; none of them includes a backend.
 *
 *   errors           tdm_fail, tdm_fail_context, tdm_last_error: every failure sets
 *                    the last error (base/error.h)
 *   drivers' libraries opened at run time: tdm_library_load, _symbol, _require
 *                    (base/library.h)
 *   halves           float16 bits to and from float (base/half_bits.h)
 *   the core's structs  device, buffer, event and launch, whose `impl` fields hold a
 *                    backend's state; the context's validation layers
 *                    (tdm_context_wants_validation, tdm_context_report_validation)
 *                    (device/device_impl.h)
 *   the kernel table its entries, extents, uint arguments and twins (device/kernel.h),
 *                    each kernel's arguments by name (device/kernel_args.h), the words
 *                    its entries spell a buffer with (device/kernel_flags.h)
 *   the log          tdm_log through the context's callback (device/log.h)
 *   the disk cache   compiled programs and pipeline caches kept between runs
 *                    (device/disk_cache.h)
 *   scratch          buffers a device reuses across calls (device/scratch_pool.h)
 *   the platform     threads and locks, libraries opened at run time, folders, the
 *                    host's cores, memory and clock (platform/tdm_thread.h,
 *                    tdm_dynlib.h, tdm_files.h, tdm_host.h) */
#ifndef TDM_CORE_BACKEND_SERVICES_H
#define TDM_CORE_BACKEND_SERVICES_H

#include "base/error.h"
#include "base/half_bits.h"
#include "base/library.h"
#include "device/backend.h"
#include "device/device_impl.h"
#include "device/disk_cache.h"
#include "device/kernel.h"
#include "device/kernel_args.h"
#include "device/kernel_flags.h"
#include "device/log.h"
#include "device/scratch_pool.h"
#include "platform/tdm_dynlib.h"
#include "platform/tdm_files.h"
#include "platform/tdm_host.h"
#include "platform/tdm_text.h"
#include "platform/tdm_thread.h"

#endif
