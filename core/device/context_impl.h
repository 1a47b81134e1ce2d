/* Internal: the context struct. */
#ifndef TDM_CORE_CONTEXT_IMPL_H
#define TDM_CORE_CONTEXT_IMPL_H

#include "device/device_impl.h"
#include "device/disk_cache.h"

#define TDM_MAX_BACKENDS 3
#define TDM_STAGING_MAX_IDLE 16 /* host staging chunks kept for reuse (host_staging.c) */

struct tdm_context {
    tdm_context_options options;
    struct {
        const tdm_backend_ops *ops;
        tdm_backend *instance;
    } backends[TDM_MAX_BACKENDS];
    size_t backend_count;
    /* Per tdm_backend_kind: whether it loaded and what, or why not. */
    struct {
        tdm_status status;
        char message[768];
    } backend_status[TDM_MAX_BACKENDS];
    tdm_mutex lock; /* guards growing the device list */
    tdm_device **devices;
    atomic_size_t device_count; /* read without the lock */
    size_t device_capacity;
    atomic_size_t validation_messages;
    /* The distribution layer's default strategy, created on first use; the context
     * releases it through the function it was given (arrows point down only). */
    void *default_strategy;
    void (*default_strategy_free)(void *strategy);
    tdm_mutex staging_lock; /* guards the idle staging chunks */
    void *staging[TDM_STAGING_MAX_IDLE];
    size_t staging_count;
    tdm_disk_cache disk_cache; /* compiled programs kept between runs (disk_cache.c) */
};

/* Appends devices to the context's list, all or none, and sets their index. */
tdm_status tdm_context_add_devices(tdm_context *ctx, tdm_device *const *devs, size_t n);

#endif
