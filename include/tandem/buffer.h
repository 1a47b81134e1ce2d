/* tandem: device buffers and the copies between them. */
#ifndef TANDEM_BUFFER_H
#define TANDEM_BUFFER_H

#include <stddef.h>

#include "tandem/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_buffer tdm_buffer;

/* A byte range of a buffer. */
typedef struct tdm_buffer_view {
    tdm_buffer *buffer;
    size_t offset;
    size_t size;
} tdm_buffer_view;

/* Allocates `size` (> 0) bytes on the device. Over the device's max_allocation or
 * its remaining memory: TDM_ERR_OUT_OF_MEMORY naming the device and the limit.
 * The contents are undefined until written. */
TDM_API tdm_status tdm_buffer_alloc(tdm_device *dev, size_t size, tdm_buffer **out);

/* Releases the buffer without waiting for its device: the memory goes once the work
 * issued on the device before the free has completed. NULL-safe. */
TDM_API void tdm_buffer_free(tdm_buffer *buf);

TDM_API size_t tdm_buffer_size(const tdm_buffer *buf);
TDM_API tdm_device *tdm_buffer_device(const tdm_buffer *buf);

/* The whole buffer as a view. */
TDM_API tdm_buffer_view tdm_buffer_whole(tdm_buffer *buf);

/* Copies `size` bytes from host memory into the buffer. Ordered after earlier
 * operations on the device; returns once `src` may be reused. size 0 is a no-op. */
TDM_API tdm_status tdm_buffer_write(tdm_buffer *buf, size_t offset, const void *src, size_t size);

/* Copies `size` bytes of the buffer into host memory, after every earlier operation
 * on the device has completed; returns once `dst` holds them. size 0 is a no-op. */
TDM_API tdm_status tdm_buffer_read(tdm_buffer *buf, size_t offset, void *dst, size_t size);

/* Fills `size` bytes from `offset` with repetitions of a pattern of 1, 2, 4, 8, 16,
 * 32 or 64 bytes; offset and size must be multiples of the pattern size.
 * Asynchronous: complete after tdm_device_finish or a later event. */
TDM_API tdm_status tdm_buffer_fill(tdm_buffer *buf, size_t offset, const void *pattern,
                           size_t pattern_size, size_t size);

/* Copies src's bytes into dst; both views must have the same size and, within one
 * buffer, must not overlap. Any two buffers: on one device, on two devices that
 * share memory (one OpenCL context: a direct peer copy), or across contexts and
 * backends (staged through host memory in chunks). The copy sees every earlier
 * operation on both devices and completes before any later operation on either;
 * wait for it with tdm_device_finish on dst's device or an event recorded there. */
TDM_API tdm_status tdm_buffer_copy(const tdm_buffer_view *dst, const tdm_buffer_view *src);

#ifdef __cplusplus
}
#endif
#endif
