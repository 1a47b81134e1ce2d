/* Host writes and reads of buffers the host cannot map. Writes go through the
 * staging buffer, whose copies queue behind the device's work without the caller
 * waiting. A read waits for the device anyway: the aligned middle of its host range
 * is copied straight into an import of the caller's memory where the device can
 * import it, the rest through the staging buffer. An imported write would have to
 * wait for its copy, and so for everything queued before it: on an NVIDIA H200 the
 * wide MLP's 784 KiB input batches made a step 8.4 ms instead of 1.6-2.2. */
#include <stdint.h>

#include "vulkan_internal.h"

/* Below this an import does not pay off: its buffer, its allocation (which pins
 * pages on a GPU) and its wait, which ends the staging path's pipelining, cost
 * about as much as copying 256 KiB through the staging buffer. */
#define TDM_VK_IMPORT_MIN_BYTES ((size_t)256 << 10)

/* [host, host + head) and the bytes after the middle are staged. */
typedef struct host_split {
    size_t head, middle;
} host_split;

static host_split split_range(const tdm_vk_device *vd, const unsigned char *host, size_t size)
{
    host_split none = {size, 0};
    uintptr_t align = (uintptr_t)vd->import_alignment, start = (uintptr_t)host;
    if (!align || size < TDM_VK_IMPORT_MIN_BYTES)
        return none;
    uintptr_t first = (start + align - 1) / align * align, end = (start + size) / align * align;
    if (end <= first || end - first < TDM_VK_IMPORT_MIN_BYTES)
        return none;
    return (host_split){first - start, end - first};
}

static tdm_status staged(tdm_vk_device *vd, VkBuffer buffer, size_t offset, unsigned char *host,
                         size_t size, int to_device)
{
    if (size == 0)
        return TDM_OK;
    atomic_fetch_add(&vd->staged_bytes, size);
    return to_device ? tdm_vk_staged_write(vd, buffer, offset, host, size)
                     : tdm_vk_staged_read(vd, buffer, offset, host, size);
}

/* After a failed wait (a lost device) the copy may still run: the memory must
 * outlive it. */
static void drain(tdm_vk_device *vd)
{
    tdm_mutex_lock(&vd->lock);
    vkQueueWaitIdle(vd->queue); /* its result changes nothing: the error is known */
    tdm_mutex_unlock(&vd->lock);
}

/* A read into an import of the caller's memory; *done = 0: the driver refused the
 * import and nothing was submitted. */
static tdm_status imported_read(tdm_vk_device *vd, VkBuffer buffer, size_t offset,
                                unsigned char *host, size_t size, int *done)
{
    tdm_vk_imported imported;
    *done = tdm_vk_import(vd, host, size, &imported);
    if (!*done)
        return TDM_OK;
    uint64_t value = 0;
    tdm_status s = tdm_vk_copy_region(vd, imported.buffer, 0, buffer, offset, size, 1, &value);
    if (s == TDM_OK)
        s = tdm_vk_wait(vd, value);
    if (s != TDM_OK && value != 0)
        drain(vd);
    tdm_vk_import_release(vd, &imported);
    atomic_fetch_add(&vd->imported_bytes, size);
    return s;
}

static tdm_status host_transfer(tdm_vk_device *vd, VkBuffer buffer, size_t offset,
                                unsigned char *host, size_t size, int to_device)
{
    host_split split = to_device ? (host_split){size, 0} : split_range(vd, host, size);
    int imported = 0;
    tdm_status s = staged(vd, buffer, offset, host, split.head, to_device);
    if (s == TDM_OK && split.middle)
        s = imported_read(vd, buffer, offset + split.head, host + split.head, split.middle,
                          &imported);
    size_t rest = imported ? split.head + split.middle : split.head;
    if (s == TDM_OK)
        s = staged(vd, buffer, offset + rest, host + rest, size - rest, to_device);
    return s;
}

tdm_status tdm_vk_host_write(tdm_vk_device *vd, VkBuffer dst, size_t offset,
                             const unsigned char *src, size_t size)
{
    /* Staged only: src is only ever read. */
    return host_transfer(vd, dst, offset, (unsigned char *)src, size, 1);
}

tdm_status tdm_vk_host_read(tdm_vk_device *vd, VkBuffer src, size_t offset, unsigned char *dst,
                            size_t size)
{
    return host_transfer(vd, src, offset, dst, size, 0);
}
