/* tdm_buffer_fill: byte patterns over the backends' word-pattern fill.
 *
 * Backends fill whole 32-bit words (what vkCmdFillBuffer and a compute shader do
 * well). A pattern of 1 or 2 bytes is widened to one word; bytes before the first
 * and after the last whole word (only possible for such short patterns) are
 * written from the host. */
#include <string.h>

#include "device/memory/buffer_checks.h"
#include "device/device_status.h"
#include "base/error.h"

#define MAX_PATTERN 64

static int valid_pattern_size(size_t n)
{
    return n >= 1 && n <= MAX_PATTERN && (n & (n - 1)) == 0;
}

static tdm_status check_fill(tdm_buffer *buf, size_t offset, const void *pattern,
                             size_t pattern_size, size_t size)
{
    const char *f = "tdm_buffer_fill";
    if (!buf)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument 'buf' is NULL", f);
    if (!pattern)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument 'pattern' is NULL", f);
    if (!valid_pattern_size(pattern_size))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: pattern_size is %zu, expected 1, 2, 4, 8, 16, 32 or 64", f,
                        pattern_size);
    if (offset % pattern_size || size % pattern_size)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: offset %zu and size %zu must be multiples of pattern_size %zu", f,
                        offset, size, pattern_size);
    tdm_status s = tdm_check_range(buf, offset, size, f, "buffer");
    return s != TDM_OK ? s : tdm_device_check_alive(buf->device, f);
}

/* Writes [offset, end) from the host; the pattern's phase is 0 at every multiple
 * of its size, so byte i takes pattern[i % pattern_size]. */
static tdm_status fill_from_host(tdm_buffer *buf, size_t offset, size_t end,
                                 const unsigned char *pattern, size_t pattern_size)
{
    unsigned char bytes[8]; /* at most 6: no whole aligned word lies inside */
    for (size_t i = offset; i < end; i++)
        bytes[i - offset] = pattern[i % pattern_size];
    return end > offset ? buf->device->ops->write(buf, buf->impl, offset, bytes, end - offset)
                        : TDM_OK;
}

static tdm_status fill_parts(tdm_buffer *buf, size_t offset, const unsigned char *pattern,
                             size_t pattern_size, size_t size)
{
    size_t end = offset + size;
    size_t word_begin = (offset + 3) & ~(size_t)3;
    size_t word_end = end & ~(size_t)3;
    if (word_begin >= word_end) /* fewer than 4 bytes, all unaligned */
        return fill_from_host(buf, offset, end, pattern, pattern_size);
    uint32_t words[MAX_PATTERN / 4];
    size_t word_bytes = pattern_size < 4 ? 4 : pattern_size;
    for (size_t i = 0; i < word_bytes; i++)
        ((unsigned char *)words)[i] = pattern[i % pattern_size];
    tdm_status s = fill_from_host(buf, offset, word_begin, pattern, pattern_size);
    if (s == TDM_OK)
        s = buf->device->ops->fill(buf, buf->impl, word_begin, words, word_bytes / 4,
                                   word_end - word_begin);
    if (s == TDM_OK)
        s = fill_from_host(buf, word_end, end, pattern, pattern_size);
    return s;
}

tdm_status tdm_buffer_fill(tdm_buffer *buf, size_t offset, const void *pattern, size_t pattern_size,
                           size_t size)
{
    tdm_status s = check_fill(buf, offset, pattern, pattern_size, size);
    if (s != TDM_OK || size == 0)
        return s;
    return tdm_device_result(buf->device, fill_parts(buf, offset, pattern, pattern_size, size));
}
