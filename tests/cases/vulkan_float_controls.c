/* The shaders' request to keep NaN, infinities and signed zeros
 * (SignedZeroInfNanPreserve, kernel_args.glsl) and its removal for a device that
 * cannot promise it:
 *
 *   vulkan_float_controls on    lavapipe keeps them on request; every module but
 *                               fill_words carries the request, and its removal
 *                               takes out exactly its three instructions
 *   vulkan_float_controls off   (TDM_VK_NO_FLOAT_CONTROLS=1) the modules lose the
 *                               request, the validation layer takes them, and
 *                               maximum still keeps the specials on lavapipe
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_impl.h"
#include "device/kernel.h"
#include "harness.h"
#include "spirv_modules.h"
#include "vulkan_internal.h"

/* OpCapability SignedZeroInfNanPreserve (2 words), OpExtension
 * "SPV_KHR_float_controls" (1 + 6), OpExecutionMode %main SignedZeroInfNanPreserve 32
 * (4). */
enum { REQUEST_WORDS = 2 + 7 + 4 };

static int has_request(const uint32_t *code, size_t words)
{
    for (size_t i = 5; i < words; i += code[i] >> 16)
        if ((code[i] & 0xFFFFu) == 17 && code[i + 1] == 4466)
            return 1;
    return 0;
}

static void check_modules(void)
{
    const tdm_spirv_module *m;
    for (size_t i = 0; (m = tdm_spirv_module_at(i)) != NULL; i++) {
        size_t words = m->size / sizeof(uint32_t);
        uint32_t *out = malloc(m->size);
        CHECK(out != NULL);
        if (!out)
            return;
        int asks = strcmp(m->name, "fill_words") != 0;
        CHECK(has_request(m->code, words) == asks);
        size_t kept = tdm_vk_spirv_without_preserve(m->code, words, out);
        if (kept != words - (asks ? REQUEST_WORDS : 0))
            fprintf(stderr, "%s: %zu of %zu words kept\n", m->name, kept, words);
        CHECK(kept == words - (asks ? REQUEST_WORDS : 0));
        CHECK(!has_request(out, kept));
        /* A module cut inside its first instruction (OpCapability Shader) is refused,
         * not read past its end. */
        CHECK(tdm_vk_spirv_without_preserve(m->code, 6, out) == 0);
        free(out);
    }
}

/* maximum on NaN, infinities and signed zeros (docs/KERNELS.md's rules). */
static void check_specials(tdm_device *dev)
{
    enum { N = 6 };
    const float x[N] = {NAN, -0.0f, 0.0f, INFINITY, -INFINITY, 2.0f};
    const float y[N] = {1.0f, 0.0f, -0.0f, 1.0f, NAN, -INFINITY};
    tdm_buffer *bx = NULL, *by = NULL, *bz = NULL;
    CHECK_OK(tdm_buffer_alloc(dev, sizeof x, &bx));
    CHECK_OK(tdm_buffer_alloc(dev, sizeof y, &by));
    CHECK_OK(tdm_buffer_alloc(dev, sizeof x, &bz));
    if (!bx || !by || !bz)
        goto out;
    CHECK_OK(tdm_buffer_write(bx, 0, x, sizeof x));
    CHECK_OK(tdm_buffer_write(by, 0, y, sizeof y));
    tdm_kernel_call c = {.kernel = TDM_KERNEL_maximum};
    c.views[0] = tdm_buffer_whole(bz);
    c.views[1] = tdm_buffer_whole(bx);
    c.views[2] = tdm_buffer_whole(by);
    c.u[0] = N;
    CHECK_OK(tdm_kernel_run(dev, &c));
    float z[N];
    CHECK_OK(tdm_buffer_read(bz, 0, z, sizeof z));
    CHECK(isnan(z[0]) && isnan(z[4]));
    CHECK(z[1] == 0.0f && signbit(z[1])); /* equal zeros: x's */
    CHECK(z[2] == 0.0f && !signbit(z[2]));
    CHECK(z[3] == INFINITY && z[5] == 2.0f);
out:
    tdm_buffer_free(bx);
    tdm_buffer_free(by);
    tdm_buffer_free(bz);
}

void test_case_vulkan_float_controls(const test_run *run)
{
    int on = !strcmp(run->argv[0], "on");
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_VULKAN));
    tdm_device *dev = test_first_device(ctx, TDM_BACKEND_VULKAN);
    const tdm_vk_device *vd = dev->impl;
    CHECK(on ? vd->float_controls != 0 : vd->float_controls == 0);
    if (on)
        check_modules();
    check_specials(dev);
    tdm_context_destroy(ctx);
}
