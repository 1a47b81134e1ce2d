/* The Vulkan float16 twins (kernels.def's TDM_HALF_TWIN) and the feature they need:
 *
 *   vulkan_storage16 on    lavapipe has storageBuffer16BitAccess: every twin is
 *                          supported, and add_f16 rounds ties to even and keeps
 *                          denormals, bit for bit
 *   vulkan_storage16 off   (TDM_VK_NO_16BIT_STORAGE=1) no twin is supported while
 *                          its kernel is, a twin's launch through the ops table
 *                          fails naming the feature, and so does the creation of a
 *                          model with f16 activations
 */
#include <stdint.h>
#include <stdlib.h>

#include "device/device_impl.h"
#include "kernel/kernel.h"
#include "harness.h"

/* Every twin supported or none; their kernels always. */
static void check_supported(tdm_device *dev, int twins)
{
    for (int k = 0; k < TDM_KERNEL_COUNT; k++) {
        tdm_kernel base = tdm_kernel_get((tdm_kernel)k)->base;
        if (base == (tdm_kernel)k)
            continue;
        CHECK(tdm_kernel_supported(dev, (tdm_kernel)k) == twins);
        CHECK(tdm_kernel_supported(dev, base));
    }
}

/* x + y in halves: ties of the float sum round to even, denormals add exactly, and
 * the odd count ends on a lone half whose neighbour word is another's to keep. */
static void check_add(tdm_device *dev)
{
    enum { N = 5 };
    static const uint16_t x[N] = {0x3c00, 0x3c01, 0x0001, 0x8001, 0x7bff};
    static const uint16_t y[N] = {0x1000, 0x1000, 0x0001, 0x03ff, 0x5000};
    static const uint16_t want[N] = {0x3c00, 0x3c02, 0x0002, 0x03fe, 0x7c00};
    const uint16_t guard = 0x5555;
    tdm_buffer *bx = NULL, *by = NULL, *bz = NULL;
    CHECK_OK(tdm_buffer_alloc(dev, sizeof x, &bx));
    CHECK_OK(tdm_buffer_alloc(dev, sizeof y, &by));
    CHECK_OK(tdm_buffer_alloc(dev, sizeof want + sizeof guard, &bz));
    if (!bx || !by || !bz)
        goto out;
    CHECK_OK(tdm_buffer_write(bx, 0, x, sizeof x));
    CHECK_OK(tdm_buffer_write(by, 0, y, sizeof y));
    CHECK_OK(tdm_buffer_write(bz, sizeof want, &guard, sizeof guard));
    tdm_kernel_call c = {.kernel = TDM_KERNEL_add_f16};
    c.views[0] = (tdm_buffer_view){bz, 0, sizeof want};
    c.views[1] = tdm_buffer_whole(bx);
    c.views[2] = tdm_buffer_whole(by);
    c.u[0] = N;
    CHECK_OK(tdm_kernel_run(dev, &c));
    uint16_t got[N + 1];
    CHECK_OK(tdm_buffer_read(bz, 0, got, sizeof got));
    for (int i = 0; i < N; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "add_f16[%d]: %04x + %04x gave %04x, want %04x\n", i, x[i], y[i],
                    got[i], want[i]);
            CHECK(got[i] == want[i]);
        }
    CHECK(got[N] == guard);
out:
    tdm_buffer_free(bx);
    tdm_buffer_free(by);
    tdm_buffer_free(bz);
}

/* Past the core's check, which refuses an unsupported kernel first: the backend's
 * own answer names what the device lacks. */
static void check_launch_refused(tdm_device *dev)
{
    tdm_buffer *b = NULL;
    CHECK_OK(tdm_buffer_alloc(dev, 64, &b));
    if (!b)
        return;
    tdm_launch l = {.kernel = TDM_KERNEL_relu_f16, .buffers = {b, b}, .u = {16}, .groups = 1};
    CHECK_FAILS(dev->ops->launch(dev, dev->impl, &l), TDM_ERR_UNSUPPORTED,
                "storageBuffer16BitAccess");
    tdm_kernel_call c = {.kernel = TDM_KERNEL_relu_f16, .u = {16}};
    c.views[0] = (tdm_buffer_view){b, 0, 32};
    c.views[1] = (tdm_buffer_view){b, 32, 32};
    CHECK_FAILS(tdm_kernel_run(dev, &c), TDM_ERR_UNSUPPORTED, "relu_f16");
    tdm_buffer_free(b);
}

/* A model that would store its activations in f16 is refused when it is made. */
static void check_model_refused(tdm_device *dev)
{
    tdm_strategy *s = NULL;
    tdm_model *m = NULL;
    CHECK_OK(tdm_strategy_create_one_device(dev, NULL, &s));
    const tdm_layer layers[] = {TDM_DENSE(8, TDM_ACT_RELU, 0.0f),
                                TDM_DENSE(2, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.layers = layers;
    mo.layer_count = 2;
    mo.input_features = 4;
    mo.compute_dtype = mo.activation_dtype = TDM_F16;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_UNSUPPORTED,
                "activation_dtype f16: replica 0's device vulkan:0 does not run add_f16");
    CHECK(m == NULL);
    tdm_strategy_destroy(s);
}

void test_case_vulkan_storage16(const test_run *run)
{
    int on = !strcmp(run->argv[0], "on");
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_VULKAN));
    tdm_device *dev = test_first_device(ctx, TDM_BACKEND_VULKAN);
    check_supported(dev, on);
    if (on)
        check_add(dev);
    else {
        check_launch_refused(dev);
        check_model_refused(dev);
    }
    CHECK(tdm_context_validation_messages(ctx) == 0);
    tdm_context_destroy(ctx);
}
