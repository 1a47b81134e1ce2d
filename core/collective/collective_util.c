/* Scratch, copies and completion shared by the collective algorithms. */
#include <stdlib.h>

#include "collective/collective_impl.h"
#include "base/error.h"
#include "device/memory/scratch_pool.h"

tdm_buffer_view coll_slice(const tdm_buffer_view *v, size_t offset, size_t size)
{
    return (tdm_buffer_view){v->buffer, v->offset + offset, size};
}

coll_part coll_part_of(size_t bytes, size_t parts, size_t i)
{
    size_t elements = bytes / 4, per = (elements + parts - 1) / parts;
    per = (per + 15) / 16 * 16;
    size_t first = i * per < elements ? i * per : elements;
    size_t last = first + per < elements ? first + per : elements;
    return (coll_part){first * 4, (last - first) * 4};
}

tdm_status coll_scratch_view(coll_scratch *s, tdm_device *dev, size_t size, tdm_buffer_view *out)
{
    if (s->used == s->capacity) {
        size_t capacity = s->capacity ? 2 * s->capacity : 16;
        tdm_buffer **list = realloc(s->list, capacity * sizeof *list);
        if (!list)
            return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "collectives: out of host memory");
        s->list = list;
        s->capacity = capacity;
    }
    tdm_buffer *buf;
    tdm_status st = tdm_scratch_acquire(dev, size, &buf);
    if (st != TDM_OK)
        return tdm_fail_context(st, "collective scratch");
    s->list[s->used++] = buf;
    *out = (tdm_buffer_view){buf, 0, size};
    return TDM_OK;
}

void coll_scratch_release(coll_scratch *s)
{
    for (size_t i = 0; i < s->used; i++)
        tdm_scratch_release(s->list[i]);
    free(s->list);
    *s = (coll_scratch){0};
}

tdm_status coll_copy_to_all(const tdm_buffer_view *src, const tdm_buffer_view *dsts, size_t count)
{
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < count && s == TDM_OK; i++)
        if (dsts[i].buffer != src->buffer || dsts[i].offset != src->offset)
            s = tdm_buffer_copy(&dsts[i], src);
    return s;
}

unsigned char *coll_host_address(const tdm_buffer_view *v)
{
    tdm_device *dev = coll_dev(v);
    void *base = dev->ops->host_address ? dev->ops->host_address(v->buffer, v->buffer->impl) : NULL;
    return base ? (unsigned char *)base + v->offset : NULL;
}
