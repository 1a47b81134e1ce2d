/* The reference's float16 twins (kernels.def, TDM_HALF_TWIN): each runs its kernel
 * on float copies of the activations, converted exactly from their halves, and
 * rounds the written ones back to float16 (nearest even), which is the twins'
 * definition. Copies rather than half arithmetic keep one reference per kernel. */
#include <stdlib.h>

#include "base/error.h"
#include "base/half_bits.h"
#include "reference_launch.h"

/* The float copies of a launch's half views, as buffers the kernel reads at offset 0. */
typedef struct float_views {
    tdm_buffer buffers[TDM_KERNEL_MAX_BUFFERS];
    float *values[TDM_KERNEL_MAX_BUFFERS];
    uint64_t count[TDM_KERNEL_MAX_BUFFERS];
} float_views;

static void free_views(float_views *v)
{
    for (unsigned b = 0; b < TDM_KERNEL_MAX_BUFFERS; b++)
        free(v->values[b]);
}

static const uint16_t *halves_of(const tdm_launch *launch, unsigned b)
{
    return (const uint16_t *)launch->buffers[b]->impl + launch->offsets[b];
}

tdm_status tdm_reference_half_twin(tdm_device *dev, const tdm_launch *launch)
{
    const tdm_kernel_info *twin = tdm_kernel_get(launch->kernel);
    if (twin->base == TDM_KERNEL_bias_act) /* reads back an activation it stores */
        return tdm_reference_bias_act_f16(dev, launch);
    tdm_launch inner = *launch;
    float_views v = {0};
    inner.kernel = twin->base;
    for (unsigned b = 0; b < twin->buffer_count; b++) {
        if (!launch->buffers[b] || !twin->buffers[b].activation)
            continue;
        v.count[b] = tdm_kernel_extent(twin, launch->u, twin->buffers[b].extent);
        v.values[b] = malloc((v.count[b] ? v.count[b] : 1) * sizeof(float));
        if (!v.values[b]) {
            free_views(&v);
            return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                            "%s: %s: no host memory for a float copy of %llu halves", dev->desc.id,
                            twin->name, (unsigned long long)v.count[b]);
        }
        const uint16_t *h = halves_of(launch, b);
        for (uint64_t i = 0; i < v.count[b]; i++)
            v.values[b][i] = tdm_f32_from_f16(h[i]);
        v.buffers[b] = *launch->buffers[b];
        v.buffers[b].impl = v.values[b];
        inner.buffers[b] = &v.buffers[b];
        inner.offsets[b] = 0;
    }
    tdm_status s = tdm_reference_launch(dev, &inner);
    for (unsigned b = 0; b < twin->buffer_count && s == TDM_OK; b++) {
        if (!v.values[b] || !twin->buffers[b].written)
            continue;
        uint16_t *h = (uint16_t *)halves_of(launch, b);
        for (uint64_t i = 0; i < v.count[b]; i++)
            h[i] = tdm_f16_from_f32(v.values[b][i]);
    }
    free_views(&v);
    return s;
}
