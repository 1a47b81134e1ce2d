/* Whole-file reads through zlib, which handles gzip and plain files alike. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/error.h"
#include "input/file_read.h"
#include "base/input_limit.h"
#include "platform/tdm_files.h"
#include "platform/tdm_text.h"

#define FIRST_CAPACITY (64u << 10)

static tdm_status open_failed(const char *path, const char *func)
{
    char buf[128];
    if (!errno)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: %s: no memory to open it", func, path);
    return tdm_fail(TDM_ERR_NOT_FOUND, "%s: cannot open %s: %s", func, path,
                    tdm_strerror(errno, buf, sizeof buf));
}

/* The status and message for gzread's failure after `offset` bytes were read. */
static tdm_status read_failed(gzFile f, const char *path, const char *func, size_t offset)
{
    int zerr;
    const char *msg = gzerror(f, &zerr);
    if (zerr == Z_ERRNO) {
        char buf[128];
        return tdm_fail(TDM_ERR_NOT_FOUND, "%s: cannot read %s: %s", func, path,
                        tdm_strerror(errno, buf, sizeof buf));
    }
    if (zerr == Z_MEM_ERROR)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: %s: no memory to decompress it", func, path);
    return tdm_fail(TDM_ERR_CORRUPT_DATA,
                    "%s: %s: corrupt gzip data after %zu decompressed bytes: %s", func, path,
                    offset, msg);
}

static tdm_status too_large(const char *path, const char *func, uint64_t limit)
{
    return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                    "%s: %s holds (or decompresses to) more than %llu bytes, the input limit "
                    "(TDM_MAX_INPUT_BYTES; by default a sixteenth of physical memory)",
                    func, path, (unsigned long long)limit);
}

/* Doubles *data's capacity up to limit + 1 bytes, enough to see that a file is over
 * it (one byte more is always kept for the final NUL). */
static int grow(char **data, size_t *capacity, uint64_t limit)
{
    if (*capacity > (SIZE_MAX - 1) / 2)
        return -1;
    size_t bigger = *capacity * 2;
    if (bigger > limit + 1)
        bigger = (size_t)limit + 1;
    char *p = realloc(*data, bigger + 1);
    if (!p)
        return -1;
    *data = p;
    *capacity = bigger;
    return 0;
}

/* Decompresses as it reads, and stops as soon as the data passes the limit. */
static tdm_status read_all(gzFile f, const char *path, const char *func, uint64_t limit,
                           char **data, size_t *size)
{
    size_t capacity = FIRST_CAPACITY < limit + 1 ? FIRST_CAPACITY : (size_t)limit + 1, len = 0;
    *data = malloc(capacity + 1);
    for (;;) {
        if (!*data || (len == capacity && grow(data, &capacity, limit) != 0))
            return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: %s: no memory for more than %zu bytes",
                            func, path, len);
        size_t want = capacity - len < INT_MAX ? capacity - len : INT_MAX;
        int n = gzread(f, *data + len, (unsigned)want);
        if (n < 0)
            return read_failed(f, path, func, len);
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > limit)
            return too_large(path, func, limit);
    }
    (*data)[len] = '\0';
    *size = len;
    return TDM_OK;
}

tdm_status tdm_read_file(const char *path, const char *func, char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    uint64_t limit, file_size;
    tdm_status s = tdm_input_limit(TDM_INPUT_DATA, func, &limit);
    if (s != TDM_OK)
        return s;
    if (limit >= SIZE_MAX)
        limit = SIZE_MAX - 2;
    int fd;
    const char *kind;
    errno = 0;
    if (tdm_open_regular(path, &fd, &file_size, &kind) != 0)
        return kind ? tdm_fail(TDM_ERR_NOT_FOUND, "%s: %s is %s, not a regular file", func, path,
                               kind)
                    : open_failed(path, func);
    if (file_size > limit) {
        tdm_file_close(fd);
        return too_large(path, func, limit);
    }
    errno = 0;
    gzFile f = gzdopen(fd, "rb");
    if (!f) {
        tdm_file_close(fd);
        return open_failed(path, func);
    }
    s = read_all(f, path, func, limit, data, size);
    int zerr;
    gzerror(f, &zerr); /* a truncated stream ends as if complete but records an error */
    if (s == TDM_OK && zerr != Z_OK)
        s = read_failed(f, path, func, *size);
    gzclose_r(f);
    if (s != TDM_OK) {
        free(*data);
        *data = NULL;
        *size = 0;
    }
    return s;
}
