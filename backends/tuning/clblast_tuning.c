/* Which of clblast_tuning.def's rows a device takes. */
#include <string.h>

#include "clblast_tuning.h"

#define UNPACK(...) __VA_ARGS__

static const tdm_clblast_parameters rows[] = {
#define TDM_CLBLAST_TUNING(NAME, BACKEND, TYPE, VENDOR_ID, VENDOR, DEVICE, DRIVER, KERNEL, COUNT,  \
                           NAMES, VALUES)                                                          \
    {#NAME,          {BACKEND, TYPE, VENDOR_ID, VENDOR, DEVICE, DRIVER},                           \
     KERNEL,         COUNT,                                                                        \
     {UNPACK NAMES}, {UNPACK VALUES}},
#include "clblast_tuning.def"
#undef TDM_CLBLAST_TUNING
};
#define ROWS (sizeof rows / sizeof rows[0])

const tdm_clblast_parameters *tdm_clblast_tuning(const tdm_device_desc *desc, size_t *count)
{
    const tdm_clblast_parameters *best = NULL;
    int best_named = -1;
    for (size_t i = 0; i < ROWS; i++) {
        int named = tdm_tuning_key_match(&rows[i].key, desc);
        if (named > best_named) {
            best = &rows[i];
            best_named = named;
        }
    }
    *count = 0;
    for (const tdm_clblast_parameters *r = best; r && r < rows + ROWS; r++) {
        if (strcmp(r->name, best->name) != 0)
            break;
        (*count)++;
    }
    return best;
}
