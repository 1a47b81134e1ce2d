/* The default devices of a context and the verdict on each (device_verdicts.c
 * decides; this file gathers what it needs under the context's lock). */
#include <stdlib.h>

#include "device/context_impl.h"
#include "device/device_registry.h"
#include "device/device_verdicts.h"
#include "base/error.h"

/* The table's kernels; their float16 twins are a feature a device may lack, and the
 * kernels callers fall back from a speed (tdm_kernel_has_fallback). */
static int runs_every_kernel(const tdm_device *dev)
{
    for (int k = 0; k < TDM_KERNEL_COUNT; k++)
        if (tdm_kernel_get((tdm_kernel)k)->base == (tdm_kernel)k &&
            !tdm_kernel_has_fallback((tdm_kernel)k) && !tdm_kernel_supported(dev, (tdm_kernel)k))
            return 0;
    return 1;
}

/* The verdict on every device of ctx, malloc'd (NULL when out of memory); the
 * caller holds the lock. */
static tdm_device_choice *verdicts_of(tdm_context *ctx)
{
    size_t n = atomic_load(&ctx->device_count);
    tdm_choice_candidate *devs = malloc((n + 1) * sizeof *devs);
    tdm_device_choice *verdicts = malloc((n + 1) * sizeof *verdicts);
    if (devs && verdicts) {
        for (size_t i = 0; i < n; i++) {
            const tdm_device *d = ctx->devices[i];
            devs[i] = (tdm_choice_candidate){.desc = &d->desc,
                                             .runs_every_kernel = runs_every_kernel(d),
                                             .lost = atomic_load(&d->lost)};
        }
        tdm_choose_default_devices(devs, n, verdicts);
    } else {
        free(verdicts);
        verdicts = NULL;
    }
    free(devs);
    return verdicts;
}

size_t tdm_registry_default_devices(tdm_context *ctx, tdm_device **out)
{
    tdm_device_choice *verdicts = verdicts_of(ctx);
    size_t n = 0, total = atomic_load(&ctx->device_count);
    for (size_t i = 0; verdicts && i < total; i++)
        if (verdicts[i] == TDM_CHOICE_USED)
            out[n++] = ctx->devices[i];
    free(verdicts);
    return n;
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
    tdm_mutex_lock(&ctx->lock);
    tdm_device **all = malloc((ctx->device_count + 1) * sizeof *all);
    size_t n = all ? tdm_registry_default_devices(ctx, all) : 0;
    tdm_mutex_unlock(&ctx->lock);
    if (!all)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t i = 0; i < n && i < capacity; i++)
        out[i] = all[i];
    free(all);
    *count = n;
    return TDM_OK;
}

tdm_status tdm_context_default_choice(tdm_context *ctx, const tdm_device *dev,
                                      tdm_device_choice *out)
{
    static const char func[] = "tdm_context_default_choice";
    TDM_CHECK_ARG(ctx, func);
    TDM_CHECK_ARG(dev, func);
    TDM_CHECK_ARG(out, func);
    if (dev->ctx != ctx)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: device %s belongs to another context", func,
                        dev->desc.id);
    tdm_mutex_lock(&ctx->lock);
    tdm_device_choice *verdicts = verdicts_of(ctx);
    if (verdicts)
        *out = verdicts[dev->index];
    tdm_mutex_unlock(&ctx->lock);
    free(verdicts);
    return verdicts ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
}

const char *tdm_device_choice_description(tdm_device_choice choice)
{
    static const char *const descriptions[] = {
#define TDM_DEVICE_CHOICE(name, value, description) [value] = description,
#include "tandem/device_choices.def"
#undef TDM_DEVICE_CHOICE
    };
    size_t i = (size_t)choice;
    return i < sizeof descriptions / sizeof descriptions[0] && descriptions[i] ? descriptions[i]
                                                                               : "unknown choice";
}
