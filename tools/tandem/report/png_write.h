/* A minimal PNG writer: 8-bit RGB, no interlace, filter 0, zlib-compressed. */
#ifndef TANDEM_CLI_PNG_WRITE_H
#define TANDEM_CLI_PNG_WRITE_H

#include <stddef.h>

/* Writes width x height pixels (rows top first, 3 bytes R, G, B each) to path as a
 * PNG, replacing it whole (temporary file + rename). 0 on success; else -1 with
 * "cannot write PATH: reason" in err. */
int png_write_rgb(const char *path, const unsigned char *rgb, unsigned width, unsigned height,
                  char *err, size_t err_size);

#endif
