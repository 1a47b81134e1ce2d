/* Internal: opening files that tandem reads (data files, checkpoints) without ever
 * blocking: a FIFO with no writer or a device would otherwise hang open() or be read
 * forever, so anything but a regular file is refused, saying what it is. */
#ifndef TDM_CORE_REGULAR_FILE_H
#define TDM_CORE_REGULAR_FILE_H

#include <stdint.h>

/* Opens path read-only (close-on-exec) without blocking. 0: *fd is a regular file of
 * *size bytes, in blocking mode again. -1: open failed (errno set, *kind NULL), or
 * path is no regular file (*kind names it, "a FIFO", "a directory", ...). */
int tdm_open_regular(const char *path, int *fd, uint64_t *size, const char **kind);

#endif
