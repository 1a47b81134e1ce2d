/* The global L2 norm over a list of tensors, on every device of the context, against
 * a double-precision norm on the host. */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "device/launch/kernel_ops.h"

static const size_t sizes[] = {1, 1000, 0, 70001, 200003, 65536};
#define TENSORS (sizeof sizes / sizeof sizes[0])

/* Tensors side by side in one buffer, each starting 3 floats after the last. */
static size_t layout(size_t *offsets)
{
    size_t at = 5;
    for (size_t i = 0; i < TENSORS; i++) {
        offsets[i] = at;
        at += sizes[i] + 3;
    }
    return at;
}

/* Runs the norm on dev over host data; returns the result (NAN on failure). */
static float device_norm(tdm_device *dev, const float *host, size_t total, const size_t *offsets)
{
    tdm_buffer *data = NULL, *scratch = NULL, *out = NULL;
    size_t parts = tdm_global_norm_scratch(sizes, TENSORS);
    float result = NAN;
    CHECK_OK(tdm_buffer_alloc(dev, total * sizeof(float), &data));
    CHECK_OK(tdm_buffer_alloc(dev, parts * sizeof(float), &scratch));
    CHECK_OK(tdm_buffer_alloc(dev, 2 * sizeof(float), &out));
    if (data && scratch && out) {
        tdm_buffer_view views[TENSORS];
        for (size_t i = 0; i < TENSORS; i++)
            views[i] =
                (tdm_buffer_view){data, offsets[i] * sizeof(float), sizes[i] * sizeof(float)};
        tdm_buffer_view s = tdm_buffer_whole(scratch), o = {out, sizeof(float), sizeof(float)};
        CHECK_OK(tdm_buffer_write(data, 0, host, total * sizeof(float)));
        CHECK_OK(tdm_global_norm(dev, views, TENSORS, &s, &o));
        CHECK_OK(tdm_buffer_read(out, sizeof(float), &result, sizeof result));
    }
    tdm_buffer_free(data);
    tdm_buffer_free(scratch);
    tdm_buffer_free(out);
    return result;
}

static double host_norm(const float *host, const size_t *offsets)
{
    double sum = 0;
    for (size_t i = 0; i < TENSORS; i++)
        for (size_t k = 0; k < sizes[i]; k++)
            sum += (double)host[offsets[i] + k] * host[offsets[i] + k];
    return sqrt(sum);
}

static void check_device(tdm_device *dev, float *host, size_t total, const size_t *offsets)
{
    double want = host_norm(host, offsets);
    float got = device_norm(dev, host, total, offsets);
    /* The sum of squares may err by 2^-20 of itself (docs/KERNELS.md); its root by half. */
    CHECK(fabs(got - want) <= 0x1p-21 * want + 1e-30);
    size_t edge = offsets[3] + 17;
    float saved = host[edge];
    host[edge] = INFINITY;
    CHECK(isinf(device_norm(dev, host, total, offsets)));
    host[edge] = NAN;
    CHECK(isnan(device_norm(dev, host, total, offsets)));
    host[edge] = saved;
}

void test_case_kernel_ops(const test_run *run)
{
    (void)run;
    tdm_context *ctx = test_context(TDM_BACKENDS_ALL);
    size_t offsets[TENSORS], total = layout(offsets);
    float *host = malloc(total * sizeof *host);
    CHECK(host != NULL);
    if (!host) {
        tdm_context_destroy(ctx);
        return;
    }
    test_random_bytes(host, total * sizeof *host, 3);
    for (size_t i = 0; i < total; i++) /* random bits make NaNs: use values in [-2, 2) */
        host[i] = (float)(((unsigned char *)host)[4 * i] % 200) / 50.0f - 2.0f;
    size_t checked = 0;
    for (size_t i = 0; i < tdm_context_device_count(ctx); i++) {
        tdm_device *dev;
        tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
        CHECK_OK(tdm_context_device(ctx, i, &dev));
        CHECK_OK(tdm_device_describe(dev, &desc));
        fprintf(stderr, "global norm on %s\n", desc.id);
        check_device(dev, host, total, offsets);
        checked++;
    }
    CHECK(checked >= 1);
    CHECK(tdm_context_validation_messages(ctx) == 0);
    free(host);
    tdm_context_destroy(ctx);
}
