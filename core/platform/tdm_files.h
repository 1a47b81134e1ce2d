/* Internal: the file system beyond the C library's streams (posix/files.c; Win32's
 * wide-character calls fit the same ones). Paths are UTF-8. */
#ifndef TDM_PLATFORM_FILES_H
#define TDM_PLATFORM_FILES_H

/* Whether this process may read the file at path. */
int tdm_path_readable(const char *path);

#endif
