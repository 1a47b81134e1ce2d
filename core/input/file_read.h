/* Internal: reading a whole data file, plain or gzip-compressed. */
#ifndef TDM_INPUT_FILE_READ_H
#define TDM_INPUT_FILE_READ_H

#include <stddef.h>

#include "tandem/status.h"

/* Reads the file at path into *data (malloc'd, followed by a NUL that *size does not
 * count). zlib decompresses a gzip file, recognised by its magic bytes, and passes any
 * other file through. A path that cannot be opened or read, or that is no regular file
 * (a FIFO, a device, a directory: never opened in a way that blocks):
 * TDM_ERR_NOT_FOUND; a file over the input limit (input_limit.h), decompressed or not:
 * TDM_ERR_OUT_OF_MEMORY, found as soon as the limit is passed; a damaged or truncated
 * gzip stream: TDM_ERR_CORRUPT_DATA; messages start with func and path. On failure
 * *data is NULL. */
tdm_status tdm_read_file(const char *path, const char *func, char **data, size_t *size);

#endif
