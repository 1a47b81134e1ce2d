/* Every shader asks for SignedZeroInfNanPreserve on 32-bit floats (kernel_args.glsl),
 * so that a driver compiling as fast math keeps NaN, infinities and signed zeros. A
 * device that cannot promise it gets each module with the request taken out: valid
 * SPIR-V for it, its results as its compiler leaves them. */
#include <string.h>

#include "vulkan_internal.h"

enum {
    SPV_OP_EXTENSION = 10,
    SPV_OP_EXECUTION_MODE = 16,
    SPV_OP_CAPABILITY = 17,
    SPV_CAPABILITY_PRESERVE = 4466,
    SPV_MODE_PRESERVE = 4461,
    SPV_HEADER_WORDS = 5,
};

int tdm_vk_float_controls(const tdm_backend *be, VkPhysicalDevice physical)
{
    if (tdm_vk_env_flag("TDM_VK_NO_FLOAT_CONTROLS"))
        return 0;
    int core = tdm_vk_device_api(be, physical) >= VK_API_VERSION_1_2;
    if (!core && !tdm_vk_has_extension(physical, VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME))
        return 0;
    VkPhysicalDeviceFloatControlsProperties controls = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES,
    };
    VkPhysicalDeviceProperties2 props = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &controls,
    };
    vkGetPhysicalDeviceProperties2(physical, &props);
    if (!controls.shaderSignedZeroInfNanPreserveFloat32)
        return 0;
    return core ? 1 : 2;
}

/* Whether the instruction at `at` (its word count `words`) is part of the request. */
static int is_preserve_request(const uint32_t *at, uint32_t words)
{
    uint32_t op = at[0] & 0xFFFFu;
    if (op == SPV_OP_CAPABILITY)
        return words >= 2 && at[1] == SPV_CAPABILITY_PRESERVE;
    if (op == SPV_OP_EXECUTION_MODE)
        return words >= 3 && at[2] == SPV_MODE_PRESERVE;
    if (op == SPV_OP_EXTENSION) {
        static const char name[] = "SPV_KHR_float_controls";
        size_t bytes = (words - 1) * sizeof(uint32_t);
        return bytes > sizeof name - 1 && memcmp(at + 1, name, sizeof name) == 0;
    }
    return 0;
}

size_t tdm_vk_spirv_without_preserve(const uint32_t *code, size_t words, uint32_t *out)
{
    if (words < SPV_HEADER_WORDS)
        return 0;
    memcpy(out, code, SPV_HEADER_WORDS * sizeof *code);
    size_t kept = SPV_HEADER_WORDS;
    for (size_t i = SPV_HEADER_WORDS; i < words;) {
        uint32_t count = code[i] >> 16;
        if (count == 0 || count > words - i)
            return 0; /* not a module glslang wrote */
        if (!is_preserve_request(code + i, count)) {
            memcpy(out + kept, code + i, count * sizeof *code);
            kept += count;
        }
        i += count;
    }
    return kept;
}
