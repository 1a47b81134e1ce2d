/* Host transfers for memory the host cannot map, through a host-visible staging
 * buffer used as a ring. A write copies its bytes into a free region and records the
 * device's copy into the open batch: the step's kernels follow it in one submission,
 * and the host goes on at once. A region is free again once the submission that holds
 * its copy has completed; the host waits only when the ring is full, for the oldest.
 * A read takes regions too, a chunk at a time, so that the device copies chunk k + 1
 * while the host drains chunk k. */
#include <string.h>

#include "device/backend_api.h"
#include "vulkan_internal.h"

#define TDM_VK_STAGING_BYTES ((size_t)8 << 20)
/* A transfer's chunk: a quarter, so that a large transfer leaves room for others. */
#define TDM_VK_STAGING_CHUNK (TDM_VK_STAGING_BYTES / 4)
/* Regions start on this, which keeps the host's copies into them aligned. */
#define TDM_VK_STAGING_ALIGN ((size_t)64)

/* Created on first use: devices whose memory is mapped never need it. */
static tdm_status ensure_staging(tdm_vk_device *vd)
{
    if (vd->staging != VK_NULL_HANDLE)
        return TDM_OK;
    VkBufferCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = TDM_VK_STAGING_BYTES,
        .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkResult r = vkCreateBuffer(vd->device, &info, NULL, &vd->staging);
    if (r != VK_SUCCESS)
        return tdm_vk_fail(vd, "vkCreateBuffer (staging)", r);
    /* Cached memory makes the host's reads fast; coherent needs no flushes. */
    const VkMemoryPropertyFlags choices[] = {
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
            VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
    };
    VkMemoryPropertyFlags flags = 0;
    tdm_status s = tdm_vk_allocate(vd, vd->staging, choices, 2, &vd->staging_memory, &flags);
    void *mapped = NULL;
    if (s == TDM_OK) {
        r = vkMapMemory(vd->device, vd->staging_memory, 0, VK_WHOLE_SIZE, 0, &mapped);
        if (r != VK_SUCCESS)
            s = tdm_vk_fail(vd, "vkMapMemory (staging)", r);
    }
    if (s != TDM_OK) {
        tdm_vk_staging_release(vd);
        return s;
    }
    vd->staging_map = mapped;
    return TDM_OK;
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static tdm_vk_staging_region *oldest(tdm_vk_device *vd)
{
    return &vd->staging_regions[vd->staging_first];
}

static void drop_oldest(tdm_vk_device *vd)
{
    vd->staging_first = (vd->staging_first + 1) % TDM_VK_STAGING_REGIONS;
    if (--vd->staging_count == 0)
        vd->staging_head = 0;
}

/* Frees the regions whose copies have completed, oldest first, but for the newest
 * `keep`; never waits. */
static tdm_status reclaim(tdm_vk_device *vd, size_t keep)
{
    while (vd->staging_count > keep) {
        int done = 0;
        tdm_status s = tdm_vk_completed(vd, oldest(vd)->value, &done);
        if (s != TDM_OK || !done)
            return s;
        drop_oldest(vd);
    }
    return TDM_OK;
}

/* Where `size` bytes fit after the head, or at the ring's start; 0 when they do not.
 * In use: [tail, head), or wrapped, [tail, end) and [0, head); head == tail with
 * regions in use is a full ring. *begin is set when they fit. */
static int fits(const tdm_vk_device *vd, size_t size, size_t *begin)
{
    size_t head = vd->staging_head;
    if (vd->staging_count == 0) {
        *begin = 0;
        return 1;
    }
    size_t tail = vd->staging_regions[vd->staging_first].begin;
    if (vd->staging_count == TDM_VK_STAGING_REGIONS || head == tail)
        return 0;
    if (head > tail) {
        if (head + size <= TDM_VK_STAGING_BYTES) {
            *begin = head;
            return 1;
        }
        *begin = 0;
        return size < tail;
    }
    *begin = head;
    return head + size < tail;
}

/* Takes a region of `size` bytes (at most a chunk, rounded up to the alignment),
 * waiting for the oldest copies while the ring is full; the newest `keep` regions
 * stay (a read's chunk not yet drained). Its value is set by the caller once its copy
 * is recorded. */
static tdm_status take_region(tdm_vk_device *vd, size_t size, size_t keep,
                              tdm_vk_staging_region **out)
{
    size_t begin = 0;
    size = (size + TDM_VK_STAGING_ALIGN - 1) / TDM_VK_STAGING_ALIGN * TDM_VK_STAGING_ALIGN;
    tdm_status s = reclaim(vd, keep);
    while (s == TDM_OK && !fits(vd, size, &begin) && vd->staging_count > keep) {
        s = tdm_vk_wait(vd, oldest(vd)->value);
        if (s == TDM_OK)
            drop_oldest(vd);
    }
    if (s != TDM_OK)
        return s;
    if (!fits(vd, size, &begin)) /* two chunks always fit a ring otherwise empty */
        return tdm_fail(TDM_ERR_INVALID_STATE, "%s: no %zu bytes free in the staging ring",
                        tdm_backend_device_desc(vd->dev)->id, size);
    size_t at = (vd->staging_first + vd->staging_count++) % TDM_VK_STAGING_REGIONS;
    vd->staging_regions[at] = (tdm_vk_staging_region){begin, begin + size, 0};
    vd->staging_head = (begin + size) % TDM_VK_STAGING_BYTES;
    *out = &vd->staging_regions[at];
    return TDM_OK;
}

tdm_status tdm_vk_staged_write(tdm_vk_device *vd, VkBuffer dst, size_t offset,
                               const unsigned char *src, size_t size)
{
    tdm_mutex_lock(&vd->staging_lock);
    tdm_status s = ensure_staging(vd);
    for (size_t done = 0, n = 0; s == TDM_OK && done < size; done += n) {
        n = min_size(TDM_VK_STAGING_CHUNK, size - done);
        tdm_vk_staging_region *region = NULL;
        s = take_region(vd, n, 0, &region);
        if (s != TDM_OK)
            break;
        memcpy(vd->staging_map + region->begin, src + done, n);
        /* Recorded, not submitted: src may be reused already, and later work is
         * ordered after the copy in the batch or on the queue. */
        s = tdm_vk_copy_region(vd, dst, offset + done, vd->staging, region->begin, n, 0,
                               &region->value);
    }
    tdm_mutex_unlock(&vd->staging_lock);
    return s;
}

/* Submits the copy of the chunk at `done` of [offset, offset + size) into a region. */
static tdm_status read_chunk(tdm_vk_device *vd, VkBuffer src, size_t offset, size_t size,
                             size_t done, tdm_vk_staging_region *region)
{
    return tdm_vk_copy_region(vd, vd->staging, region->begin, src, offset + done,
                              min_size(TDM_VK_STAGING_CHUNK, size - done), 1, &region->value);
}

/* A region of a read in progress, by value: taking the next may move the ring's array
 * entries' meaning once older ones are dropped. */
typedef struct chunk {
    size_t begin;
    uint64_t value;
} chunk;

/* keep: 1 while the chunk before is not drained yet. */
static tdm_status take_chunk(tdm_vk_device *vd, VkBuffer src, size_t offset, size_t size,
                             size_t done, size_t keep, chunk *out)
{
    tdm_vk_staging_region *region = NULL;
    tdm_status s = take_region(vd, min_size(TDM_VK_STAGING_CHUNK, size - done), keep, &region);
    if (s == TDM_OK)
        s = read_chunk(vd, src, offset, size, done, region);
    if (s == TDM_OK)
        *out = (chunk){region->begin, region->value};
    return s;
}

tdm_status tdm_vk_staged_read(tdm_vk_device *vd, VkBuffer src, size_t offset, unsigned char *dst,
                              size_t size)
{
    tdm_mutex_lock(&vd->staging_lock);
    tdm_status s = ensure_staging(vd);
    chunk now = {0}, next = {0};
    if (s == TDM_OK && size > 0)
        s = take_chunk(vd, src, offset, size, 0, 0, &now);
    for (size_t done = 0; s == TDM_OK && done < size; done += TDM_VK_STAGING_CHUNK, now = next) {
        size_t n = min_size(TDM_VK_STAGING_CHUNK, size - done);
        if (done + n < size)
            s = take_chunk(vd, src, offset, size, done + n, 1, &next);
        if (s == TDM_OK)
            s = tdm_vk_wait(vd, now.value);
        if (s == TDM_OK)
            memcpy(dst + done, vd->staging_map + now.begin, n);
    }
    tdm_mutex_unlock(&vd->staging_lock);
    return s;
}

void tdm_vk_staging_release(tdm_vk_device *vd)
{
    vkDestroyBuffer(vd->device, vd->staging, NULL);
    vkFreeMemory(vd->device, vd->staging_memory, NULL);
    vd->staging = VK_NULL_HANDLE;
    vd->staging_memory = VK_NULL_HANDLE;
    vd->staging_map = NULL;
    vd->staging_first = vd->staging_count = vd->staging_head = 0;
}
