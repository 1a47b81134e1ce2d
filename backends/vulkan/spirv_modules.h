/* Internal: the SPIR-V compiled from the shaders/ directory at build time. The build
 * generates the C file that defines tdm_spirv_module_find. */
#ifndef TDM_VULKAN_SPIRV_MODULES_H
#define TDM_VULKAN_SPIRV_MODULES_H

#include <stddef.h>
#include <stdint.h>

typedef struct tdm_spirv_module {
    const char *name;
    const uint32_t *code;
    size_t size; /* bytes */
} tdm_spirv_module;
/* The embedded module compiled from shaders/NAME.comp (a float16 twin's, NAME_f16:
 * from NAME.comp with TDM_HALF_TWIN), or NULL. */
const tdm_spirv_module *tdm_spirv_module_find(const char *name);
/* The i-th embedded module, or NULL past the last: to hash them all. */
const tdm_spirv_module *tdm_spirv_module_at(size_t i);

#endif
