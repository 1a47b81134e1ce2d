/* Internal: the file system beyond the C library's streams (posix/files.c; Win32's
 * wide-character calls and its C runtime's descriptors fit the same ones). Paths are
 * UTF-8. */
#ifndef TDM_PLATFORM_FILES_H
#define TDM_PLATFORM_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The longest path tandem's buffers hold, with its terminating zero: Linux's PATH_MAX
 * (posix/files.c checks it), and within what Win32's wide calls take. */
#define TDM_PATH_MAX 4096

/* The last part of path, after its last separator ('/', and on Windows '\\' too): path
 * itself when it has none. */
const char *tdm_path_base_name(const char *path);

/* Whether this process may read the file at path. */
int tdm_path_readable(const char *path);

/* Whether this process may write the file at path, or into the folder. */
int tdm_path_writable(const char *path);

/* What a path names. */
typedef enum tdm_path_kind {
    TDM_PATH_NONE,   /* nothing is there */
    TDM_PATH_FILE,   /* a regular file */
    TDM_PATH_DIR,    /* a directory */
    TDM_PATH_LINK,   /* a symbolic link (only where links are not followed) */
    TDM_PATH_DEVICE, /* a character or block device */
    TDM_PATH_PIPE    /* a FIFO or a socket: what is written goes to a reader, if any */
} tdm_path_kind;

/* *kind of path: of what its links lead to where follow is set, else of path itself.
 * 0, or -1 with errno set (nothing there is TDM_PATH_NONE, not a failure). */
int tdm_path_kind_of(const char *path, int follow, tdm_path_kind *kind);

/* The text of the symbolic link at path (malloc'd, as written: relative to the link's
 * folder unless absolute); NULL with errno set (EAGAIN: the link changed meanwhile). */
char *tdm_link_read(const char *path);

/* Makes the directory dir (0777 less the umask) in a folder that exists: 0, or -1 with
 * errno set (EEXIST when something is there already). */
int tdm_make_dir(const char *dir);

/* Opens the existing file at path for writing in place, not truncated (a device or a
 * FIFO an output names), close-on-exec, never becoming the controlling terminal; NULL
 * with errno set. */
FILE *tdm_file_open_in_place(const char *path);

/* Opens the FIFO at path for writing: at once where a process reads it, else -1 with
 * errno ENXIO unless wait, where it waits for a reader. The descriptor, in blocking
 * mode, is closed by tdm_file_close; -1 with errno set on failure (ENOTSUP where the
 * system has no FIFOs in its file system). */
int tdm_fifo_open_writer(const char *path, int wait);

/* Opens a file that tandem reads (data files, checkpoints) without ever blocking: a
 * FIFO with no writer or a device would otherwise hang the open or be read forever, so
 * anything but a regular file is refused, saying what it is. Read-only, close-on-exec.
 * 0: *fd is a regular file of *size bytes, in blocking mode again. -1: the open failed
 * (errno set, *kind NULL), or path is no regular file (*kind names it, "a FIFO", "a
 * directory", ...). */
int tdm_open_regular(const char *path, int *fd, uint64_t *size, const char **kind);

/* Closes a descriptor of tdm_open_regular's or tdm_file_lock's. */
void tdm_file_close(int fd);

/* Reads up to size bytes from fd, fewer only at its end or on an error: the count
 * read, or -1 (errno set) when an error came before any byte. */
int64_t tdm_file_read(int fd, void *data, size_t size);

/* mkdir -p: makes dir and every folder above it that is missing, readable by its
 * owner alone where owner_only is set (0700; else 0777 less the umask). 0 when dir is a
 * directory now, else -1 with errno set. */
int tdm_make_dirs(const char *dir, int owner_only);

/* Whether mkdir -p of dir would give a writable directory: its deepest existing
 * ancestor (or itself) is a directory this process may write into. Creates nothing. */
int tdm_dir_creatable(const char *dir);

/* The user's temporary folder into out, without a separator at its end: TMPDIR, else
 * /tmp; on Windows GetTempPathW's (%TMP%, %TEMP%, the profile's). 0, or -1 when it
 * does not fit or cannot be read. */
int tdm_temp_folder(char *out, size_t cap);

/* Makes <the user's temporary folder>/<name>-<the user's id> (TMPDIR, else /tmp,
 * 0700) into out, and checks that it is a real directory of this user's, writable: a
 * shared /tmp may hold one somebody else planted. 0 when it is, else -1. */
int tdm_make_private_temp_dir(const char *name, char *out, size_t cap);

/* Reads up to size bytes at offset of fd, fewer only at its end: the count read, or -1
 * (errno set) on an error. */
int64_t tdm_file_read_at(int fd, void *data, size_t size, uint64_t offset);

/* Creates the new file path (0666 less the umask; EEXIST when there is one) for writing,
 * and takes an exclusive lock on it that lasts until fclose. 0; -1 when it could not be
 * created, -2 when it could not be locked or opened (then it is removed again); errno
 * set. */
int tdm_file_create_locked(const char *path, FILE **f);

/* Removes path unless a writer holds the lock of tdm_file_create_locked on it: 1
 * removed, 0 in use, no regular file or already gone, -1 failed (errno set). */
int tdm_file_remove_if_unlocked(const char *path);

/* The folder's lock: takes an exclusive lock on the file path (created if missing;
 * never through a link), which lasts until tdm_file_close of *fd or the process's end,
 * however it ends. */
typedef enum tdm_lock_result {
    TDM_LOCK_TAKEN,    /* *fd holds it */
    TDM_LOCK_HELD,     /* another holds it: *fd is open to read its description */
    TDM_LOCK_NOT_FILE, /* path is no regular file */
    TDM_LOCK_NO_FILE,  /* it could not be opened or created: errno says why */
    TDM_LOCK_FAILED    /* the lock could not be taken: errno says why */
} tdm_lock_result;
tdm_lock_result tdm_file_lock(const char *path, int *fd);

/* Replaces the whole content of fd with size bytes of data: 0, or -1 (errno set). */
int tdm_file_rewrite(int fd, const void *data, size_t size);

/* Writes a stream's written data and metadata through to the disk (after fflush): 0,
 * or -1 (errno set). */
int tdm_file_sync(FILE *f);

/* Writes the folder's entries (files renamed or removed in it) through to the disk. 0;
 * -1 when it could not be opened, -2 when the sync failed; errno set. File systems
 * that cannot sync a folder count as done. */
int tdm_dir_sync(const char *dir);

/* Renames from to to, atomically replacing a file there: 0, or -1 (errno set). */
int tdm_file_rename_over(const char *from, const char *to);

/* Removes the file at path: 1 removed, 0 already gone, -1 failed (errno set). */
int tdm_file_remove(const char *path);

/* Removes the empty directory dir: 1 removed, 0 already gone, -1 failed (errno set). */
int tdm_dir_remove(const char *dir);

/* Calls fn with the name of every entry of dir ("." and ".." left out) until fn returns
 * non-zero. 0; -1 when dir could not be opened, -2 when listing it failed; errno set. */
int tdm_dir_list(const char *dir, int (*fn)(const char *name, void *user), void *user);

/* Replaces the file at path, atomically, with the parts given in order: they are
 * written to a new temporary file in path's folder, which is then renamed over path,
 * so a reader sees the old file or the new one, never part of one. 0, or -1 with
 * errno set and nothing left behind. */
int tdm_file_replace(const char *path, const void *const *parts, const size_t *sizes, size_t count);

#endif
