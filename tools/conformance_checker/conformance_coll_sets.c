/* The device sets of the collectives section. */
#include <stdio.h>

#include "conformance_collectives.h"

static int allowed(const conf_coll_devices *only, const tdm_device *dev)
{
    if (!only)
        return 1;
    for (size_t i = 0; i < only->count; i++)
        if (only->dev[i] == dev)
            return 1;
    return 0;
}

/* The nth physical device of the backend among those allowed. */
static tdm_device *nth_of(tdm_context *ctx, const conf_coll_devices *only, tdm_backend_kind backend,
                          size_t nth)
{
    for (size_t i = 0; i < tdm_context_device_count(ctx); i++) {
        tdm_device *dev;
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        if (tdm_context_device(ctx, i, &dev) == TDM_OK && tdm_device_describe(dev, &d) == TDM_OK &&
            d.backend == backend && d.parent < 0 && allowed(only, dev) && nth-- == 0)
            return dev;
    }
    return NULL;
}

/* A set of the device's two logical halves; 0 if there is no such device. */
static size_t add_split(conf_coll_set *set, tdm_device *dev, const char *name)
{
    if (!dev || tdm_device_split(dev, 2, set->dev) != TDM_OK)
        return 0;
    set->n = 2;
    snprintf(set->name, sizeof set->name, "%s", name);
    return 1;
}

/* Every physical device of the backend, then `extra` if not NULL. */
static size_t add_all(conf_coll_set *set, tdm_context *ctx, const conf_coll_devices *only,
                      tdm_backend_kind backend, tdm_device *extra, const char *name)
{
    set->n = 0;
    for (tdm_device *d;
         set->n < CONF_COLL_MAX_DEVICES - 1 && (d = nth_of(ctx, only, backend, set->n));)
        set->dev[set->n++] = d;
    if (extra && set->n)
        set->dev[set->n++] = extra;
    snprintf(set->name, sizeof set->name, "%s", name);
    return set->n >= 2;
}

size_t conf_coll_sets(tdm_context *ctx, const conf_coll_devices *only, conf_coll_set *out)
{
    tdm_device *vulkan = nth_of(ctx, only, TDM_BACKEND_VULKAN, 0);
    size_t n = add_split(&out[0], nth_of(ctx, only, TDM_BACKEND_REFERENCE, 0), "reference x2");
    n += add_all(&out[n], ctx, only, TDM_BACKEND_OPENCL, NULL, "opencl all");
    n += add_split(&out[n], vulkan, "vulkan:0 x2");
    if (vulkan)
        n += add_all(&out[n], ctx, only, TDM_BACKEND_OPENCL, vulkan, "opencl + vulkan");
    return n;
}
