/* Internal: the file-system calls of the checkpoint files, through the platform's
 * tdm_files.h, kept in checkpoint_files.c alone. Each failing call sets the last error,
 * starting with func and naming the path and strerror. */
#ifndef TDM_CORE_CHECKPOINT_FILES_H
#define TDM_CORE_CHECKPOINT_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tandem/status.h"

/* The status of a failed file-system call: TDM_ERR_OUT_OF_MEMORY for ENOMEM and for a
 * full disk or quota (ENOSPC, EDQUOT, EFBIG), TDM_ERR_NOT_FOUND for everything else
 * (the path is missing, not allowed, read-only, or the device failed). The message
 * reads "func: cannot <what> <path>: <strerror>". */
tdm_status tdm_ckpt_os_fail(int err, const char *func, const char *what, const char *path);

/* "dir/name", malloc'd; NULL when out of memory. */
char *tdm_ckpt_join(const char *dir, const char *name);

/* The directory that holds path's last component ("." for a bare name), malloc'd;
 * NULL when out of memory. */
char *tdm_ckpt_parent_of(const char *path);

/* Creates a new file "dir/.<final_name>.tmp-<pid>-<n>" (mode 0666 less the umask)
 * and takes an exclusive flock on it, which it keeps until fclose: prune removes
 * only temporary files that nobody holds locked. *path is malloc'd. */
tdm_status tdm_ckpt_os_create_temp(const char *dir, const char *final_name, const char *func,
                                   char **path, FILE **f);

/* fflush, then fsync of the file's data and metadata. */
tdm_status tdm_ckpt_os_sync_file(FILE *f, const char *path, const char *func);

/* rename(from, to): atomic, replaces an existing `to`. */
tdm_status tdm_ckpt_os_rename(const char *from, const char *to, const char *func);

/* fsync of the directory, so that the entries renamed or removed in it persist. File
 * systems that cannot fsync a directory (EINVAL) count as done. */
tdm_status tdm_ckpt_os_sync_dir(const char *dir, const char *func);

/* unlink: 1 removed, 0 already gone, -1 failed (errno set). */
int tdm_ckpt_os_remove(const char *path);

/* Removes a temporary file unless a writer holds its lock: 1 removed, 0 in use or
 * already gone, -1 failed (errno set). */
int tdm_ckpt_os_remove_if_unlocked(const char *path);

/* Calls fn with the name of every entry of dir ("." and ".." left out) until fn
 * returns non-zero. A dir that does not exist: TDM_ERR_NOT_FOUND. */
typedef int (*tdm_ckpt_entry_fn)(const char *name, void *user);
tdm_status tdm_ckpt_os_list(const char *dir, const char *func, tdm_ckpt_entry_fn fn, void *user);

/* Reads a whole regular file into *data (malloc'd, at least one byte allocated). A
 * missing file, or one that is no regular file (never opened in a way that blocks):
 * TDM_ERR_NOT_FOUND; a file over the input limit (input_limit.h):
 * TDM_ERR_OUT_OF_MEMORY before anything is read. */
tdm_status tdm_ckpt_os_read_file(const char *path, const char *func, unsigned char **data,
                                 size_t *size);

/* Reads up to head_size bytes from the start of a regular file into head (*head_got
 * of them), its size, and, when it holds at least head_size + tail_size bytes, its
 * last tail_size bytes into tail (*tail_got = tail_size, else 0). 0, or -1 when it
 * cannot be opened or read or is no regular file. */
int tdm_ckpt_os_read_ends(const char *path, unsigned char *head, size_t head_size, size_t *head_got,
                          unsigned char *tail, size_t tail_size, size_t *tail_got,
                          uint64_t *file_size);

/* Takes the run's exclusive lock on dir: an flock on dir/TDM_CKPT_LOCK_NAME (created
 * if missing), which then describes its holder (program, pid, host, start time). The
 * lock ends with the process, however it ends. Held by another:
 * TDM_ERR_INVALID_STATE quoting that description. *fd: the lock, for unlock. */
tdm_status tdm_ckpt_os_lock_dir(const char *dir, const char *func, int *fd);
void tdm_ckpt_os_unlock_dir(int fd); /* -1 is no lock */

/* Renames path to path.damaged (path.damaged-2, ... when that name is taken: an older
 * damaged file is never replaced); *kept the new path, malloc'd. */
tdm_status tdm_ckpt_os_set_aside(const char *path, const char *func, char **kept);

#endif
