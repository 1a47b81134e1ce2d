/* The reference's float16 twins (kernels.def, TDM_HALF_TWIN): each runs its kernel
 * on float copies of the activations, converted exactly from their halves, and
 * rounds the written ones back to float16 (nearest even), which is the twins'
 * definition (bias_act's runs its parts' twins). Copies rather than half arithmetic
 * keep one reference per kernel. */
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "reference_launch.h"

/* The float copies of a launch's half views, which the kernel reads at offset 0, and
 * the host memory of its other buffers. */
typedef struct float_views {
    void *memory[TDM_KERNEL_MAX_BUFFERS];
    float *values[TDM_KERNEL_MAX_BUFFERS];
    uint64_t count[TDM_KERNEL_MAX_BUFFERS];
} float_views;

static void free_views(float_views *v)
{
    for (unsigned b = 0; b < TDM_KERNEL_MAX_BUFFERS; b++)
        free(v->values[b]);
}

static uint16_t *halves_of(const tdm_launch *launch, unsigned b)
{
    return (uint16_t *)tdm_backend_buffer_state(launch->buffers[b]) + launch->offsets[b];
}

/* A twin whose kernel reads no activation it has stored. */
static tdm_status float_copies(tdm_device *dev, const tdm_launch *launch)
{
    const tdm_kernel_info *twin = tdm_kernel_get(launch->kernel);
    tdm_launch inner = *launch;
    float_views v = {0};
    inner.kernel = twin->base;
    for (unsigned b = 0; b < twin->buffer_count; b++) {
        if (!launch->buffers[b])
            continue;
        v.memory[b] = tdm_backend_buffer_state(launch->buffers[b]);
        if (!twin->buffers[b].activation)
            continue;
        v.count[b] = tdm_kernel_extent(twin, launch->u, twin->buffers[b].extent);
        v.values[b] = malloc((v.count[b] ? v.count[b] : 1) * sizeof(float));
        if (!v.values[b]) {
            free_views(&v);
            return tdm_fail(
                TDM_ERR_OUT_OF_MEMORY, "%s: %s: no host memory for a float copy of %llu halves",
                tdm_backend_device_desc(dev)->id, twin->name, (unsigned long long)v.count[b]);
        }
        const uint16_t *h = halves_of(launch, b);
        for (uint64_t i = 0; i < v.count[b]; i++)
            v.values[b][i] = tdm_f32_from_f16(h[i]);
        v.memory[b] = v.values[b];
        inner.offsets[b] = 0;
    }
    tdm_reference_run(&inner, v.memory);
    for (unsigned b = 0; b < twin->buffer_count; b++) {
        if (!v.values[b] || !twin->buffers[b].written)
            continue;
        uint16_t *h = halves_of(launch, b);
        for (uint64_t i = 0; i < v.count[b]; i++)
            h[i] = tdm_f16_from_f32(v.values[b][i]);
    }
    free_views(&v);
    return TDM_OK;
}

/* bias_act's buffers, in the table's order. */
enum { Y, Z, X, B };

/* A launch of a part of bias_act_f16: its float16 twin on some of the launch's views. */
static tdm_launch part(const tdm_launch *fused, tdm_kernel kernel, const unsigned *views,
                       unsigned count)
{
    tdm_launch p = {.kernel = tdm_kernel_half_twin(kernel), .groups = fused->groups};
    for (unsigned i = 0; i < count; i++) {
        p.buffers[i] = fused->buffers[views[i]];
        p.offsets[i] = fused->offsets[views[i]];
    }
    return p;
}

/* bias_act's float16 twin runs its parts' twins, so that the activation reads z
 * rounded to float16 as stored (float copies of the fused kernel would round it only
 * after the activation had read it). */
static tdm_status bias_act_f16(tdm_device *dev, const tdm_launch *launch)
{
    const tdm_kernel_info *info = tdm_kernel_get(launch->kernel);
    const uint32_t rows = (uint32_t)tdm_kernel_uint(info, launch->u, TDM_UINT_rows);
    const uint32_t cols = (uint32_t)tdm_kernel_uint(info, launch->u, TDM_UINT_cols);
    const uint32_t act = (uint32_t)tdm_kernel_uint(info, launch->u, TDM_UINT_activation);
    const tdm_kernel apply = tdm_activation_kernel(act);
    if (apply == TDM_KERNEL_COUNT)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: %s: unknown activation %u",
                        tdm_backend_device_desc(dev)->id, info->name, act);
    tdm_launch add_z = part(launch, TDM_KERNEL_bias_add, (const unsigned[]){Z, X, B}, 3);
    tdm_launch act_y = part(launch, apply, (const unsigned[]){Y, Z}, 2);
    add_z.u[0] = rows;
    add_z.u[1] = cols;
    act_y.u[0] = rows * cols;
    tdm_status s = float_copies(dev, &add_z);
    if (s != TDM_OK || apply != TDM_KERNEL_bias_add)
        return s == TDM_OK ? float_copies(dev, &act_y) : s;
    /* linear: y is z's halves, as bias_add into y would round them (z may be y) */
    memmove(halves_of(launch, Y), halves_of(launch, Z),
            (size_t)rows * cols * sizeof(uint16_t));
    return TDM_OK;
}

tdm_status tdm_reference_half_twin(tdm_device *dev, const tdm_launch *launch)
{
    if (tdm_kernel_get(launch->kernel)->base == TDM_KERNEL_bias_act)
        return bias_act_f16(dev, launch); /* reads back an activation it stores */
    return float_copies(dev, launch);
}
