/* The GEMM tuning table (gemm_tuning.def): per device, the Vulkan shader's tile
 * shapes and the rules that split k, as CLBlast's database holds its kernels'
 * parameters per device. Both backends take a device's row by its description. */
#ifndef TDM_GEMM_TUNING_H
#define TDM_GEMM_TUNING_H

#include <stddef.h>
#include <stdint.h>

#include "device/backend_api.h"
#include "tuning_key.h"

typedef struct tdm_gemm_tuning {
    const char *name;
    tdm_tuning_key key;
    /* Vulkan's tiles, lists of shapes in TDM_VK_GEMM_TILE's words, and its split */
    const char *small, *large;
    uint32_t large_from, vk_units, vk_k_each;
    /* OpenCL's split */
    uint32_t slice_k, max_slices, min_units, long_slices;
} tdm_gemm_tuning;

/* The row of `rows` whose key names the most parts of the device's description,
 * all matching; of equals the first; NULL where none matches. */
const tdm_gemm_tuning *tdm_gemm_tuning_match(const tdm_gemm_tuning *rows, size_t count,
                                             const tdm_device_desc *desc);

/* The device's row of the table: TDM_GEMM_TUNING's where it names one, else the
 * best match. *ignored is TDM_GEMM_TUNING's text where it names no row, else NULL. */
const tdm_gemm_tuning *tdm_gemm_tuning_choose(const tdm_device_desc *desc, const char **ignored);

/* The device's row, named in traits (which the core writes into the description's
 * gemm_tuning); a TDM_GEMM_TUNING that names no row is logged as ignored. */
const tdm_gemm_tuning *tdm_gemm_tuning_take(const tdm_context *ctx, const tdm_device_desc *desc,
                                            tdm_backend_traits *traits);

/* The row of that name, as tdm_device_desc.gemm_tuning holds it; the default for
 * any other. */
const tdm_gemm_tuning *tdm_gemm_tuning_named(const char *name);

#endif
