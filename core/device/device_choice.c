/* The devices a strategy uses when the caller names none: each piece of hardware
 * once, through its better driver; GPUs when there are any, else one CPU driver's
 * devices, never two drivers stacked on the same cores; else the reference. */
#include <stdlib.h>
#include <string.h>

#include "device/context_impl.h"
#include "device/device_registry.h"
#include "base/error.h"

/* The table's kernels; their float16 twins are a feature a device may lack. */
static int runs_every_kernel(const tdm_device *dev)
{
    for (int k = 0; k < TDM_KERNEL_COUNT; k++)
        if (tdm_kernel_get((tdm_kernel)k)->base == (tdm_kernel)k &&
            !tdm_kernel_supported(dev, (tdm_kernel)k))
            return 0;
    return 1;
}

/* How well a driver suits training: one that runs every kernel of the table first
 * (OpenCL without CLBlast lacks gemm), then OpenCL over Vulkan: CLBlast's tuned GEMM,
 * and the devices of one OpenCL context copy between each other directly. On a CPU,
 * PoCL trains far faster than lavapipe (docs/TRAINING.md). */
static int driver_rank(const tdm_device *dev)
{
    return 2 * runs_every_kernel(dev) + (dev->desc.backend == TDM_BACKEND_OPENCL);
}

/* The first device of the hardware dev is: itself, or the one it is the same as. */
static size_t hardware_of(const tdm_device *dev)
{
    return dev->desc.same_hardware_as >= 0 ? (size_t)dev->desc.same_hardware_as : dev->index;
}

static int same_driver(const tdm_device *a, const tdm_device *b)
{
    return a->desc.backend == b->desc.backend && !strcmp(a->desc.driver, b->desc.driver);
}

/* Physical devices of a backend other than the reference, each piece of hardware
 * once: the best-ranked of its devices, the first among equals. */
static size_t one_per_hardware(tdm_context *ctx, tdm_device **out)
{
    size_t n = 0, total = atomic_load(&ctx->device_count);
    for (size_t i = 0; i < total; i++) {
        tdm_device *d = ctx->devices[i];
        if (d->desc.parent >= 0 || d->desc.backend == TDM_BACKEND_REFERENCE ||
            atomic_load(&d->lost))
            continue;
        size_t j = 0;
        while (j < n && hardware_of(out[j]) != hardware_of(d))
            j++;
        if (j == n)
            out[n++] = d;
        else if (driver_rank(d) > driver_rank(out[j]))
            out[j] = d;
    }
    return n;
}

static int is_cpu(const tdm_device *dev)
{
    return dev->desc.type == TDM_DEVICE_CPU;
}

/* The GPUs (every type but CPU) when there is one: a CPU replica would hold every
 * step back. Else the devices of the best CPU driver: every driver runs on all the
 * cores, so two of them would only take turns. n > 0. */
static size_t gpus_else_one_cpu_driver(tdm_device **devs, size_t n)
{
    const tdm_device *best = devs[0];
    int gpus = 0;
    for (size_t i = 0; i < n; i++) {
        gpus |= !is_cpu(devs[i]);
        if (driver_rank(devs[i]) > driver_rank(best))
            best = devs[i];
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (gpus ? !is_cpu(devs[i]) : same_driver(devs[i], best))
            devs[kept++] = devs[i];
    return kept;
}

size_t tdm_registry_default_devices(tdm_context *ctx, tdm_device **out)
{
    size_t n = one_per_hardware(ctx, out);
    if (n > 0)
        return gpus_else_one_cpu_driver(out, n);
    size_t total = atomic_load(&ctx->device_count);
    for (size_t i = 0; i < total; i++)
        if (ctx->devices[i]->desc.backend == TDM_BACKEND_REFERENCE &&
            ctx->devices[i]->desc.parent < 0 && !atomic_load(&ctx->devices[i]->lost)) {
            out[0] = ctx->devices[i];
            return 1;
        }
    return 0;
}

tdm_status tdm_context_default_devices(tdm_context *ctx, tdm_device **out, size_t capacity,
                                       size_t *count)
{
    static const char func[] = "tdm_context_default_devices";
    TDM_CHECK_ARG(ctx, func);
    TDM_CHECK_ARG(count, func);
    if (capacity && !out)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: out is NULL with capacity %zu", func,
                        capacity);
    pthread_mutex_lock(&ctx->lock);
    tdm_device **all = malloc((ctx->device_count + 1) * sizeof *all);
    size_t n = all ? tdm_registry_default_devices(ctx, all) : 0;
    pthread_mutex_unlock(&ctx->lock);
    if (!all)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t i = 0; i < n && i < capacity; i++)
        out[i] = all[i];
    free(all);
    *count = n;
    return TDM_OK;
}
