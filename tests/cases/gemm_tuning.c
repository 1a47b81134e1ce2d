/* The GEMM tuning table (backends/tuning/gemm_tuning.def): the row a device takes,
 * the most specific match, TDM_GEMM_TUNING's override, what `tandem devices` reports
 * on this machine's drivers, and OpenCL's split of k under the default row exactly as
 * the rule gave it before the table (its constants copied here). Vulkan's tiles:
 * the case vulkan_gemm_tiles. */
#include <stdlib.h>
#include <string.h>

#include "clblast_tuning.h"
#include "gemm_tuning.h"
#include "harness.h"
#include "platform/tdm_host.h"
#include "opencl_internal.h"

static tdm_device_desc desc_of(tdm_backend_kind backend, tdm_device_type type, uint32_t vendor_id,
                               const char *vendor, const char *name)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    d.backend = backend;
    d.type = type;
    d.vendor_id = vendor_id;
    snprintf(d.vendor, sizeof d.vendor, "%s", vendor);
    snprintf(d.name, sizeof d.name, "%s", name);
    return d;
}

static const char *chosen(const tdm_device_desc *d)
{
    const char *ignored;
    return tdm_gemm_tuning_choose(d, &ignored)->name;
}

/* The shipped table: NVIDIA's GPUs take its row on either backend; every other
 * device the default, named last. */
static void check_shipped(void)
{
    const tdm_device_desc h100 =
        desc_of(TDM_BACKEND_VULKAN, TDM_DEVICE_GPU, 0x10DE, "NVIDIA", "NVIDIA H100 80GB HBM3");
    const tdm_device_desc h200 =
        desc_of(TDM_BACKEND_OPENCL, TDM_DEVICE_GPU, 0x10DE, "NVIDIA Corporation", "NVIDIA H200");
    const tdm_device_desc amd =
        desc_of(TDM_BACKEND_VULKAN, TDM_DEVICE_GPU, 0x1002, "AMD", "AMD Radeon RX 7900 XTX");
    const tdm_device_desc intel = desc_of(TDM_BACKEND_OPENCL, TDM_DEVICE_INTEGRATED_GPU, 0x8086,
                                          "Intel(R) Corporation", "Intel(R) Iris(R) Xe Graphics");
    const tdm_device_desc pocl =
        desc_of(TDM_BACKEND_OPENCL, TDM_DEVICE_CPU, 0, "AuthenticAMD", "cpu-znver4");
    const tdm_device_desc lavapipe =
        desc_of(TDM_BACKEND_VULKAN, TDM_DEVICE_CPU, 0x10005, "Mesa", "llvmpipe (LLVM 15.0.6)");
    CHECK(tdm_host_unsetenv("TDM_GEMM_TUNING") == 0);
    CHECK(strcmp(chosen(&h100), "nvidia") == 0);
    CHECK(strcmp(chosen(&h200), "nvidia") == 0);
    CHECK(strcmp(chosen(&amd), "default") == 0);
    CHECK(strcmp(chosen(&intel), "default") == 0);
    CHECK(strcmp(chosen(&pocl), "default") == 0);
    CHECK(strcmp(chosen(&lavapipe), "default") == 0);
    CHECK(strcmp(tdm_gemm_tuning_named("no such row")->name, "default") == 0);

    /* TDM_GEMM_TUNING: a row's name gives every device that row; another is ignored */
    const char *ignored;
    CHECK(tdm_host_setenv("TDM_GEMM_TUNING", "nvidia", 1) == 0);
    CHECK(strcmp(tdm_gemm_tuning_choose(&pocl, &ignored)->name, "nvidia") == 0 && !ignored);
    CHECK(tdm_host_setenv("TDM_GEMM_TUNING", "Nvidia", 1) == 0);
    CHECK(strcmp(tdm_gemm_tuning_choose(&pocl, &ignored)->name, "default") == 0);
    CHECK(ignored && strcmp(ignored, "Nvidia") == 0);
    CHECK(strcmp(tdm_gemm_tuning_choose(&h100, &ignored)->name, "nvidia") == 0);
    CHECK(tdm_host_unsetenv("TDM_GEMM_TUNING") == 0);
}

/* The most specific match on a table of the test's own: each part of the key that a
 * row names must match, and of the rows that match the one naming the most wins. */
static void check_specificity(void)
{
#define ROW(NAME, BACKEND, TYPE, VENDOR_ID, VENDOR, DEVICE)                                        \
    {                                                                                              \
        NAME, {BACKEND, TYPE, VENDOR_ID, VENDOR, DEVICE, NULL}, "", "", 0, 0, 0, 0, 0, 0, 0        \
    }
    static const tdm_gemm_tuning rows[] = {
        ROW("amd", -1, TDM_DEVICE_GPU, 0x1002, NULL, NULL),
        ROW("amd-opencl", TDM_BACKEND_OPENCL, TDM_DEVICE_GPU, 0x1002, NULL, NULL),
        ROW("intel-by-name", -1, -1, 0, "intel", NULL),
        ROW("nvidia", -1, TDM_DEVICE_GPU, 0x10DE, NULL, NULL),
        ROW("h100", -1, TDM_DEVICE_GPU, 0x10DE, NULL, "h100"),
        ROW("gpu", -1, TDM_DEVICE_GPU, 0, NULL, NULL),
        ROW("gpu-too", -1, TDM_DEVICE_GPU, 0, NULL, NULL),
        ROW("default", -1, -1, 0, NULL, NULL),
    };
#undef ROW
    const size_t n = sizeof rows / sizeof rows[0];
    const struct {
        tdm_device_desc desc;
        const char *row;
    } cases[] = {
        {desc_of(TDM_BACKEND_VULKAN, TDM_DEVICE_GPU, 0x10DE, "NVIDIA", "NVIDIA H100 PCIe"), "h100"},
        {desc_of(TDM_BACKEND_VULKAN, TDM_DEVICE_GPU, 0x10DE, "NVIDIA", "NVIDIA L4"), "nvidia"},
        {desc_of(TDM_BACKEND_VULKAN, TDM_DEVICE_GPU, 0x1002, "AMD", "Radeon"), "amd"},
        {desc_of(TDM_BACKEND_OPENCL, TDM_DEVICE_GPU, 0x1002, "AMD", "gfx1100"), "amd-opencl"},
        {desc_of(TDM_BACKEND_OPENCL, TDM_DEVICE_INTEGRATED_GPU, 0x8086, "Intel(R) Corporation",
                 "Iris"),
         "intel-by-name"},
        {desc_of(TDM_BACKEND_VULKAN, TDM_DEVICE_GPU, 0x8086, "INTEL", "Arc A770"), "intel-by-name"},
        {desc_of(TDM_BACKEND_VULKAN, TDM_DEVICE_GPU, 0x13B5, "ARM", "Mali"), "gpu"},
        {desc_of(TDM_BACKEND_OPENCL, TDM_DEVICE_CPU, 0, "AuthenticAMD", "cpu"), "default"},
        {desc_of(TDM_BACKEND_VULKAN, TDM_DEVICE_CPU, 0x10005, "Mesa", "llvmpipe"), "default"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tdm_gemm_tuning *row = tdm_gemm_tuning_match(rows, n, &cases[i].desc);
        CHECK(row && strcmp(row->name, cases[i].row) == 0);
        if (!row || strcmp(row->name, cases[i].row) != 0)
            fprintf(stderr, "  %s: took %s, want %s\n", cases[i].desc.name,
                    row ? row->name : "none", cases[i].row);
    }
    /* a key that names nothing of a device matches none */
    const tdm_device_desc cpu = desc_of(TDM_BACKEND_OPENCL, TDM_DEVICE_CPU, 0, "x", "y");
    CHECK(tdm_gemm_tuning_match(rows, n - 1, &cpu) == NULL);
}

/* Every OpenCL and Vulkan device of this machine's drivers (PoCL, lavapipe) names the
 * default row; the reference, which has no table, none. PoCL's CPU devices take
 * CLBlast's parameters of clblast_tuning.def, which no other device does. */
static void check_devices(void)
{
    tdm_context_options opts = TDM_CONTEXT_OPTIONS_INIT;
    opts.backends = TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE) | TDM_BACKEND_BIT(TDM_BACKEND_OPENCL) |
                    TDM_BACKEND_BIT(TDM_BACKEND_VULKAN);
    tdm_context *ctx = NULL;
    CHECK_OK(tdm_context_create(&opts, &ctx));
    size_t tuned = 0;
    for (size_t i = 0; ctx && i < tdm_context_device_count(ctx); i++) {
        tdm_device *dev = NULL;
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        CHECK_OK(tdm_context_device(ctx, i, &dev));
        CHECK_OK(tdm_device_describe(dev, &d));
        const char *want = d.backend == TDM_BACKEND_REFERENCE ? "" : "default";
        CHECK(strcmp(d.gemm_tuning, want) == 0);
        tuned += d.backend != TDM_BACKEND_REFERENCE;
        /* CLBlast's parameters: PoCL's five kernels, no other device's */
        size_t count = 0;
        const tdm_clblast_parameters *p = tdm_clblast_tuning(&d, &count);
        int pocl = d.backend == TDM_BACKEND_OPENCL && strstr(d.driver, "Portable Computing");
        CHECK(pocl ? p && count == 5 && strcmp(p->kernel, "Xgemm") == 0 && p->values[6] == 64
                   : !p && count == 0);
    }
    CHECK(tuned >= 2); /* PoCL's and lavapipe's */
    tdm_context_destroy(ctx);
}

/* opencl_gemm_split.c's rule before the table: k of 8 slices of 512 or more, fewer 16
 * x 16 tiles than the compute units (16 at the least), at most 128 slices and 16 MiB
 * of partials. */
static uint32_t slices_before(uint32_t units, uint32_t m, uint32_t n, uint32_t k, uint32_t ldc)
{
    const uint64_t mn = (uint64_t)m * n, tiles = (uint64_t)((m + 15) / 16) * ((n + 15) / 16);
    units = units > 16 ? units : 16;
    if (k < 8 * 512 || tiles >= units || ldc != n)
        return 0;
    uint64_t slices = k / 512 < 128 ? k / 512 : 128;
    if (slices * (mn + 1) > (4u << 20))
        slices = (4u << 20) / (mn + 1);
    return slices >= 2 ? (uint32_t)slices : 0;
}

/* Products of every side, k and compute-unit count of the grid on one row: how many
 * slice counts differ from the rule before the table; *split counts those that split. */
static size_t slices_differing(const char *row, size_t *split)
{
    static const uint32_t sides[] = {1, 9, 16, 17, 32, 63, 64, 100, 128, 255, 1024, 3000};
    static const uint32_t ks[] = {1, 4095, 4096, 4607, 5000, 50176, 65536, 1u << 20, 1u << 28};
    static const uint32_t units[] = {0, 8, 16, 17, 64, 132};
    const size_t count = sizeof sides / sizeof sides[0];
    tdm_device_desc desc; /* a device of a description alone */
    const tdm_opencl_device dev = {.desc = &desc};
    size_t differ = 0;
    memset(&desc, 0, sizeof desc);
    snprintf(desc.gemm_tuning, sizeof desc.gemm_tuning, "%s", row);
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
        for (size_t mn = 0; mn < count * count; mn++)
            for (size_t l = 0; l < 2 * sizeof ks / sizeof ks[0]; l++) {
                tdm_opencl_product p = {.m = sides[mn / count], .n = sides[mn % count]};
                p.k = ks[l / 2];
                p.ldc = p.n + (uint32_t)(l % 2); /* C's rows next to each other, or not */
                desc.compute_units = units[u];
                uint32_t got = tdm_opencl_gemm_slices(&dev, &p);
                differ += got != slices_before(units[u], p.m, p.n, p.k, p.ldc);
                *split += got != 0;
            }
    return differ;
}

static void check_opencl_split(void)
{
    size_t split = 0;
    CHECK(slices_differing("default", &split) == 0);
    CHECK(slices_differing("nvidia", &split) == 0);
    CHECK(split > 0); /* some of the grid's products split */
}

void test_case_gemm_tuning(const test_run *run)
{
    (void)run;
    check_shipped();
    check_specificity();
    check_devices();
    check_opencl_split();
}
