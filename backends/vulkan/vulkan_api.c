/* Loads the Vulkan loader, libvulkan.so.1, and the entry points the backend calls,
 * once per process. */
#include "error.h"
#include "library.h"
#include "vulkan_api.h"

#define TDM_VULKAN_DEFINE(name) PFN_##name name;
TDM_VULKAN_FUNCTIONS(TDM_VULKAN_DEFINE)
#undef TDM_VULKAN_DEFINE

static tdm_library vulkan = TDM_LIBRARY_INIT("libvulkan.so.1");

static int resolve(tdm_library *lib)
{
    int missing = 0;
#define TDM_VULKAN_RESOLVE(name)                                                                   \
    name = (PFN_##name)tdm_library_symbol(lib, #name);                                             \
    missing |= !name;
    TDM_VULKAN_FUNCTIONS(TDM_VULKAN_RESOLVE)
#undef TDM_VULKAN_RESOLVE
    return !missing;
}

tdm_status tdm_vk_load(const char **note)
{
    int loaded = tdm_library_load(&vulkan, resolve);
    *note = vulkan.note;
    return loaded ? TDM_OK : tdm_fail(TDM_ERR_NOT_FOUND, "vulkan: %s", vulkan.note);
}
