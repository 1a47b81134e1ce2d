#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "atomic_file.h"
#include "png_write.h"

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Length, type, data, and the CRC of type + data. */
static void put_chunk(FILE *f, const char type[4], const unsigned char *data, uint32_t size)
{
    unsigned char word[4];
    put_be32(word, size);
    fwrite(word, 1, 4, f);
    fwrite(type, 1, 4, f);
    if (size)
        fwrite(data, 1, size, f);
    uLong crc = crc32(0L, (const Bytef *)type, 4);
    if (size)
        crc = crc32(crc, data, size);
    put_be32(word, (uint32_t)crc);
    fwrite(word, 1, 4, f);
}

static void put_header(FILE *f, unsigned width, unsigned height)
{
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char ihdr[13];
    put_be32(ihdr, width);
    put_be32(ihdr + 4, height);
    ihdr[8] = 8;  /* bits per sample */
    ihdr[9] = 2;  /* colour type: RGB */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* filter method 0 */
    ihdr[12] = 0; /* no interlace */
    fwrite(signature, 1, sizeof signature, f);
    put_chunk(f, "IHDR", ihdr, sizeof ihdr);
}

/* The zlib stream of the scanlines, each a filter byte 0 and the row; NULL when out
 * of memory. */
static unsigned char *compress_rows(const unsigned char *rgb, unsigned width, unsigned height,
                                    uLongf *size)
{
    size_t row = (size_t)width * 3;
    size_t raw_size = (row + 1) * height;
    unsigned char *raw = malloc(raw_size);
    *size = compressBound((uLong)raw_size);
    unsigned char *packed = malloc(*size);
    if (!raw || !packed) {
        free(raw);
        free(packed);
        return NULL;
    }
    for (unsigned y = 0; y < height; y++) {
        raw[y * (row + 1)] = 0;
        memcpy(raw + y * (row + 1) + 1, rgb + y * row, row);
    }
    int rc = compress2(packed, size, raw, (uLong)raw_size, Z_BEST_COMPRESSION);
    free(raw);
    if (rc != Z_OK) {
        free(packed);
        return NULL;
    }
    return packed;
}

int png_write_rgb(const char *path, const unsigned char *rgb, unsigned width, unsigned height,
                  char *err, size_t err_size)
{
    uLongf size;
    unsigned char *idat = compress_rows(rgb, width, height, &size);
    if (!idat) {
        snprintf(err, err_size, "cannot write %s: out of memory", path);
        return -1;
    }
    atomic_file a;
    int rc = atomic_file_open(&a, path, TDM_OUTPUT_WHOLE, err, err_size);
    if (rc == 0) {
        put_header(a.f, width, height);
        put_chunk(a.f, "IDAT", idat, (uint32_t)size);
        put_chunk(a.f, "IEND", NULL, 0);
        rc = atomic_file_commit(&a, err, err_size);
    }
    free(idat);
    return rc;
}
