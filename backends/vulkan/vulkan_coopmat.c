/* gemm_f16 on a matrix engine through VK_KHR_cooperative_matrix
 * (docs/design/009-cooperative-matrices.md): which fragment shape a device's
 * properties offer, chosen by the properties alone, never by vendor; the subgroup
 * size its pipeline runs with; what its device is created with. The path is used only
 * after its start-up check (vulkan_coopmat_check.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spirv_modules.h"
#include "vulkan_internal.h"

/* shaders/gemm_f16_coopmat.comp: a group of SUBGROUPS subgroups over a TILE x TILE
 * tile, each SUBGROUP_SPAN x SUBGROUP_SPAN of it, staging STEP_K of k at a time, a
 * quad of halves per invocation at a time (so the group divides the quads). */
#define TILE TDM_VK_COOPMAT_TILE
#define SUBGROUPS 4u
#define SUBGROUP_SPAN (TILE / 2u)
#define STEP_K 32u
#define STAGED_QUADS (TILE * STEP_K / 4u)
/* Its shared memory: op(A)'s TILE x STEP_K and op(B)'s STEP_K x TILE halves, each
 * row with 8 of padding, and a float fragment per subgroup. */
#define SHARED_BYTES(m, n)                                                                         \
    ((TILE * (STEP_K + 8u) + STEP_K * (TILE + 8u)) * 2u + SUBGROUPS * (m) * (n)*4u)

static int fits(const VkCooperativeMatrixPropertiesKHR *p)
{
    return p->scope == VK_SCOPE_SUBGROUP_KHR && p->AType == VK_COMPONENT_TYPE_FLOAT16_KHR &&
           p->BType == VK_COMPONENT_TYPE_FLOAT16_KHR && p->CType == VK_COMPONENT_TYPE_FLOAT32_KHR &&
           p->ResultType == VK_COMPONENT_TYPE_FLOAT32_KHR && !p->saturatingAccumulation &&
           p->MSize && p->NSize && p->KSize && SUBGROUP_SPAN % p->MSize == 0 &&
           SUBGROUP_SPAN % p->NSize == 0 && STEP_K % p->KSize == 0;
}

int tdm_vk_coopmat_choose(const VkCooperativeMatrixPropertiesKHR *props, size_t count,
                          tdm_vk_coopmat_shape *out)
{
    int best = -1;
    uint64_t best_size = 0;
    for (size_t i = 0; i < count; i++) {
        const VkCooperativeMatrixPropertiesKHR *p = &props[i];
        if (!fits(p))
            continue;
        uint64_t size = (uint64_t)p->MSize * p->NSize * p->KSize;
        if (p->MSize == 16 && p->NSize == 16 && p->KSize == 16)
            size = 0; /* the shape every engine we know of runs at full rate */
        if (best < 0 || size < best_size) {
            best = (int)i;
            best_size = size;
        }
    }
    if (best >= 0)
        *out = (tdm_vk_coopmat_shape){props[best].MSize, props[best].NSize, props[best].KSize};
    return best;
}

/* What TDM_VK_FAKE_COOPMAT claims: one fitting shape among two that do not. */
static const VkCooperativeMatrixPropertiesKHR fake_properties[] = {
    {.MSize = 16,
     .NSize = 16,
     .KSize = 16,
     .AType = VK_COMPONENT_TYPE_FLOAT16_KHR,
     .BType = VK_COMPONENT_TYPE_FLOAT16_KHR,
     .CType = VK_COMPONENT_TYPE_FLOAT16_KHR,
     .ResultType = VK_COMPONENT_TYPE_FLOAT16_KHR,
     .scope = VK_SCOPE_SUBGROUP_KHR},
    {.MSize = 16,
     .NSize = 16,
     .KSize = 16,
     .AType = VK_COMPONENT_TYPE_FLOAT16_KHR,
     .BType = VK_COMPONENT_TYPE_FLOAT16_KHR,
     .CType = VK_COMPONENT_TYPE_FLOAT32_KHR,
     .ResultType = VK_COMPONENT_TYPE_FLOAT32_KHR,
     .scope = VK_SCOPE_SUBGROUP_KHR},
    {.MSize = 16,
     .NSize = 16,
     .KSize = 16,
     .AType = VK_COMPONENT_TYPE_FLOAT16_KHR,
     .BType = VK_COMPONENT_TYPE_FLOAT16_KHR,
     .CType = VK_COMPONENT_TYPE_FLOAT32_KHR,
     .ResultType = VK_COMPONENT_TYPE_FLOAT32_KHR,
     .scope = VK_SCOPE_WORKGROUP_KHR},
};

/* The device's property list, chosen from; 0 and `why` where it cannot be read. */
static int choose_from_device(const tdm_backend *be, VkPhysicalDevice physical,
                              tdm_vk_coopmat_shape *shape, char *why, size_t size)
{
    PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR get =
        (PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)vkGetInstanceProcAddr(
            be->instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
    uint32_t count = 0;
    if (!get || get(physical, &count, NULL) != VK_SUCCESS) {
        snprintf(why, size, "none: vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR failed");
        return 0;
    }
    VkCooperativeMatrixPropertiesKHR props[64];
    if (count > 64)
        count = 64; /* VK_INCOMPLETE then: the first 64 are still valid */
    for (uint32_t i = 0; i < count; i++)
        props[i] = (VkCooperativeMatrixPropertiesKHR){
            .sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR};
    VkResult r = get(physical, &count, props);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || tdm_vk_coopmat_choose(props, count, shape) < 0) {
        snprintf(why, size,
                 "none: no subgroup f16xf16+f32 shape with M, N and K dividing 32 among the "
                 "%u the device offers",
                 count);
        return 0;
    }
    return 1;
}

/* The features the shader needs: cooperativeMatrix (not the emulated one), Float16
 * arithmetic and the Vulkan memory model (its scopes). */
static const char *missing_feature(VkPhysicalDevice physical, int emulated)
{
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR cooperative = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
    VkPhysicalDeviceShaderFloat16Int8Features float16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
        .pNext = &cooperative};
    VkPhysicalDeviceVulkanMemoryModelFeatures memory_model = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES, .pNext = &float16};
    tdm_vk_query_features(physical, &memory_model);
    return !cooperative.cooperativeMatrix && !emulated ? "cooperativeMatrix"
           : !float16.shaderFloat16                    ? "shaderFloat16"
           : !memory_model.vulkanMemoryModel           ? "vulkanMemoryModel"
                                                       : NULL;
}

/* The subgroup size the pipeline runs with: the device's, required of the pipeline
 * (with full subgroups) where subgroup size control allows it, since a driver may
 * otherwise pick another (RADV: 32 or 64; its matrix engine wants the 64 it reports). */
static void choose_subgroup(VkPhysicalDevice physical, int api12, tdm_vk_coopmat *cm)
{
    VkPhysicalDeviceSubgroupProperties subgroup = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    tdm_vk_query_properties(physical, &subgroup);
    cm->subgroup_size = subgroup.subgroupSize;
    if (!api12 || !tdm_vk_has_extension(physical, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME))
        return;
    VkPhysicalDeviceSubgroupSizeControlProperties control = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
    VkPhysicalDeviceSubgroupSizeControlFeatures features = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
    tdm_vk_query_properties(physical, &control);
    tdm_vk_query_features(physical, &features);
    cm->subgroup_control_extension = features.subgroupSizeControl && features.computeFullSubgroups;
    cm->require_subgroup_size =
        cm->subgroup_control_extension &&
        (control.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
        control.minSubgroupSize <= cm->subgroup_size &&
        cm->subgroup_size <= control.maxSubgroupSize;
}

/* Which fake TDM_VK_FAKE_COOPMAT asks for: 0 none, 1 a claim, 2 the emulated module. */
static int fake_wanted(void)
{
    const char *value = getenv("TDM_VK_FAKE_COOPMAT");
    if (!tdm_vk_env_flag("TDM_VK_FAKE_COOPMAT"))
        return 0;
    return strcmp(value, "emulated") == 0 ? 2 : 1;
}

int tdm_vk_coopmat_probe(const tdm_backend *be, VkPhysicalDevice physical, tdm_vk_coopmat *out,
                         char *why, size_t size)
{
    int fake = fake_wanted();
    memset(out, 0, sizeof *out);
    out->faked = fake != 0;
    out->emulated = fake == 2;
    out->module = out->emulated ? "gemm_f16_coopmat_emulated" : "gemm_f16_coopmat";
    int api12 = tdm_vk_device_api(be, physical) >= VK_API_VERSION_1_2;
    const char *feature = NULL;
    if (tdm_vk_env_flag("TDM_VK_NO_COOPMAT")) {
        snprintf(why, size, "none: switched off by TDM_VK_NO_COOPMAT");
        return 0;
    }
    if (!tdm_spirv_module_find(out->module)) {
        snprintf(why, size, "none: built without a cooperative-matrix compiler");
        return 0;
    }
    if (!out->faked && !tdm_vk_has_extension(physical, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
        snprintf(why, size, "none: no VK_KHR_cooperative_matrix");
        return 0;
    }
    if (!api12) {
        snprintf(why, size, "none: Vulkan 1.2 is needed");
        return 0;
    }
    int runs = !out->faked || out->emulated; /* a claim alone is never enabled or run */
    if (runs && (feature = missing_feature(physical, out->emulated)) != NULL) {
        snprintf(why, size, "none: no %s feature", feature);
        return 0;
    }
    if (out->faked)
        tdm_vk_coopmat_choose(fake_properties, sizeof fake_properties / sizeof *fake_properties,
                              &out->shape);
    else if (!choose_from_device(be, physical, &out->shape, why, size))
        return 0;
    choose_subgroup(physical, api12 && !out->faked, out);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    uint32_t group = SUBGROUPS * out->subgroup_size;
    if (!out->subgroup_size || group > props.limits.maxComputeWorkGroupInvocations ||
        group > props.limits.maxComputeWorkGroupSize[0] || STAGED_QUADS % group) {
        snprintf(why, size,
                 "none: groups of %u subgroups of %u exceed the device's limits or do not "
                 "divide a step's %u quads",
                 SUBGROUPS, out->subgroup_size, STAGED_QUADS);
        return 0;
    }
    if (out->emulated && out->shape.m * out->shape.n % out->subgroup_size) {
        snprintf(why, size, "none: the emulated fragments do not split over subgroups of %u",
                 out->subgroup_size);
        return 0;
    }
    uint32_t shared = SHARED_BYTES(out->shape.m, out->shape.n);
    if (shared > props.limits.maxComputeSharedMemorySize) {
        snprintf(why, size, "none: %u bytes of shared memory needed, the device has %u", shared,
                 props.limits.maxComputeSharedMemorySize);
        return 0;
    }
    return 1;
}

void tdm_vk_coopmat_describe(const tdm_vk_coopmat *cm, char *text, size_t size)
{
    snprintf(text, size, "f16xf16+f32 %ux%ux%u (subgroup %u%s)", cm->shape.m, cm->shape.n,
             cm->shape.k, cm->subgroup_size, cm->emulated ? ", emulated" : "");
}

void tdm_vk_coopmat_enable(const tdm_vk_coopmat *cm, tdm_vk_coopmat_features *f, void **chain,
                           const char **names, uint32_t *count)
{
    if (cm->state == TDM_VK_COOPMAT_NONE || cm->faked != cm->emulated)
        return; /* nothing, or a claim that is never run */
    f->float16 = (VkPhysicalDeviceShaderFloat16Int8Features){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
        .pNext = *chain,
        .shaderFloat16 = VK_TRUE};
    f->memory_model = (VkPhysicalDeviceVulkanMemoryModelFeatures){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
        .pNext = &f->float16,
        .vulkanMemoryModel = VK_TRUE};
    *chain = &f->memory_model;
    if (cm->emulated)
        return;
    names[(*count)++] = VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;
    f->cooperative = (VkPhysicalDeviceCooperativeMatrixFeaturesKHR){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
        .pNext = *chain,
        .cooperativeMatrix = VK_TRUE};
    *chain = &f->cooperative;
    if (!cm->subgroup_control_extension)
        return;
    names[(*count)++] = VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME;
    f->subgroup_control = (VkPhysicalDeviceSubgroupSizeControlFeatures){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES,
        .pNext = *chain,
        .subgroupSizeControl = VK_TRUE,
        .computeFullSubgroups = VK_TRUE};
    *chain = &f->subgroup_control;
}
