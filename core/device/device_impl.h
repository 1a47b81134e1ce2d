/* Internal to the core: the structs behind the public handles. Backends see handles
 * and read what they need through device/backend_api.h. */
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
    tdm_backend_traits traits; /* what open_device reported (device/backend.h) */
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

#endif
