/* Fills: vkCmdFillBuffer for one-word patterns, the fill_words shader otherwise.
 *
 * A storage buffer binding reaches at most maxStorageBufferRange bytes (128 MiB
 * on lavapipe), so the shader fills in windows: each binds a range that starts on
 * a minStorageBufferOffsetAlignment boundary, and gets the pattern rotated so
 * that its first word continues the phase of the whole fill. */
#include "device/backend_api.h"
#include "vulkan_internal.h"

_Static_assert(sizeof(tdm_vk_fill_constants) == 76, "fill_words.comp expects 76 bytes");

typedef struct fill_args {
    VkBuffer buffer;
    size_t buffer_size;
    size_t start, next, end; /* bytes: where the pattern starts, the next to fill, end */
    const uint32_t *pattern;
    size_t words;
} fill_args;

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static tdm_status record_fill_buffer(tdm_vk_device *vd, tdm_vk_slot *slot, void *arg)
{
    (void)vd;
    fill_args *a = arg;
    vkCmdFillBuffer(slot->cmd, a->buffer, a->start, a->end - a->start, a->pattern[0]);
    return TDM_OK;
}

/* The window from a->next, and the words of the fill it reaches. */
static size_t next_window(const tdm_vk_device *vd, const fill_args *a,
                          VkDescriptorBufferInfo *window)
{
    window->buffer = a->buffer;
    tdm_vk_window(vd, a->buffer_size, a->next, a->end - a->next, window);
    return min_size((window->range - (a->next - window->offset)) / 4, (a->end - a->next) / 4);
}

/* Records the window from a->next and advances a->next past it. */
static tdm_status record_window(tdm_vk_device *vd, tdm_vk_slot *slot, void *arg)
{
    fill_args *a = arg;
    VkDescriptorBufferInfo window;
    size_t count = next_window(vd, a, &window);
    size_t phase = (a->next - a->start) / 4 % a->words;
    tdm_vk_fill_constants c = {
        .first_word = (uint32_t)((a->next - window.offset) / 4),
        .word_count = (uint32_t)count,
        .pattern_words = (uint32_t)a->words,
    };
    for (size_t i = 0; i < a->words; i++)
        c.pattern[i] = a->pattern[(i + phase) % a->words];
    tdm_status s =
        tdm_vk_bind(vd, slot, TDM_VK_PIPELINE_FILL_WORDS, "fill_words", &window, 1, &c, sizeof c);
    if (s != TDM_OK)
        return s;
    /* The shader loops, so the group count only needs to cover the device. */
    vkCmdDispatch(slot->cmd, (uint32_t)min_size((count + 63) / 64, vd->max_groups), 1, 1);
    a->next += count * 4;
    return TDM_OK;
}

tdm_status tdm_vk_fill(tdm_buffer *buf, void *state, size_t offset, const uint32_t *pattern,
                       size_t words, size_t size)
{
    const tdm_vk_buffer *vb = state;
    tdm_vk_device *vd = vb->owner;
    fill_args a = {vb->buffer, tdm_backend_buffer_size(buf), offset, offset, offset + size, pattern,
                   words};
    tdm_vk_command cmd = {.record = record_fill_buffer, .arg = &a, .access_count = 1};
    if (size == 0)
        return TDM_OK;
    if (words == 1) {
        cmd.access[0] = (tdm_vk_access){vb->buffer, offset, offset + size, 1};
        return tdm_vk_record(vd, &cmd, NULL);
    }
    cmd.record = record_window;
    tdm_status s = TDM_OK;
    while (s == TDM_OK && a.next < a.end) {
        VkDescriptorBufferInfo window;
        next_window(vd, &a, &window);
        cmd.access[0] = tdm_vk_window_access(&window, 1);
        s = tdm_vk_record(vd, &cmd, NULL);
    }
    return s;
}
