#include <stdlib.h>

#include "base/error.h"
#include "device/memory/buffer_memory.h"
#include "device/memory/scratch_pool.h"

/* Sizes are rounded up to a quarter of their power of two (at least 4 KiB), so
 * that calls of nearby sizes share buffers and at most a quarter is wasted. */
static size_t rounded(size_t size)
{
    size_t granule = 4096;
    while (granule < size / 4)
        granule *= 2;
    return (size + granule - 1) / granule * granule;
}

/* The smallest idle buffer that fits and wastes at most half of itself. */
static tdm_buffer *take_idle(tdm_device *dev, size_t size)
{
    size_t best = dev->scratch_count;
    for (size_t i = 0; i < dev->scratch_count; i++) {
        size_t have = dev->scratch[i]->size;
        if (have >= size && have / 2 <= size &&
            (best == dev->scratch_count || have < dev->scratch[best]->size))
            best = i;
    }
    if (best == dev->scratch_count)
        return NULL;
    tdm_buffer *buf = dev->scratch[best];
    dev->scratch[best] = dev->scratch[--dev->scratch_count];
    return buf;
}

tdm_status tdm_scratch_acquire(tdm_device *dev, size_t size, tdm_buffer **out)
{
    tdm_mutex_lock(&dev->lock);
    *out = take_idle(dev, size);
    tdm_mutex_unlock(&dev->lock);
    if (*out)
        return TDM_OK;
    return tdm_scratch_allocate(dev, rounded(size), out);
}

void tdm_scratch_release(tdm_buffer *buf)
{
    if (!buf)
        return;
    tdm_device *dev = buf->device;
    tdm_mutex_lock(&dev->lock);
    int kept = dev->scratch_count < TDM_SCRATCH_MAX_IDLE;
    if (kept)
        dev->scratch[dev->scratch_count++] = buf;
    tdm_mutex_unlock(&dev->lock);
    if (!kept)
        tdm_buffer_free(buf);
}

size_t tdm_scratch_trim(tdm_device *dev)
{
    tdm_buffer *idle[TDM_SCRATCH_MAX_IDLE];
    tdm_mutex_lock(&dev->lock);
    size_t n = dev->scratch_count, bytes = 0;
    for (size_t i = 0; i < n; i++)
        idle[i] = dev->scratch[i];
    dev->scratch_count = 0;
    tdm_mutex_unlock(&dev->lock);
    for (size_t i = 0; i < n; i++) {
        bytes += idle[i]->size;
        tdm_buffer_free(idle[i]);
    }
    return bytes;
}

tdm_status tdm_scratch_allocate(tdm_device *dev, size_t size, tdm_buffer **out)
{
    tdm_status s = tdm_buffer_allocate(dev, size, out);
    if (s == TDM_ERR_OUT_OF_MEMORY && dev && tdm_scratch_trim(dev))
        s = tdm_buffer_allocate(dev, size, out);
    return s;
}
