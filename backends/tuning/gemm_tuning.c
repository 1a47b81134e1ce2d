/* Which row of the GEMM tuning table a device takes. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "gemm_tuning.h"

static const tdm_gemm_tuning rows[] = {
#define TDM_GEMM_TUNING(NAME, BACKEND, TYPE, VENDOR_ID, VENDOR, DEVICE, SMALL, LARGE, LARGE_FROM,  \
                        VK_UNITS, VK_K_EACH, SLICE_K, MAX_SLICES, MIN_UNITS, LONG_SLICES)          \
    {#NAME,      BACKEND,  TYPE,      VENDOR_ID, VENDOR,     DEVICE,    SMALL,      LARGE,         \
     LARGE_FROM, VK_UNITS, VK_K_EACH, SLICE_K,   MAX_SLICES, MIN_UNITS, LONG_SLICES},
#include "gemm_tuning.def"
#undef TDM_GEMM_TUNING
};
#define ROWS (sizeof rows / sizeof rows[0])

/* Whether `piece` occurs in `text`, any case. */
static int contains(const char *text, const char *piece)
{
    for (;; text++) {
        size_t i = 0;
        while (piece[i] && tolower((unsigned char)text[i]) == tolower((unsigned char)piece[i]))
            i++;
        if (!piece[i])
            return 1;
        if (!*text)
            return 0;
    }
}

/* How many parts of the row's key the device matches, -1 where one differs. */
static int specificity(const tdm_gemm_tuning *row, const tdm_device_desc *desc)
{
    int named = 0;
    if (row->backend >= 0 && (named++, row->backend != (int)desc->backend))
        return -1;
    if (row->type >= 0 && (named++, row->type != (int)desc->type))
        return -1;
    if (row->vendor_id && (named++, row->vendor_id != desc->vendor_id))
        return -1;
    if (row->vendor && (named++, !contains(desc->vendor, row->vendor)))
        return -1;
    if (row->device && (named++, !contains(desc->name, row->device)))
        return -1;
    return named;
}

const tdm_gemm_tuning *tdm_gemm_tuning_match(const tdm_gemm_tuning *table, size_t count,
                                             const tdm_device_desc *desc)
{
    const tdm_gemm_tuning *best = NULL;
    int best_named = -1;
    for (size_t i = 0; i < count; i++) {
        int named = specificity(&table[i], desc);
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
