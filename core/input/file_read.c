/* Whole-file reads through zlib, which handles gzip and plain files alike. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "error.h"
#include "file_read.h"

#define FIRST_CAPACITY (64u << 10)

static tdm_status open_failed(const char *path, const char *func)
{
    char buf[128];
    if (!errno)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: %s: no memory to open it", func, path);
    return tdm_fail(TDM_ERR_NOT_FOUND, "%s: cannot open %s: %s", func, path,
                    strerror_r(errno, buf, sizeof buf));
}

/* The status and message for gzread's failure after `offset` bytes were read. */
static tdm_status read_failed(gzFile f, const char *path, const char *func, size_t offset)
{
    int zerr;
    const char *msg = gzerror(f, &zerr);
    if (zerr == Z_ERRNO) {
        char buf[128];
        return tdm_fail(TDM_ERR_NOT_FOUND, "%s: cannot read %s: %s", func, path,
                        strerror_r(errno, buf, sizeof buf));
    }
    if (zerr == Z_MEM_ERROR)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: %s: no memory to decompress it", func, path);
    return tdm_fail(TDM_ERR_CORRUPT_DATA,
                    "%s: %s: corrupt gzip data after %zu decompressed bytes: %s", func, path,
                    offset, msg);
}

/* Doubles *data's capacity (one byte more is always kept for the final NUL). */
static int grow(char **data, size_t *capacity)
{
    if (*capacity > (SIZE_MAX - 1) / 2)
        return -1;
    char *bigger = realloc(*data, *capacity * 2 + 1);
    if (!bigger)
        return -1;
    *data = bigger;
    *capacity *= 2;
    return 0;
}

static tdm_status read_all(gzFile f, const char *path, const char *func, char **data, size_t *size)
{
    size_t capacity = FIRST_CAPACITY, len = 0;
    *data = malloc(capacity + 1);
    for (;;) {
        if (!*data || (len == capacity && grow(data, &capacity) != 0))
            return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: %s: no memory for more than %zu bytes",
                            func, path, len);
        size_t want = capacity - len < INT_MAX ? capacity - len : INT_MAX;
        int n = gzread(f, *data + len, (unsigned)want);
        if (n < 0)
            return read_failed(f, path, func, len);
        if (n == 0)
            break;
        len += (size_t)n;
    }
    (*data)[len] = '\0';
    *size = len;
    return TDM_OK;
}

tdm_status tdm_read_file(const char *path, const char *func, char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    errno = 0;
    gzFile f = gzopen(path, "rb");
    if (!f)
        return open_failed(path, func);
    tdm_status s = read_all(f, path, func, data, size);
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
