/* Which row of the GEMM tuning table a device takes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "gemm_tuning.h"

static const tdm_gemm_tuning rows[] = {
#define TDM_GEMM_TUNING(NAME, BACKEND, TYPE, VENDOR_ID, VENDOR, DEVICE, DRIVER, SMALL, LARGE,      \
                        LARGE_FROM, VK_UNITS, VK_K_EACH, SLICE_K, MAX_SLICES, MIN_UNITS,           \
                        LONG_SLICES)                                                               \
    {#NAME,      {BACKEND, TYPE, VENDOR_ID, VENDOR, DEVICE, DRIVER},                               \
     SMALL,      LARGE,                                                                            \
     LARGE_FROM, VK_UNITS,                                                                         \
     VK_K_EACH,  SLICE_K,                                                                          \
     MAX_SLICES, MIN_UNITS,                                                                        \
     LONG_SLICES},
#include "gemm_tuning.def"
#undef TDM_GEMM_TUNING
};
#define ROWS (sizeof rows / sizeof rows[0])

const tdm_gemm_tuning *tdm_gemm_tuning_match(const tdm_gemm_tuning *table, size_t count,
                                             const tdm_device_desc *desc)
{
    const tdm_gemm_tuning *best = NULL;
    int best_named = -1;
    for (size_t i = 0; i < count; i++) {
        int named = tdm_tuning_key_match(&table[i].key, desc);
        if (named > best_named) {
            best = &table[i];
            best_named = named;
        }
    }
    return best;
}

const tdm_gemm_tuning *tdm_gemm_tuning_choose(const tdm_device_desc *desc, const char **ignored)
{
    const char *name = getenv("TDM_GEMM_TUNING");
    *ignored = NULL;
    if (name && *name) {
        for (size_t i = 0; i < ROWS; i++)
            if (strcmp(rows[i].name, name) == 0)
                return &rows[i];
        *ignored = name;
    }
    return tdm_gemm_tuning_match(rows, ROWS, desc);
}

const tdm_gemm_tuning *tdm_gemm_tuning_named(const char *name)
{
    for (size_t i = 0; i < ROWS; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return &rows[ROWS - 1];
}

const tdm_gemm_tuning *tdm_gemm_tuning_take(const tdm_context *ctx, const tdm_device_desc *desc,
                                            tdm_backend_traits *traits)
{
    const char *ignored;
    const tdm_gemm_tuning *row = tdm_gemm_tuning_choose(desc, &ignored);
    if (ignored)
        tdm_log(ctx, TDM_LOG_WARN,
                "%s: TDM_GEMM_TUNING=%s ignored: no row of that name "
                "(backends/tuning/gemm_tuning.def); the device takes its own, %s",
                desc->id, ignored, row->name);
    traits->gemm_tuning = row->name;
    return row;
}
