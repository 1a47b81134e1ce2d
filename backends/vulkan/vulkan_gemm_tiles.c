/* gemm's tiles on GPUs (gemm.glsl's tiled_main): which shapes a device gets, how
 * much shared memory each stages through, and which one a product takes.
 *
 * A GPU gets its shapes from its row of the GEMM tuning table
 * (backends/tuning/gemm_tuning.def), with the table's 256 invocations a group: a
 * small tile for products of a few tiles and a large one for those of the row's
 * LARGE_FROM tiles or more, each the first of the row's list that the group can run
 * and the shared memory hold. The default: 64 x 64 tiles of 4 x 4 blocks through one
 * staging buffer, and from 256 tiles 128 x 64 of 8 x 4 blocks through two, the best
 * of the H100's sweep; with 128 invocations (the least a device allows) only the
 * small tile, of 8 x 4 blocks. TDM_VK_GEMM_TILE=RxC/rxc[:B] puts every tiled product
 * on one shape instead (a sweep's candidates, docs/KERNELS.md), "none" on no tile.
 *
 * A product of fewer 16 x 16 tiles than the GPU has compute units (the row's
 * VK_UNITS where it does not say) whose k gives each invocation of a group the row's
 * VK_K_EACH or more takes neither: a weight gradient's few blocks would each sum all
 * of k in one invocation. Its pipeline splits k over a group instead (gemm.glsl's
 * split_main), a group a 4 x 4 block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "gemm_tuning.h"
#include "vulkan_internal.h"

/* gemm.glsl's STEP_K and UNITS_EACH. */
#define STEP_K 16u
#define UNITS_EACH 2u

/* Bytes of shared memory a tile of 4 tile_rows4 x 4 tile_cols4 stages: per buffer,
 * STEP_K quads of op(A)'s rows and of op(B)'s columns, each with one quad of padding. */
static uint32_t shared_bytes(const tdm_vk_gemm_tile *t, uint32_t buffers)
{
    return buffers * STEP_K * (t->tile_rows4 + 1 + t->tile_cols4 + 1) * 16u;
}

/* Why the shape cannot run in groups of `group` invocations, or NULL; its buffers
 * set to as many as the shared memory holds, unless it asks for 1. */
static const char *fit(const tdm_vk_device *vd, uint32_t group, tdm_vk_gemm_tile *t)
{
    if (!t->rows4 || !t->cols4 || t->tile_rows4 % t->rows4 || t->tile_cols4 % t->cols4)
        return "the blocks do not divide the tile";
    if (t->rows4 * t->cols4 > 4)
        return "blocks past 64 elements";
    if (t->tile_rows4 / t->rows4 * (t->tile_cols4 / t->cols4) != group)
        return "the tile's blocks are not the group's invocations";
    if ((t->tile_rows4 + t->tile_cols4) * (STEP_K / 4u) > UNITS_EACH * group)
        return "more than two staging units an invocation";
    if (t->buffers != 1 && shared_bytes(t, 2) <= vd->max_shared_bytes)
        t->buffers = 2;
    else if (shared_bytes(t, 1) <= vd->max_shared_bytes)
        t->buffers = 1;
    else
        return "more shared memory than the device has";
    return NULL;
}

/* A count of 1 to 3 digits at *text, then `sep` (or the end for '\0'), moving past
 * both; 0 for anything else. */
static unsigned parse_count(const char **text, char sep)
{
    unsigned value = 0;
    const char *s = *text;
    for (int digits = 0; digits < 3 && *s >= '0' && *s <= '9'; digits++)
        value = value * 10 + (unsigned)(*s++ - '0');
    if (s == *text || *s != sep)
        return 0;
    *text = sep ? s + 1 : s;
    return value;
}

/* TDM_VK_GEMM_TILE's shape: 1 where it parses, 0 for "none", -1 for nonsense. */
static int parse_tile(const char *text, tdm_vk_gemm_tile *t)
{
    unsigned buffers = 0;
    if (!strcmp(text, "none"))
        return 0;
    const char *colon = strchr(text, ':');
    unsigned tr = parse_count(&text, 'x'), tc = parse_count(&text, '/');
    unsigned br = parse_count(&text, 'x'), bc = parse_count(&text, colon ? ':' : '\0');
    if (colon && (buffers = parse_count(&text, '\0')) != 1 && buffers != 2)
        return -1;
    if (!tr || !tc || !br || !bc || (tr | tc | br | bc) % 4)
        return -1;
    *t = (tdm_vk_gemm_tile){.rows4 = br / 4,
                            .cols4 = bc / 4,
                            .tile_rows4 = tr / 4,
                            .tile_cols4 = tc / 4,
                            .buffers = buffers == 1 ? 1 : 2};
    return 1;
}

/* The environment's shape for every tiled product: 1 if it set one (or none). */
static int chosen_by_environment(const tdm_backend *be, tdm_vk_device *vd, uint32_t group)
{
    const char *text = getenv("TDM_VK_GEMM_TILE");
    tdm_vk_gemm_tile t;
    if (!text || !*text)
        return 0;
    int parsed = parse_tile(text, &t);
    const char *why = parsed < 0 ? "not RxC/rxc[:B] in elements, multiples of 4"
                      : parsed   ? fit(vd, group, &t)
                                 : NULL;
    if (why) {
        tdm_log(be->ctx, TDM_LOG_WARN, "%s: TDM_VK_GEMM_TILE=%s ignored: %s (groups of %u)",
                tdm_backend_device_desc(vd->dev)->id, text, why, group);
        return 0;
    }
    if (parsed)
        vd->gemm_tiles[0] = t;
    return 1;
}

/* The first shape of a row's list (shapes apart by spaces) that the group can run,
 * into *t; 0 where none can. */
static int first_fit(const tdm_vk_device *vd, uint32_t group, const char *list, tdm_vk_gemm_tile *t)
{
    char shape[32];
    for (const char *s = list; *s;) {
        size_t n = strcspn(s, " ");
        if (n < sizeof shape) {
            memcpy(shape, s, n);
            shape[n] = '\0';
            if (parse_tile(shape, t) > 0 && !fit(vd, group, t))
                return 1;
        }
        s += n + strspn(s + n, " ");
    }
    return 0;
}

void tdm_vk_gemm_tiles_choose(const tdm_backend *be, tdm_vk_device *vd, int gpu,
                              tdm_backend_traits *traits)
{
    const tdm_gemm_tuning *row =
        tdm_gemm_tuning_take(be->ctx, tdm_backend_device_desc(vd->dev), traits);
    uint32_t group = tdm_vk_group_size(vd, tdm_kernel_get(TDM_KERNEL_gemm)->wg);
    vd->gemm_tuning = row;
    memset(vd->gemm_tiles, 0, sizeof vd->gemm_tiles);
    if (!gpu)
        return;
    /* split_main halves its sums, one quad an invocation, besides the (unused) staging
     * of one buffer without a tile */
    if ((group & (group - 1)) == 0 && (group + 1 + 2 * STEP_K) * 16u <= vd->max_shared_bytes)
        vd->gemm_tiles[TDM_VK_GEMM_SPLIT] =
            (tdm_vk_gemm_tile){.rows4 = 1, .cols4 = 1, .buffers = 1, .split_sums = group};
    if (chosen_by_environment(be, vd, group))
        return;
    tdm_vk_gemm_tile small, large;
    if (first_fit(vd, group, row->small, &small))
        vd->gemm_tiles[0] = small;
    if (first_fit(vd, group, row->large, &large)) {
        large.min_tiles = row->large_from;
        vd->gemm_tiles[1] = large;
    }
}

/* The kernel's place among the product kernels in the table's order, -1 for others. */
static int tiled_place(tdm_kernel kernel)
{
    int place = 0;
    for (int k = 0; k < (int)kernel; k++)
        place += tdm_kernel_get((tdm_kernel)k)->grid == TDM_GRID_TILES;
    return tdm_kernel_get(kernel)->grid == TDM_GRID_TILES ? place : -1;
}

/* Whether an m x n product over k splits k over a group (see the top). */
static int splits_k(const tdm_vk_device *vd, uint32_t m, uint32_t n, uint32_t k)
{
    uint32_t sums = vd->gemm_tiles[TDM_VK_GEMM_SPLIT].split_sums;
    if (!sums)
        return 0;
    uint32_t units = tdm_backend_device_desc(vd->dev)->compute_units
                         ? tdm_backend_device_desc(vd->dev)->compute_units
                         : vd->gemm_tuning->vk_units;
    uint64_t tiles = (uint64_t)((m + 15) / 16) * ((n + 15) / 16);
    return (uint64_t)k >= (uint64_t)vd->gemm_tuning->vk_k_each * sums && tiles < units;
}

size_t tdm_vk_gemm_pipeline(const tdm_vk_device *vd, tdm_kernel kernel, const uint32_t *u)
{
    if (tdm_kernel_get(kernel)->grid != TDM_GRID_TILES)
        return (size_t)kernel; /* every launch asks: the others at once */
    int place = tiled_place(kernel);
    uint32_t m, n, k;
    tdm_kernel_product(tdm_kernel_get(kernel), u, &m, &n, &k);
    if (place >= 0 && splits_k(vd, m, n, k))
        return TDM_VK_PIPELINE_TILED_GEMM(TDM_VK_GEMM_SPLIT) + (size_t)place;
    /* after the split: the matrix engine's group of one tile would sum a long k alone */
    if (kernel == TDM_KERNEL_gemm_f16 && vd->coopmat.state == TDM_VK_COOPMAT_USED)
        return TDM_VK_PIPELINE_COOPMAT;
    for (size_t i = TDM_VK_GEMM_TILES; place >= 0 && i-- > 0;) {
        const tdm_vk_gemm_tile *t = &vd->gemm_tiles[i];
        uint32_t rows = 4 * t->tile_rows4, cols = 4 * t->tile_cols4;
        if (!rows || m < rows || n < cols ||
            (uint64_t)((m + rows - 1) / rows) * ((n + cols - 1) / cols) < t->min_tiles)
            continue;
        return TDM_VK_PIPELINE_TILED_GEMM(i) + (size_t)place;
    }
    return (size_t)kernel;
}

uint32_t tdm_vk_product_groups(const tdm_vk_device *vd, size_t index, const tdm_launch *l)
{
    const tdm_vk_gemm_tile *t = tdm_vk_gemm_tile_of(vd, index);
    int coopmat = index == TDM_VK_PIPELINE_COOPMAT;
    if (!coopmat && (!t || !t->split_sums))
        return l->groups;
    uint32_t m, n, k;
    tdm_kernel_product(tdm_kernel_get(l->kernel), l->u, &m, &n, &k);
    uint32_t side = coopmat ? TDM_VK_COOPMAT_TILE : 4; /* split_main's block: 4 x 4 */
    uint64_t blocks = (uint64_t)((m + side - 1) / side) * ((n + side - 1) / side);
    return blocks < TDM_KERNEL_MAX_GROUPS ? (uint32_t)blocks : TDM_KERNEL_MAX_GROUPS;
}

const tdm_vk_gemm_tile *tdm_vk_gemm_tile_of(const tdm_vk_device *vd, size_t index)
{
    if (index < TDM_VK_PIPELINE_TILED_GEMM(0) || index >= TDM_VK_PIPELINE_COOPMAT)
        return NULL;
    return &vd->gemm_tiles[(index - TDM_VK_PIPELINE_TILED_GEMM(0)) / TDM_VK_TILED_KERNELS];
}

tdm_kernel tdm_vk_tiled_kernel(size_t index)
{
    int place = (int)((index - TDM_VK_PIPELINE_TILED_GEMM(0)) % TDM_VK_TILED_KERNELS);
    int k = 0;
    while (tiled_place((tdm_kernel)k) != place)
        k++;
    return (tdm_kernel)k;
}

void tdm_vk_gemm_tiles_describe(const tdm_vk_device *vd, char *text, size_t size)
{
    size_t used = 0;
    const char *lead = ", in ";
    text[0] = '\0';
    for (size_t i = 0; i < TDM_VK_GEMM_TILES && used < size; i++) {
        const tdm_vk_gemm_tile *t = &vd->gemm_tiles[i];
        int n = 0;
        if (t->tile_rows4) {
            n = snprintf(text + used, size - used,
                         "%s%ux%u tiles of %ux%u blocks (%u of %u bytes of shared memory, "
                         "%u buffer%s) from %u tiles",
                         lead, 4 * t->tile_rows4, 4 * t->tile_cols4, 4 * t->rows4, 4 * t->cols4,
                         shared_bytes(t, t->buffers), vd->max_shared_bytes, t->buffers,
                         t->buffers == 1 ? "" : "s", t->min_tiles ? t->min_tiles : 1);
            lead = "; ";
        } else if (t->split_sums) {
            uint32_t units = tdm_backend_device_desc(vd->dev)->compute_units;
            n = snprintf(text + used, size - used,
                         ", k split over groups of %u where fewer 16x16 tiles than %u sum "
                         "k = %u or more",
                         t->split_sums, units ? units : vd->gemm_tuning->vk_units,
                         vd->gemm_tuning->vk_k_each * t->split_sums);
        }
        used += n > 0 ? (size_t)n : 0;
    }
}
