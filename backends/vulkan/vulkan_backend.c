/* The Vulkan backend's entry in the backend table. can_copy stays NULL: two
 * tdm_devices are two VkDevices, so the core stages copies between them. */
#include "vulkan_internal.h"

const tdm_backend_ops tdm_vulkan_backend = {
    .kind = TDM_BACKEND_VULKAN,
    .create = tdm_vk_create,
    .destroy = tdm_vk_destroy,
    .summary = tdm_vk_summary,
    .device_count = tdm_vk_device_count,
    .describe = tdm_vk_describe,
    .open_device = tdm_vk_open_device,
    .close_device = tdm_vk_close_device,
    .buffer_alloc = tdm_vk_buffer_alloc,
    .buffer_free = tdm_vk_buffer_free,
    .write = tdm_vk_write,
    .read = tdm_vk_read,
    .fill = tdm_vk_fill,
    .can_copy = NULL,
    .copy = tdm_vk_copy,
    .launch = tdm_vk_launch,
    .supports = tdm_vk_supports,
    .finish = tdm_vk_finish,
    .event_record = tdm_vk_event_record,
    .event_wait = tdm_vk_event_wait,
    .event_query = tdm_vk_event_query,
    .event_release = tdm_vk_event_release,
    .queue_wait = tdm_vk_queue_wait,
    .host_address = tdm_vk_host_address,
    .timestamp = tdm_vk_timestamp,
};
