/* Internal: the file system beyond the C library's streams (posix/files.c; Win32's
 * wide-character calls and its C runtime's descriptors fit the same ones). Paths are
 * UTF-8. */
#ifndef TDM_PLATFORM_FILES_H
#define TDM_PLATFORM_FILES_H

#include <stdint.h>

/* Whether this process may read the file at path. */
int tdm_path_readable(const char *path);

/* Opens a file that tandem reads (data files, checkpoints) without ever blocking: a
 * FIFO with no writer or a device would otherwise hang the open or be read forever, so
 * anything but a regular file is refused, saying what it is. Read-only, close-on-exec.
 * 0: *fd is a regular file of *size bytes, in blocking mode again. -1: the open failed
 * (errno set, *kind NULL), or path is no regular file (*kind names it, "a FIFO", "a
 * directory", ...). */
int tdm_open_regular(const char *path, int *fd, uint64_t *size, const char **kind);

/* Closes a descriptor of tdm_open_regular's. */
void tdm_file_close(int fd);

#endif
