/* Which barrier a command needs before it in the open batch, from the buffer ranges
 * the commands recorded since the last barriers read and wrote.
 *
 * A range written and not yet followed by a memory barrier is a hazard for any later
 * access (read after write, write after write: a memory barrier makes the write
 * available and visible). A range read and not yet followed by any barrier is a
 * hazard for a later write (write after read: an execution dependency suffices, as
 * the read needs no memory made visible). A memory barrier is an execution
 * dependency too, so it clears both lists; an execution barrier clears only the
 * reads. Lists that overflow stand for every range: always safe, at worst a barrier
 * too many. */
#include "vulkan_internal.h"

static int overlaps(const tdm_vk_range *r, const tdm_vk_access *a)
{
    return r->buffer == a->buffer && r->begin < a->end && a->begin < r->end;
}

static int any_overlap(const tdm_vk_ranges *list, const tdm_vk_access *a)
{
    if (list->overflow)
        return 1;
    for (size_t i = 0; i < list->count; i++)
        if (overlaps(&list->range[i], a))
            return 1;
    return 0;
}

tdm_vk_barrier tdm_vk_hazard_barrier(const tdm_vk_hazards *h, const tdm_vk_access *access,
                                     size_t count)
{
    tdm_vk_barrier needed = TDM_VK_BARRIER_NONE;
    for (size_t i = 0; i < count; i++) {
        if (any_overlap(&h->written, &access[i]))
            return TDM_VK_BARRIER_MEMORY;
        if (access[i].write && any_overlap(&h->read, &access[i]))
            needed = TDM_VK_BARRIER_EXECUTION;
    }
    return needed;
}

void tdm_vk_hazard_clear(tdm_vk_hazards *h, tdm_vk_barrier barrier)
{
    if (barrier == TDM_VK_BARRIER_NONE)
        return;
    h->read.count = 0;
    h->read.overflow = 0;
    if (barrier == TDM_VK_BARRIER_MEMORY) {
        h->written.count = 0;
        h->written.overflow = 0;
    }
}

static VkDeviceSize min_size(VkDeviceSize a, VkDeviceSize b)
{
    return a < b ? a : b;
}

static VkDeviceSize max_size(VkDeviceSize a, VkDeviceSize b)
{
    return a > b ? a : b;
}

static void widen(tdm_vk_range *r, const tdm_vk_access *a)
{
    r->begin = min_size(r->begin, a->begin);
    r->end = max_size(r->end, a->end);
}

/* Joins a range of the same buffer that it overlaps or touches; else takes a free
 * entry; else widens any range of the same buffer over the gap (more than was
 * touched, never less); else the list overflows. */
static void add_range(tdm_vk_ranges *list, const tdm_vk_access *a)
{
    if (list->overflow)
        return;
    for (size_t i = 0; i < list->count; i++) {
        tdm_vk_range *r = &list->range[i];
        if (r->buffer == a->buffer && r->begin <= a->end && a->begin <= r->end) {
            widen(r, a);
            return;
        }
    }
    if (list->count < TDM_VK_TRACKED_RANGES) {
        list->range[list->count++] = (tdm_vk_range){a->buffer, a->begin, a->end};
        return;
    }
    for (size_t i = 0; i < list->count; i++)
        if (list->range[i].buffer == a->buffer) {
            widen(&list->range[i], a);
            return;
        }
    list->overflow = 1;
}

void tdm_vk_hazard_add(tdm_vk_hazards *h, const tdm_vk_access *access, size_t count)
{
    for (size_t i = 0; i < count; i++)
        add_range(access[i].write ? &h->written : &h->read, &access[i]);
}
