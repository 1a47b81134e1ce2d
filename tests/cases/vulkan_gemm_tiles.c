/* Vulkan's product shapes from the default row of the GEMM tuning table
 * (vulkan_gemm_tiles.c), on a made-up device: the shapes, and the pipeline each
 * product takes, exactly as the rule gave them before the table, in groups of 256
 * and of 128 invocations, with shared memory for two staging buffers and for one. */
#include <stdlib.h>
#include <string.h>

#include "device/device_impl.h" /* a device of a description alone */
#include "harness.h"
#include "platform/tdm_host.h"
#include "vulkan_internal.h"

typedef struct made_up {
    struct tdm_backend be;
    tdm_device dev;
    tdm_vk_device vd;
    tdm_backend_traits traits; /* the row the device took among them */
} made_up;

/* A device of that group size and shared memory, its shapes chosen as on a GPU (or
 * not); the compute units it reports, 0 for none. */
static void choose(made_up *g, uint32_t group, uint32_t shared, uint32_t units, int gpu)
{
    memset(g, 0, sizeof *g);
    g->dev.desc.backend = TDM_BACKEND_VULKAN;
    g->dev.desc.type = gpu ? TDM_DEVICE_GPU : TDM_DEVICE_CPU;
    g->dev.desc.compute_units = units;
    g->vd.dev = &g->dev;
    g->vd.max_group_size = group;
    g->vd.max_shared_bytes = shared;
    tdm_vk_gemm_tiles_choose(&g->be, &g->vd, gpu, &g->traits);
}

static int same(const tdm_vk_gemm_tile *t, tdm_vk_gemm_tile want)
{
    return memcmp(t, &want, sizeof want) == 0;
}

/* The shapes: {rows4, cols4, tile_rows4, tile_cols4, buffers, min_tiles, split_sums},
 * under the row the device takes or TDM_GEMM_TUNING's (NVIDIA's holds the same). */
static void check_shapes(const char *row)
{
    made_up g;
    if (row)
        CHECK(tdm_host_setenv("TDM_GEMM_TUNING", row, 1) == 0);
    else
        CHECK(tdm_host_unsetenv("TDM_GEMM_TUNING") == 0);
    choose(&g, 1024, 49152, 0, 1); /* the table's 256 invocations */
    CHECK(g.traits.gemm_tuning && strcmp(g.traits.gemm_tuning, row ? row : "default") == 0);
    CHECK(same(&g.vd.gemm_tiles[0], (tdm_vk_gemm_tile){1, 1, 16, 16, 1, 0, 0}));
    CHECK(same(&g.vd.gemm_tiles[1], (tdm_vk_gemm_tile){2, 1, 32, 16, 2, 256, 0}));
    CHECK(same(&g.vd.gemm_tiles[TDM_VK_GEMM_SPLIT], (tdm_vk_gemm_tile){1, 1, 0, 0, 1, 0, 256}));
    choose(&g, 256, 16384, 0, 1); /* the large tile through one buffer */
    CHECK(same(&g.vd.gemm_tiles[0], (tdm_vk_gemm_tile){1, 1, 16, 16, 1, 0, 0}));
    CHECK(same(&g.vd.gemm_tiles[1], (tdm_vk_gemm_tile){2, 1, 32, 16, 1, 256, 0}));
    choose(&g, 128, 49152, 0, 1); /* the small tile in 8 x 4 blocks alone */
    CHECK(same(&g.vd.gemm_tiles[0], (tdm_vk_gemm_tile){2, 1, 16, 16, 1, 0, 0}));
    CHECK(same(&g.vd.gemm_tiles[1], (tdm_vk_gemm_tile){0}));
    CHECK(same(&g.vd.gemm_tiles[TDM_VK_GEMM_SPLIT], (tdm_vk_gemm_tile){1, 1, 0, 0, 1, 0, 128}));
    choose(&g, 256, 4096, 0, 1); /* too little shared memory for any */
    for (size_t i = 0; i < TDM_VK_GEMM_TILES; i++)
        CHECK(same(&g.vd.gemm_tiles[i], (tdm_vk_gemm_tile){0}));
    choose(&g, 1024, 49152, 0, 0); /* a CPU: the row, and no shapes */
    CHECK(g.traits.gemm_tuning && strcmp(g.traits.gemm_tuning, row ? row : "default") == 0);
    for (size_t i = 0; i < TDM_VK_GEMM_TILES; i++)
        CHECK(same(&g.vd.gemm_tiles[i], (tdm_vk_gemm_tile){0}));
    CHECK(tdm_host_unsetenv("TDM_GEMM_TUNING") == 0);
}

/* The pipeline an m x n x k gemm takes: the table's, a tile's or the split's. */
static size_t pipeline(const made_up *g, uint32_t m, uint32_t n, uint32_t k)
{
    uint32_t u[TDM_KERNEL_MAX_UINTS] = {0};
    u[TDM_UINT_AT(gemm, m)] = m;
    u[TDM_UINT_AT(gemm, n)] = n;
    u[TDM_UINT_AT(gemm, k)] = k;
    return tdm_vk_gemm_pipeline(&g->vd, TDM_KERNEL_gemm, u);
}

/* The choices: k split where fewer 16 x 16 tiles than the compute units (64 where
 * the device does not say) sum k = 16 x 256 or more; else the large tile from 256 of
 * its tiles, the small one from one, else the table's pipeline. */
static void check_pipelines(void)
{
    size_t place = 0; /* gemm's among the product kernels */
    while (tdm_vk_tiled_kernel(TDM_VK_PIPELINE_TILED_GEMM(0) + place) != TDM_KERNEL_gemm)
        place++;
    const size_t table = TDM_KERNEL_gemm, small = TDM_VK_PIPELINE_TILED_GEMM(0) + place,
                 large = TDM_VK_PIPELINE_TILED_GEMM(1) + place,
                 split = TDM_VK_PIPELINE_TILED_GEMM(TDM_VK_GEMM_SPLIT) + place;
    made_up g;
    choose(&g, 1024, 49152, 0, 1);
    CHECK(pipeline(&g, 9, 32, 50176) == split);
    CHECK(pipeline(&g, 9, 32, 4095) == table);
    CHECK(pipeline(&g, 112, 112, 4096) == split); /* 49 tiles */
    CHECK(pipeline(&g, 120, 120, 4096) == small); /* 64 tiles */
    CHECK(pipeline(&g, 63, 1024, 64) == table);
    CHECK(pipeline(&g, 64, 64, 64) == small);
    CHECK(pipeline(&g, 1920, 1024, 64) == small); /* 240 large tiles */
    CHECK(pipeline(&g, 2047, 1024, 64) == large); /* 256 */
    choose(&g, 1024, 49152, 132, 1);              /* the device says 132 */
    CHECK(pipeline(&g, 120, 120, 4096) == split);
    CHECK(pipeline(&g, 184, 184, 4096) == small); /* 144 tiles */
}

void test_case_vulkan_gemm_tiles(const test_run *run)
{
    (void)run;
    check_shapes(NULL);
    check_shapes("nvidia");
    check_pipelines();
}
