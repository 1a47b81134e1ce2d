/* tdm_context_default_devices, the devices a strategy uses when none are named:
 * each piece of hardware once, GPUs else one CPU driver's devices, else the
 * reference. Runs with PoCL x2 and lavapipe (argument "cpus"), or with two copies of
 * lavapipe's ICD, which are one piece of hardware seen twice ("two-icds"). */
#include "device/device_impl.h"
#include "harness.h"

static tdm_device_desc describe(tdm_device *dev)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(dev, &d));
    return d;
}

static size_t default_devices(tdm_context *ctx, tdm_device **out)
{
    size_t n = 0;
    CHECK_OK(tdm_context_default_devices(ctx, out, 8, &n));
    return n;
}

/* PoCL and lavapipe run on the same cores: the default takes PoCL's devices alone,
 * and the default mirrored strategy the same. */
static void check_one_cpu_driver(void)
{
    tdm_context *ctx = test_context(TDM_BACKENDS_ALL);
    tdm_device *opencl[8], *vulkan[8], *chosen[8];
    size_t n_opencl = test_devices_of(ctx, TDM_BACKEND_OPENCL, opencl, 8);
    CHECK(n_opencl == 2 && test_devices_of(ctx, TDM_BACKEND_VULKAN, vulkan, 8) == 1);
    size_t n = default_devices(ctx, chosen);
    CHECK(n == n_opencl);
    for (size_t i = 0; i < n && i < n_opencl; i++)
        CHECK(chosen[i] == opencl[i]);
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, NULL, 0, NULL, &s));
    CHECK(tdm_strategy_num_replicas(s) == n);
    tdm_strategy_destroy(s);

    /* Fewer slots than devices: the count is still the whole choice. */
    tdm_device *first = NULL;
    CHECK_OK(tdm_context_default_devices(ctx, &first, 1, &n));
    CHECK(n == n_opencl && first == opencl[0]);
    CHECK_OK(tdm_context_default_devices(ctx, NULL, 0, &n));
    CHECK(n == n_opencl);
    CHECK_FAILS(tdm_context_default_devices(ctx, NULL, 2, &n), TDM_ERR_INVALID_ARGUMENT, "NULL");
    CHECK_FAILS(tdm_context_default_devices(NULL, chosen, 2, &n), TDM_ERR_INVALID_ARGUMENT,
                "'ctx'");
    tdm_context_destroy(ctx);

    /* Without OpenCL, lavapipe is the CPU driver. */
    ctx =
        test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE) | TDM_BACKEND_BIT(TDM_BACKEND_VULKAN));
    CHECK(default_devices(ctx, chosen) == 1 && describe(chosen[0]).backend == TDM_BACKEND_VULKAN);
    tdm_context_destroy(ctx);
}

/* Two copies of one ICD: two physical devices, one piece of hardware, used once;
 * the mirrored default takes it without the "same hardware" error. */
static void check_same_hardware_once(void)
{
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_VULKAN));
    tdm_device *vulkan[8], *chosen[8];
    CHECK(test_devices_of(ctx, TDM_BACKEND_VULKAN, vulkan, 8) == 2);
    CHECK(describe(vulkan[1]).same_hardware_as == (int)tdm_device_index(vulkan[0]));
    CHECK(default_devices(ctx, chosen) == 1 && chosen[0] == vulkan[0]);
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, NULL, 0, NULL, &s));
    CHECK(s && tdm_strategy_num_replicas(s) == 1);
    tdm_strategy_destroy(s);

    /* A card seen through OpenCL and Vulkan: made so by relabelling the second copy,
     * which then ranks first as the OpenCL view of the card. */
    vulkan[1]->desc.backend = TDM_BACKEND_OPENCL;
    CHECK(default_devices(ctx, chosen) == 1 && chosen[0] == vulkan[1]);
    vulkan[1]->desc.backend = TDM_BACKEND_VULKAN;
    tdm_context_destroy(ctx);
}

/* Nothing but the reference backend: the reference device. */
static void check_reference_alone(void)
{
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *chosen[8];
    CHECK(default_devices(ctx, chosen) == 1 &&
          describe(chosen[0]).backend == TDM_BACKEND_REFERENCE);
    tdm_context_destroy(ctx);
}

void test_case_device_choice(const test_run *run)
{
    if (!strcmp(run->argv[0], "cpus")) {
        check_one_cpu_driver();
        check_reference_alone();
    } else { /* two-icds */
        check_same_hardware_once();
    }
}
