/* The shaders' requests to keep NaN, infinities, signed zeros and denormals
 * (SignedZeroInfNanPreserve, DenormPreserve: kernel_args.glsl) and their removal for
 * a device that cannot promise them:
 *
 *   vulkan_float_controls on    lavapipe keeps some on request; every module but
 *                               fill_words carries both, and taking out any subset
 *                               removes exactly its instructions
 *   vulkan_float_controls off   (TDM_VK_NO_FLOAT_CONTROLS=1) the modules lose both
 *                               requests, the validation layer takes them, and
 *                               maximum still keeps the specials on lavapipe
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_impl.h"
#include "kernel/kernel.h"
#include "harness.h"
#include "spirv_modules.h"
#include "vulkan_internal.h"

/* Each request is an OpCapability (2 words) and an OpExecutionMode %main MODE 32 (4);
 * both share OpExtension "SPV_KHR_float_controls" (1 + 6). */
enum { REQUEST_WORDS = 2 + 4, EXTENSION_WORDS = 7 };
static const uint32_t capabilities[2] = {4466, 4464}; /* by TDM_VK_KEEP_* bit */

static int has_capability(const uint32_t *code, size_t words, uint32_t capability)
{
    for (size_t i = 5; i < words; i += code[i] >> 16)
        if ((code[i] & 0xFFFFu) == 17 && code[i + 1] == capability)
            return 1;
    return 0;
}

/* Every module but fill_words asks for both; each subset of them can be kept. */
static void check_module(const tdm_spirv_module *m, uint32_t *out)
{
    size_t words = m->size / sizeof(uint32_t);
    int asks = strcmp(m->name, "fill_words") != 0;
    for (unsigned r = 0; r < 2; r++)
        CHECK(has_capability(m->code, words, capabilities[r]) == asks);
    for (unsigned kept = 0; kept <= TDM_VK_KEEP_ALL; kept++) {
        size_t dropped = 0;
        for (unsigned r = 0; r < 2; r++)
            dropped += kept & (1u << r) ? 0 : REQUEST_WORDS;
        dropped += kept ? 0 : EXTENSION_WORDS;
        size_t written = tdm_vk_spirv_keeping(m->code, words, kept, out);
        if (written != words - (asks ? dropped : 0))
            fprintf(stderr, "%s keeping %u: %zu of %zu words\n", m->name, kept, written, words);
        CHECK(written == words - (asks ? dropped : 0));
        for (unsigned r = 0; r < 2; r++)
            CHECK(has_capability(out, written, capabilities[r]) == (asks && (kept & (1u << r))));
    }
    /* A module cut inside its first instruction (OpCapability Shader) is refused, not
     * read past its end. */
    CHECK(tdm_vk_spirv_keeping(m->code, 6, 0, out) == 0);
}

static void check_modules(void)
{
    const tdm_spirv_module *m;
    for (size_t i = 0; (m = tdm_spirv_module_at(i)) != NULL; i++) {
        uint32_t *out = malloc(m->size);
        CHECK(out != NULL);
        if (!out)
            return;
        check_module(m, out);
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
