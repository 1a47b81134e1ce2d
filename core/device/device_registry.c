#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/memory/copy_worker.h"
#include "device/device_registry.h"
#include "device/device_verdicts.h"
#include "device/gpu_shape.h"
#include "base/error.h"
#include "device/log.h"

static tdm_device *device_new(tdm_context *ctx, const tdm_backend_ops *ops, tdm_backend *instance,
                              size_t backend_index)
{
    tdm_device *dev = calloc(1, sizeof *dev);
    if (!dev)
        return NULL;
    if (tdm_mutex_init(&dev->lock) != 0) {
        free(dev);
        return NULL;
    }
    dev->ctx = ctx;
    dev->ops = ops;
    dev->backend = instance;
    dev->backend_index = backend_index;
    atomic_init(&dev->lost, 0);
    atomic_init(&dev->launches, 0);
    atomic_init(&dev->submissions, 0);
    atomic_init(&dev->host_waits, 0);
    tdm_device_desc blank = TDM_DEVICE_DESC_INIT;
    dev->desc = blank;
    dev->desc.same_hardware_as = -1;
    dev->desc.parent = -1;
    return dev;
}

static void device_delete(tdm_device *dev)
{
    tdm_mutex_destroy(&dev->lock);
    free(dev);
}

/* The backend's open_device for dev, its state and traits kept in dev. */
static tdm_status open_device(const tdm_backend_ops *ops, tdm_backend *instance, size_t index,
                              tdm_device *dev)
{
    dev->traits = (tdm_backend_traits){0};
    tdm_status s = ops->open_device(instance, index, dev, &dev->impl, &dev->traits);
    if (s == TDM_OK && dev->traits.gemm_tuning)
        snprintf(dev->desc.gemm_tuning, sizeof dev->desc.gemm_tuning, "%s",
                 dev->traits.gemm_tuning);
    return s;
}

static void open_one(tdm_context *ctx, const tdm_backend_ops *ops, tdm_backend *instance,
                     size_t index)
{
    tdm_device *dev = device_new(ctx, ops, instance, index);
    if (!dev)
        return;
    ops->describe(instance, index, &dev->desc);
    dev->desc.backend = ops->kind;
    if (tdm_gpu_shaped(ops))
        dev->desc.type = TDM_DEVICE_GPU;
    snprintf(dev->desc.id, sizeof dev->desc.id, "%s:%zu", tdm_backend_name(ops->kind), index);
    if (open_device(ops, instance, index, dev) != TDM_OK) {
        tdm_log(ctx, TDM_LOG_WARN, "device %s '%s' not used: %s", dev->desc.id, dev->desc.name,
                tdm_last_error());
        device_delete(dev);
        return;
    }
    if (tdm_context_add_devices(ctx, &dev, 1) != TDM_OK) {
        ops->close_device(dev, dev->impl);
        device_delete(dev);
    }
}

void tdm_registry_open_backend_devices(tdm_context *ctx, const tdm_backend_ops *ops,
                                       tdm_backend *instance)
{
    size_t n = ops->device_count(instance);
    for (size_t i = 0; i < n; i++)
        open_one(ctx, ops, instance, i);
}

void tdm_registry_mark_same_hardware(tdm_context *ctx)
{
    tdm_device_desc **descs = malloc((ctx->device_count + 1) * sizeof *descs);
    if (!descs)
        return; /* every device then counts as hardware of its own */
    for (size_t i = 0; i < ctx->device_count; i++)
        descs[i] = &ctx->devices[i]->desc;
    tdm_mark_same_hardware(descs, ctx->device_count);
    for (size_t i = 0; i < ctx->device_count; i++)
        if (descs[i]->same_hardware_as >= 0)
            tdm_log(ctx, TDM_LOG_INFO, "%s '%s' is the same hardware as %s", descs[i]->id,
                    descs[i]->name, descs[descs[i]->same_hardware_as]->id);
    free(descs);
}

void tdm_registry_close_device(tdm_device *dev)
{
    tdm_device_stop_copy_worker(dev);
    if (dev->buffers && !atomic_load(&dev->lost))
        dev->ops->finish(dev, dev->impl);
    while (dev->buffers) {
        tdm_buffer *buf = dev->buffers;
        dev->buffers = buf->next;
        dev->ops->buffer_free(buf, buf->impl);
        free(buf);
    }
    dev->ops->close_device(dev, dev->impl);
    device_delete(dev);
}

/* Logical devices: one physical device split into replicas, each with a queue of
 * its own and an equal share of the memory. */
static tdm_status open_logical(tdm_device *parent, uint32_t index, uint32_t count, tdm_device **out)
{
    tdm_device *dev = device_new(parent->ctx, parent->ops, parent->backend, parent->backend_index);
    if (!dev)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_device_split: out of host memory");
    dev->desc = parent->desc;
    snprintf(dev->desc.id, sizeof dev->desc.id, "%.20s/%u", parent->desc.id, index);
    dev->desc.parent = (int)parent->index;
    dev->desc.same_hardware_as = -1;
    dev->desc.logical_index = index;
    dev->desc.logical_count = count;
    dev->desc.global_memory = parent->desc.global_memory / count;
    if (dev->desc.max_allocation > dev->desc.global_memory)
        dev->desc.max_allocation = dev->desc.global_memory;
    tdm_status s = open_device(parent->ops, parent->backend, parent->backend_index, dev);
    if (s != TDM_OK) {
        device_delete(dev);
        return tdm_fail_context(s, "tdm_device_split: opening %s", dev->desc.id);
    }
    *out = dev;
    return TDM_OK;
}

#define TDM_MAX_LOGICAL 64

tdm_status tdm_device_split(tdm_device *dev, uint32_t count, tdm_device **out)
{
    TDM_CHECK_ARG(dev, "tdm_device_split");
    TDM_CHECK_ARG(out, "tdm_device_split");
    if (count == 0 || count > TDM_MAX_LOGICAL)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_device_split: count is %u, expected 1 to %d",
                        count, TDM_MAX_LOGICAL);
    if (dev->desc.parent >= 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_device_split: %s is already a logical device; split its parent",
                        dev->desc.id);
    tdm_status s = TDM_OK;
    uint32_t opened = 0;
    while (opened < count && (s = open_logical(dev, opened, count, &out[opened])) == TDM_OK)
        opened++;
    if (s == TDM_OK)
        s = tdm_context_add_devices(dev->ctx, out, count);
    if (s == TDM_OK)
        return TDM_OK;
    for (uint32_t i = 0; i < opened; i++) {
        dev->ops->close_device(out[i], out[i]->impl);
        device_delete(out[i]);
        out[i] = NULL;
    }
    return s;
}

const char *tdm_backend_name(tdm_backend_kind kind)
{
    switch (kind) {
    case TDM_BACKEND_REFERENCE: return "reference";
    case TDM_BACKEND_OPENCL: return "opencl";
    case TDM_BACKEND_VULKAN: return "vulkan";
    }
    return "unknown";
}

tdm_status tdm_context_add_devices(tdm_context *ctx, tdm_device *const *devs, size_t n)
{
    tdm_mutex_lock(&ctx->lock);
    size_t count = ctx->device_count;
    if (count + n > ctx->device_capacity) {
        size_t capacity = 2 * (count + n);
        tdm_device **grown = realloc(ctx->devices, capacity * sizeof *grown);
        if (!grown) {
            tdm_mutex_unlock(&ctx->lock);
            return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory listing devices");
        }
        ctx->devices = grown;
        ctx->device_capacity = capacity;
    }
    for (size_t i = 0; i < n; i++) {
        devs[i]->index = count + i;
        ctx->devices[count + i] = devs[i];
    }
    atomic_store(&ctx->device_count, count + n);
    tdm_mutex_unlock(&ctx->lock);
    return TDM_OK;
}
