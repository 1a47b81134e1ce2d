/* Every shader asks for IEEE 754's NaN, infinities, signed zeros and denormals on
 * 32-bit floats (kernel_args.glsl), as OpenCL gives by default: NVIDIA's Vulkan
 * compiler otherwise drops NaN tests and zero signs and flushes denormal results.
 * A device that cannot promise one of the two requests gets each module with that
 * request taken out: valid SPIR-V for it, its results as its compiler leaves them. */
#include <string.h>

#include "vulkan_internal.h"

enum {
    SPV_OP_EXTENSION = 10,
    SPV_OP_EXECUTION_MODE = 16,
    SPV_OP_CAPABILITY = 17,
    SPV_HEADER_WORDS = 5,
};

/* Each request: its capability and execution mode (the same names in SPIR-V). */
static const struct {
    uint32_t capability, mode;
} requests[] = {
    [0] = {4466, 4461}, /* SignedZeroInfNanPreserve: TDM_VK_KEEP_SPECIALS */
    [1] = {4464, 4459}, /* DenormPreserve: TDM_VK_KEEP_DENORMALS */
};
#define REQUEST_COUNT (sizeof requests / sizeof requests[0])

unsigned tdm_vk_float_controls(const tdm_backend *be, VkPhysicalDevice physical, int *extension)
{
    *extension = 0;
    if (tdm_vk_env_flag("TDM_VK_NO_FLOAT_CONTROLS"))
        return 0;
    int core = tdm_vk_device_api(be, physical) >= VK_API_VERSION_1_2;
    if (!core && !tdm_vk_has_extension(physical, VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME))
        return 0;
    VkPhysicalDeviceFloatControlsProperties controls = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES,
    };
    tdm_vk_query_properties(physical, &controls);
    unsigned kept = (controls.shaderSignedZeroInfNanPreserveFloat32 ? TDM_VK_KEEP_SPECIALS : 0) |
                    (controls.shaderDenormPreserveFloat32 ? TDM_VK_KEEP_DENORMALS : 0);
    *extension = kept && !core;
    return kept;
}

/* Whether the `words` words at `at` hold the literal string s, its terminating zero
 * included: SPIR-V packs a string's bytes into words from the low byte up. */
static int is_literal(const uint32_t *at, uint32_t words, const char *s)
{
    size_t bytes = strlen(s) + 1;
    if (bytes > (size_t)words * 4)
        return 0;
    for (size_t b = 0; b < bytes; b++)
        if (((at[b / 4] >> (8 * (b % 4))) & 0xFFu) != (unsigned char)s[b])
            return 0;
    return 1;
}

/* Whether the instruction at `at` (its word count `words`) belongs to a request not
 * in `kept`. */
static int is_dropped(const uint32_t *at, uint32_t words, unsigned kept)
{
    uint32_t op = at[0] & 0xFFFFu;
    for (unsigned r = 0; r < REQUEST_COUNT; r++) {
        if (kept & (1u << r))
            continue;
        if (op == SPV_OP_CAPABILITY && words >= 2 && at[1] == requests[r].capability)
            return 1;
        if (op == SPV_OP_EXECUTION_MODE && words >= 3 && at[2] == requests[r].mode)
            return 1;
    }
    if (op == SPV_OP_EXTENSION && !kept)
        return is_literal(at + 1, words - 1, "SPV_KHR_float_controls");
    return 0;
}

size_t tdm_vk_spirv_keeping(const uint32_t *code, size_t words, unsigned kept, uint32_t *out)
{
    if (words < SPV_HEADER_WORDS)
        return 0;
    memcpy(out, code, SPV_HEADER_WORDS * sizeof *code);
    size_t written = SPV_HEADER_WORDS;
    for (size_t i = SPV_HEADER_WORDS; i < words;) {
        uint32_t count = code[i] >> 16;
        if (count == 0 || count > words - i)
            return 0; /* not a module glslang wrote */
        if (!is_dropped(code + i, count, kept)) {
            memcpy(out + written, code + i, count * sizeof *code);
            written += count;
        }
        i += count;
    }
    return written;
}
