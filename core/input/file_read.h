/* Internal: reading a whole data file, plain or gzip-compressed. */
#ifndef TDM_INPUT_FILE_READ_H
#define TDM_INPUT_FILE_READ_H

#include <stddef.h>

#include "tandem/status.h"

/* Reads the file at path into *data (malloc'd, followed by a NUL that *size does not
 * count). zlib decompresses a gzip file, recognised by its magic bytes, and passes any
 * other file through. A path that cannot be opened or read: TDM_ERR_NOT_FOUND; a
 * damaged or truncated gzip stream: TDM_ERR_CORRUPT_DATA; messages start with func
 * and path. On failure *data is NULL. */
tdm_status tdm_read_file(const char *path, const char *func, char **data, size_t *size);

#endif
