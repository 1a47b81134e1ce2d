#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "harness.h"

int test_failures;

int test_finish(const char *name)
{
    if (test_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
    else
        printf("%s: all checks passed\n", name);
    return test_failures ? 1 : 0;
}

static void log_to_stderr(tdm_log_level level, const char *message, void *user_data)
{
    (void)user_data;
    fprintf(stderr, "[tandem %d] %s\n", (int)level, message);
}

tdm_context *test_context(uint32_t backends)
{
    tdm_context_options opts = TDM_CONTEXT_OPTIONS_INIT;
    opts.backends = backends;
    opts.log = log_to_stderr;
    opts.log_level = TDM_LOG_INFO;
    tdm_context *ctx;
    if (tdm_context_create(&opts, &ctx) != TDM_OK) {
        fprintf(stderr, "cannot create a context: %s\n", tdm_last_error());
        exit(1);
    }
    return ctx;
}

size_t test_devices_of(tdm_context *ctx, tdm_backend_kind backend, tdm_device **out, size_t max)
{
    size_t found = 0;
    for (size_t i = 0; i < tdm_context_device_count(ctx) && found < max; i++) {
        tdm_device *dev;
        tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
        if (tdm_context_device(ctx, i, &dev) == TDM_OK &&
            tdm_device_describe(dev, &desc) == TDM_OK && desc.backend == backend && desc.parent < 0)
            out[found++] = dev;
    }
    return found;
}

tdm_device *test_first_device(tdm_context *ctx, tdm_backend_kind backend)
{
    tdm_device *dev = NULL;
    if (test_devices_of(ctx, backend, &dev, 1) != 1) {
        fprintf(stderr, "no %s device\n", tdm_backend_name(backend));
        tdm_context_destroy(ctx);
        exit(1);
    }
    return dev;
}

/* Replaces out[0] by `count` logical devices split from it. */
static size_t split_first(tdm_device **out, uint32_t count)
{
    tdm_status s = tdm_device_split(out[0], count, out);
    if (s != TDM_OK) {
        fprintf(stderr, "cannot split %s: %s\n", tdm_status_str(s), tdm_last_error());
        test_failures++;
        return 0;
    }
    return count;
}

size_t test_scenario_devices(tdm_context *ctx, const char *scenario, tdm_device **out)
{
    if (!strcmp(scenario, "reference"))
        return test_devices_of(ctx, TDM_BACKEND_REFERENCE, out, 1) ? split_first(out, 3) : 0;
    if (!strcmp(scenario, "opencl"))
        return test_devices_of(ctx, TDM_BACKEND_OPENCL, out, 2) == 2 ? 2 : 0;
    if (!strcmp(scenario, "vulkan-logical"))
        return test_devices_of(ctx, TDM_BACKEND_VULKAN, out, 1) ? split_first(out, 2) : 0;
    if (!strcmp(scenario, "mixed"))
        return test_devices_of(ctx, TDM_BACKEND_OPENCL, out, 1) &&
                       test_devices_of(ctx, TDM_BACKEND_VULKAN, out + 1, 1)
                   ? 2
                   : 0;
    fprintf(stderr, "unknown scenario '%s'\n", scenario);
    test_failures++;
    return 0;
}

void test_random_bytes(void *dst, size_t size, unsigned seed)
{
    uint64_t x = 0x9E3779B97F4A7C15ull * (seed + 1);
    unsigned char *p = dst;
    for (size_t i = 0; i < size; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (unsigned char)(x >> 24);
    }
}

size_t test_scenario_of(const test_run *run, tdm_context **ctx, tdm_device **devs)
{
    *ctx = run->ctx;
    memcpy(devs, run->devs, run->n_devs * sizeof *devs);
    return run->n_devs;
}

uint32_t test_scenario_backends(const char *scenario)
{
    if (!strcmp(scenario, "reference"))
        return TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE);
    if (!strcmp(scenario, "opencl"))
        return TDM_BACKEND_BIT(TDM_BACKEND_OPENCL);
    if (!strcmp(scenario, "vulkan-logical"))
        return TDM_BACKEND_BIT(TDM_BACKEND_VULKAN);
    return TDM_BACKENDS_ALL;
}

int test_gpu_shape(void)
{
    const char *env = getenv("TDM_TEST_GPU_SHAPE");
    return env && !strcmp(env, "1");
}

double test_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

size_t test_mpi_rank(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    return r ? (size_t)atoi(r) : 0;
}

size_t test_mpi_start(tdm_context *ctx, const char *scenario, size_t rank, double timeout_s,
                      tdm_device **devs, tdm_strategy_options *opts)
{
    size_t have = test_scenario_devices(ctx, scenario, devs);
    if (!have)
        printf("rank %zu: SKIP: no %s devices\n", rank, scenario);
    tdm_strategy_options o = TDM_STRATEGY_OPTIONS_INIT;
    o.collective_timeout = timeout_s;
    *opts = o;
    return have;
}

int test_same_bits(const tdm_tensor *a, const tdm_tensor *b)
{
    size_t bytes = tdm_tensor_bytes(a);
    char *ga = malloc(bytes ? bytes : 1), *gb = malloc(bytes ? bytes : 1);
    CHECK(ga && gb && tdm_tensor_bytes(b) == bytes);
    int same = ga && gb && tdm_tensor_bytes(b) == bytes;
    if (same) {
        CHECK_OK(tdm_tensor_read(a, ga, bytes));
        CHECK_OK(tdm_tensor_read(b, gb, bytes));
        same = memcmp(ga, gb, bytes) == 0;
    }
    free(ga), free(gb);
    return same;
}

tdm_tensor *test_tensor_as(tdm_device *dev, tdm_dtype dtype, const tdm_shape *shape, const float *x)
{
    tdm_tensor *f32 = NULL, *t = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, shape, &f32));
    if (f32)
        CHECK_OK(tdm_tensor_write(f32, x, tdm_tensor_bytes(f32)));
    if (!f32 || dtype == TDM_F32)
        return f32;
    CHECK_OK(tdm_tensor_create(dev, dtype, shape, &t));
    if (t)
        CHECK_OK(tdm_op_cast(t, f32));
    tdm_tensor_destroy(f32);
    return t;
}

tdm_tensor *test_tensor_of(tdm_device *dev, const float *x, size_t count)
{
    return test_tensor_as(dev, TDM_F32, &TDM_SHAPE(count), x);
}
