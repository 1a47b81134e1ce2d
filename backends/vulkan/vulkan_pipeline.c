/* The fill_words compute pipeline, created on first use under the device lock.
 * Each step keeps what it made, so a failed attempt can be retried without leaks. */
#include "error.h"
#include "spirv_modules.h"
#include "vulkan_internal.h"

static tdm_status create_set_layout(tdm_vk_device *vd)
{
    if (vd->set_layout != VK_NULL_HANDLE)
        return TDM_OK;
    VkDescriptorSetLayoutBinding binding = {
        .binding = 0,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .descriptorCount = 1,
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
    };
    VkDescriptorSetLayoutCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 1,
        .pBindings = &binding,
    };
    VkResult r = vkCreateDescriptorSetLayout(vd->device, &info, NULL, &vd->set_layout);
    return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkCreateDescriptorSetLayout", r);
}

static tdm_status create_pipeline_layout(tdm_vk_device *vd)
{
    if (vd->pipeline_layout != VK_NULL_HANDLE)
        return TDM_OK;
    if (vd->max_push_constants < sizeof(tdm_vk_fill_constants))
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s '%s': fills need %zu bytes of push constants, "
                                             "the device has %u",
                        vd->dev->desc.id, vd->dev->desc.name, sizeof(tdm_vk_fill_constants),
                        vd->max_push_constants);
    VkPushConstantRange range = {
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        .size = sizeof(tdm_vk_fill_constants),
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

static tdm_status create_pipeline(tdm_vk_device *vd, const tdm_spirv_module *spirv)
{
    VkShaderModuleCreateInfo module_info = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = spirv->size,
        .pCode = spirv->code,
    };
    VkShaderModule module;
    VkResult r = vkCreateShaderModule(vd->device, &module_info, NULL, &module);
    if (r != VK_SUCCESS)
        return tdm_vk_fail(vd, "vkCreateShaderModule (fill_words)", r);
    VkComputePipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main"},
        .layout = vd->pipeline_layout,
    };
    r = vkCreateComputePipelines(vd->device, VK_NULL_HANDLE, 1, &info, NULL,
                                 &vd->fill_pipeline);
    vkDestroyShaderModule(vd->device, module, NULL); /* the pipeline keeps what it needs */
    return r == VK_SUCCESS ? TDM_OK : tdm_vk_fail(vd, "vkCreateComputePipelines (fill_words)", r);
}

tdm_status tdm_vk_fill_pipeline(tdm_vk_device *vd)
{
    if (vd->fill_pipeline != VK_NULL_HANDLE)
        return TDM_OK;
    const tdm_spirv_module *spirv = tdm_spirv_module_find("fill_words");
    if (!spirv)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s '%s': shader fill_words is not in this build",
                        vd->dev->desc.id, vd->dev->desc.name);
    tdm_status s = create_set_layout(vd);
    if (s == TDM_OK)
        s = create_pipeline_layout(vd);
    if (s == TDM_OK)
        s = create_pipeline(vd, spirv);
    return s;
}

void tdm_vk_pipeline_release(tdm_vk_device *vd)
{
    vkDestroyPipeline(vd->device, vd->fill_pipeline, NULL);
    vkDestroyPipelineLayout(vd->device, vd->pipeline_layout, NULL);
    vkDestroyDescriptorSetLayout(vd->device, vd->set_layout, NULL);
}
