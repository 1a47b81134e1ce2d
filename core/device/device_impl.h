/* Internal: the structs behind the public handles, shared by core and backends. */
#ifndef TDM_CORE_DEVICE_IMPL_H
#define TDM_CORE_DEVICE_IMPL_H

#include <stdatomic.h>

#include "device/backend.h"
#include "base/worker.h"
#include "platform/tdm_thread.h"

/* Idle scratch buffers a device keeps for reuse (scratch_pool.c). */
#define TDM_SCRATCH_MAX_IDLE 16

/* How a device's timestamps map onto tdm_seconds (device_time.c): the device's
 * stamp taken at host_seconds, give or take error seconds. */
typedef struct tdm_device_clock {
    int calibrated, unsupported; /* unsupported: the backend said so for this device */
    uint64_t device_ns;
    double host_seconds, error;
} tdm_device_clock;

struct tdm_device {
    tdm_context *ctx;
    const tdm_backend_ops *ops;
    tdm_backend *backend;
    size_t backend_index; /* physical index within the backend */
    size_t index;         /* index in the context */
    tdm_device_desc desc;
    void *impl;                   /* the backend's state */
    uint64_t max_binding_bytes;   /* set by open_device: the most bytes of one buffer a
                                     kernel can reach in one launch; 0 = no limit */
    uint32_t max_loop_iterations; /* set by open_device where the driver ends long shader
                                     loops early (lavapipe): the most loop iterations
                                     one invocation may run; 0 = no limit */
    int image_runs; /* set by open_device where the image kernels give a work-item a run
                       of elements (TDM_CPU, kernels/pool_window.clh): launches are then
                       sized by runs, not elements */
    int quad_items; /* set by open_device where the element kernels give a work-item four
                       elements or more (OpenCL's sources): their launches are sized
                       by what an item takes (units_per_item, kernel_run.c) */
    tdm_mutex lock; /* guards bytes_in_use and the buffer list */
    uint64_t bytes_in_use;
    struct tdm_buffer *buffers;        /* live buffers, freed with the context */
    atomic_int lost;                   /* set once a backend reports TDM_ERR_DEVICE_LOST */
    atomic_uint_least64_t launches;    /* tdm_device_counters.kernel_launches */
    atomic_uint_least64_t submissions; /* tdm_device_counters.submissions: the backend's */
    atomic_uint_least64_t host_waits;  /* tdm_device_counters.host_waits: the backend's */
    /* The engine's per-device state, guarded by lock: idle scratch buffers (among
     * `buffers` too), and the thread that runs this device's blocking transfers for
     * staged copies, started on first use. */
    struct tdm_buffer *scratch[TDM_SCRATCH_MAX_IDLE];
    size_t scratch_count;
    tdm_worker copy_worker;
    tdm_device_clock clock; /* used by one thread at a time (device_time.h) */
};

/* For backends: one more submission to the device's queue, or one more time the host
 * blocked until work of the device completed. */
static inline void tdm_device_count_submission(tdm_device *dev)
{
    atomic_fetch_add_explicit(&dev->submissions, 1, memory_order_relaxed);
}

static inline void tdm_device_count_host_wait(tdm_device *dev)
{
    atomic_fetch_add_explicit(&dev->host_waits, 1, memory_order_relaxed);
}

struct tdm_buffer {
    tdm_device *device;
    size_t size;
    void *impl; /* the backend's state */
    struct tdm_buffer *prev, *next;
};

struct tdm_event {
    tdm_device *device;
    void *impl;
};

/* Called by a backend's validation-layer hook: counts and logs the message. */
void tdm_context_report_validation(tdm_context *ctx, const char *message);

/* Whether the Vulkan validation layer was asked for (option, else TDM_VK_VALIDATION). */
int tdm_context_wants_validation(const tdm_context *ctx);

#endif
