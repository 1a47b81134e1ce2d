/* Compute pipelines, created on first use under the device lock: one per kernel of
 * the table and one for fill_words, all with one pipeline layout (up to
 * TDM_KERNEL_MAX_BUFFERS storage buffers at set 0, the kernels' 128 bytes of push
 * constants, of which fill_words uses the first 76), through the device's pipeline
 * cache (vulkan_pipeline_cache.c). Each step keeps what it made,
 * so a failed attempt can be retried without leaks. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "device/backend_api.h"
#include "spirv_modules.h"
#include "vulkan_internal.h"

_Static_assert(sizeof(tdm_vk_kernel_args) == 128, "kernel_args.glsl expects 128 bytes");
_Static_assert(sizeof(tdm_vk_fill_constants) <= sizeof(tdm_vk_kernel_args),
               "the fill constants must fit the shared push range");

static tdm_status create_set_layout(tdm_vk_device *vd)
{
    if (vd->set_layout != VK_NULL_HANDLE)
        return TDM_OK;
    VkDescriptorSetLayoutBinding bindings[TDM_KERNEL_MAX_BUFFERS];
    for (uint32_t b = 0; b < TDM_KERNEL_MAX_BUFFERS; b++)
        bindings[b] = (VkDescriptorSetLayoutBinding){
            .binding = b,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    VkDescriptorSetLayoutCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = TDM_KERNEL_MAX_BUFFERS,
        .pBindings = bindings,
    };
    VkResult r = vkCreateDescriptorSetLayout(vd->device, &info, NULL, &vd->set_layout);
    return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkCreateDescriptorSetLayout", r);
}

static tdm_status create_pipeline_layout(tdm_vk_device *vd)
{
    if (vd->pipeline_layout != VK_NULL_HANDLE)
        return TDM_OK;
    if (vd->max_push_constants < sizeof(tdm_vk_kernel_args))
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s '%s': kernels need %zu bytes of push "
                        "constants, the device has %u",
                        tdm_backend_device_desc(vd->dev)->id,
                        tdm_backend_device_desc(vd->dev)->name, sizeof(tdm_vk_kernel_args),
                        vd->max_push_constants);
    VkPushConstantRange range = {
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        .size = sizeof(tdm_vk_kernel_args),
    };
    VkPipelineLayoutCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &vd->set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &range,
    };
    VkResult r = vkCreatePipelineLayout(vd->device, &info, NULL, &vd->pipeline_layout);
    return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkCreatePipelineLayout", r);
}

/* The module as the device may take it: without the float requests the device
 * cannot keep (vulkan_float_controls.c). */
static VkResult create_module(tdm_vk_device *vd, const tdm_spirv_module *spirv,
                              VkShaderModule *module)
{
    VkShaderModuleCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = spirv->size,
        .pCode = spirv->code,
    };
    if (vd->float_controls == TDM_VK_KEEP_ALL)
        return vkCreateShaderModule(vd->device, &info, NULL, module);
    uint32_t *code = malloc(spirv->size);
    if (!code)
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    size_t words =
        tdm_vk_spirv_keeping(spirv->code, spirv->size / sizeof *code, vd->float_controls, code);
    info.codeSize = words * sizeof *code;
    info.pCode = code;
    VkResult r = words ? vkCreateShaderModule(vd->device, &info, NULL, module)
                       : VK_ERROR_INITIALIZATION_FAILED;
    free(code);
    return r;
}

/* gemm_f16_coopmat's constants: its fragment shape, its subgroups' size and a group of
 * four of them; and that size required of the pipeline where the device can. */
static void specialize_coopmat(const tdm_vk_device *vd, struct tdm_vk_specialization *constants,
                               VkPipelineShaderStageRequiredSubgroupSizeCreateInfo *required,
                               VkPipelineShaderStageCreateInfo *stage)
{
    const tdm_vk_coopmat *cm = &vd->coopmat;
    constants->coopmat_m = cm->shape.m;
    constants->coopmat_n = cm->shape.n;
    constants->coopmat_k = cm->shape.k;
    constants->coopmat_subgroup = cm->subgroup_size;
    constants->group_size = 4 * cm->subgroup_size;
    if (!cm->require_subgroup_size)
        return;
    *required = (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo){
        .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
        .requiredSubgroupSize = cm->subgroup_size};
    stage->pNext = required;
    stage->flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
}

static tdm_status create_pipeline(tdm_vk_device *vd, const tdm_spirv_module *spirv,
                                  uint32_t table_group_size, size_t index, VkPipeline *out)
{
    const tdm_vk_gemm_tile *tile = tdm_vk_gemm_tile_of(vd, index);
    char call[96];
    VkShaderModule module;
    VkResult r = create_module(vd, spirv, &module);
    if (r != VK_SUCCESS) {
        snprintf(call, sizeof call, "vkCreateShaderModule (%s)", spirv->name);
        return tdm_vk_fail(vd, call, r);
    }
    /* The device's constants (vulkan_device.c), the group size the table's unless the
     * device has its own; an entry a shader does not declare is ignored (fill_words
     * declares none). */
    struct tdm_vk_specialization constants = vd->specialization;
    constants.group_size = tdm_vk_group_size(vd, table_group_size);
    constants.gemm_tile_buffers = 1;
    if (tile) {
        constants.gemm_rows4 = tile->rows4;
        constants.gemm_cols4 = tile->cols4;
        constants.gemm_tile_rows4 = tile->tile_rows4;
        constants.gemm_tile_cols4 = tile->tile_cols4;
        constants.gemm_tile_buffers = tile->buffers;
        constants.gemm_split_sums = tile->split_sums;
    }
    VkSpecializationMapEntry entries[] = {
        {0, offsetof(struct tdm_vk_specialization, group_size), sizeof(uint32_t)},
        {1, offsetof(struct tdm_vk_specialization, gemm_rows4), sizeof(uint32_t)},
        {2, offsetof(struct tdm_vk_specialization, gemm_cols4), sizeof(uint32_t)},
        {3, offsetof(struct tdm_vk_specialization, gemm_tile_rows4), sizeof(uint32_t)},
        {4, offsetof(struct tdm_vk_specialization, gemm_tile_cols4), sizeof(uint32_t)},
        {5, offsetof(struct tdm_vk_specialization, gemm_tile_buffers), sizeof(uint32_t)},
        {6, offsetof(struct tdm_vk_specialization, gemm_split_sums), sizeof(uint32_t)},
        {7, offsetof(struct tdm_vk_specialization, coopmat_m), sizeof(uint32_t)},
        {8, offsetof(struct tdm_vk_specialization, coopmat_n), sizeof(uint32_t)},
        {9, offsetof(struct tdm_vk_specialization, coopmat_k), sizeof(uint32_t)},
        {10, offsetof(struct tdm_vk_specialization, coopmat_subgroup), sizeof(uint32_t)},
    };
    VkSpecializationInfo specialization = {
        .mapEntryCount = sizeof entries / sizeof entries[0],
        .pMapEntries = entries,
        .dataSize = sizeof constants,
        .pData = &constants,
    };
    VkComputePipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main",
                  .pSpecializationInfo = &specialization},
        .layout = vd->pipeline_layout,
    };
    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo required;
    if (index == TDM_VK_PIPELINE_COOPMAT)
        specialize_coopmat(vd, &constants, &required, &info.stage);
    r = vkCreateComputePipelines(vd->device, vd->pipeline_cache, 1, &info, NULL, out);
    vkDestroyShaderModule(vd->device, module, NULL); /* the pipeline keeps what it needs */
    if (r != VK_SUCCESS) {
        *out = VK_NULL_HANDLE;
        snprintf(call, sizeof call, "vkCreateComputePipelines (%s)", spirv->name);
        return tdm_vk_fail(vd, call, r);
    }
    vd->pipelines_compiled++;
    return TDM_OK;
}

/* The table's group size of the kernel whose pipeline sits at index. */
static uint32_t table_group_size(size_t index)
{
    if (index == TDM_VK_PIPELINE_FILL_WORDS || index == TDM_VK_PIPELINE_COOPMAT)
        return 0; /* fill_words fixes its own; the coopmat module's is its subgroups' */
    if (index >= TDM_VK_PIPELINE_TILED_GEMM(0)) /* the product kernels', per tile */
        index = tdm_vk_tiled_kernel(index);
    return tdm_kernel_get((tdm_kernel)index)->wg;
}

tdm_status tdm_vk_pipeline(tdm_vk_device *vd, size_t index, const char *name, VkPipeline *out)
{
    if (vd->pipelines[index] == VK_NULL_HANDLE) {
        const tdm_spirv_module *spirv = tdm_spirv_module_find(name);
        if (!spirv)
            return tdm_fail(TDM_ERR_UNSUPPORTED, "%s '%s': shader %s is not in this build",
                            tdm_backend_device_desc(vd->dev)->id,
                            tdm_backend_device_desc(vd->dev)->name, name);
        tdm_status s = create_set_layout(vd);
        if (s == TDM_OK)
            s = create_pipeline_layout(vd);
        if (s == TDM_OK) {
            tdm_vk_pipeline_cache_open(vd);
            s = create_pipeline(vd, spirv, table_group_size(index), index, &vd->pipelines[index]);
        }
        if (s != TDM_OK)
            return s;
    }
    *out = vd->pipelines[index];
    return TDM_OK;
}

void tdm_vk_pipeline_release(tdm_vk_device *vd)
{
    tdm_vk_pipeline_cache_close(vd);
    for (size_t i = 0; i < TDM_VK_PIPELINE_COUNT; i++)
        vkDestroyPipeline(vd->device, vd->pipelines[i], NULL);
    vkDestroyPipelineLayout(vd->device, vd->pipeline_layout, NULL);
    vkDestroyDescriptorSetLayout(vd->device, vd->set_layout, NULL);
}
