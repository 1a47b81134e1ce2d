/* The key of a tuning table's row: which devices it is for, from their description
 * (what `tandem devices` prints). Each part is a wildcard where it is -1, 0 or NULL;
 * the row whose key names the most parts, all matching, wins, of equals the first.
 * Every table in this folder (gemm_tuning.def, clblast_tuning.def) is keyed so. */
#ifndef TDM_TUNING_KEY_H
#define TDM_TUNING_KEY_H

#include <stdint.h>

#include "device/backend_api.h"

typedef struct tdm_tuning_key {
    int backend;        /* TDM_BACKEND_OPENCL or TDM_BACKEND_VULKAN */
    int type;           /* TDM_DEVICE_GPU, ... */
    uint32_t vendor_id; /* the PCI vendor id (0x10DE NVIDIA) */
    const char *vendor; /* a piece of the vendor's name, any case */
    const char *device; /* a piece of the device's name, any case ("H100") */
    const char *driver; /* a piece of the driver's name and version ("Portable Computing
                           Language": PoCL's platform) */
} tdm_tuning_key;

/* How many parts of the key the device matches; -1 where one differs. */
int tdm_tuning_key_match(const tdm_tuning_key *key, const tdm_device_desc *desc);

#endif
