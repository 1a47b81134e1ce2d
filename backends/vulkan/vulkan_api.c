/* Loads the Vulkan loader, libvulkan.so.1, and the entry points the backend calls,
 * once per process. */
#include "device/backend_api.h"
#include "vulkan_api.h"

#define TDM_VULKAN_DEFINE(name) PFN_##name name;
TDM_VULKAN_FUNCTIONS(TDM_VULKAN_DEFINE)
#undef TDM_VULKAN_DEFINE

static tdm_library vulkan = TDM_LIBRARY_INIT("Vulkan");

static int resolve(tdm_library *lib)
{
    int found = 1;
#define TDM_VULKAN_RESOLVE(name) TDM_LIBRARY_FETCH(lib, name, #name, found);
    TDM_VULKAN_FUNCTIONS(TDM_VULKAN_RESOLVE)
#undef TDM_VULKAN_RESOLVE
    return found;
}

tdm_status tdm_vk_load(const char **note)
{
    return tdm_library_require(&vulkan, resolve, "vulkan", note);
}
