/* The global L2 norm over a list of tensors: partial sums of squares of every
 * tensor side by side in scratch, one sum over all of them, one square root. */
#include "device/device_impl.h"
#include "base/error.h"
#include "kernel/kernel_args.h"
#include "device/launch/kernel_ops.h"

static size_t partials_of(size_t elements)
{
    return (elements + TDM_NORM_CHUNK - 1) / TDM_NORM_CHUNK;
}

size_t tdm_global_norm_scratch(const size_t *elements, size_t count)
{
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += partials_of(elements[i]);
    return total;
}

static tdm_buffer_view slice(const tdm_buffer_view *v, size_t first, size_t floats)
{
    tdm_buffer_view s = {v->buffer, v->offset + first * sizeof(float), floats * sizeof(float)};
    return s;
}

tdm_status tdm_global_norm(tdm_device *dev, const tdm_buffer_view *tensors, size_t count,
                           const tdm_buffer_view *scratch, const tdm_buffer_view *out)
{
    TDM_CHECK_ARG(tensors, "tdm_global_norm");
    TDM_CHECK_ARG(scratch, "tdm_global_norm");
    TDM_CHECK_ARG(out, "tdm_global_norm");
    size_t used = 0;
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < count && s == TDM_OK; i++) {
        size_t n = tensors[i].size / sizeof(float), parts = partials_of(n);
        const tdm_sum_squares_args partials = {.out = slice(scratch, used, parts),
                                               .x = tensors[i],
                                               .n = (uint32_t)n,
                                               .chunk = TDM_NORM_CHUNK};
        s = tdm_sum_squares_run(dev, &partials);
        used += parts;
    }
    if (s != TDM_OK)
        return tdm_fail_context(s, "tdm_global_norm");
    if (used == 0) { /* no elements at all: the norm is 0 */
        float zero = 0.0f;
        return tdm_buffer_write(out->buffer, out->offset, &zero, sizeof zero);
    }
    /* One chunk over every partial gives the sum; then its square root. */
    const tdm_sum_args total = {.out = slice(out, 0, 1),
                                .x = slice(scratch, 0, used),
                                .n = (uint32_t)used,
                                .chunk = (uint32_t)used,
                                .alpha = 1.0f};
    const tdm_sqrt_args root = {.y = slice(out, 0, 1), .x = slice(out, 0, 1), .n = 1};
    s = tdm_sum_run(dev, &total);
    if (s == TDM_OK)
        s = tdm_sqrt_run(dev, &root);
    return s == TDM_OK ? s : tdm_fail_context(s, "tdm_global_norm");
}
