/* tdm_files.h on POSIX. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* mkstemp, lstat, readlink, getuid, fdopen, pread */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/tdm_files.h"

_Static_assert(TDM_PATH_MAX == PATH_MAX, "TDM_PATH_MAX is Linux's PATH_MAX");

int tdm_path_readable(const char *path)
{
    return access(path, R_OK) == 0;
}

int tdm_path_writable(const char *path)
{
    return access(path, W_OK) == 0;
}

int tdm_path_kind_of(const char *path, int follow, tdm_path_kind *kind)
{
    struct stat st;
    if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) {
        *kind = TDM_PATH_NONE;
        return errno == ENOENT ? 0 : -1;
    }
    *kind = S_ISREG(st.st_mode)                            ? TDM_PATH_FILE
            : S_ISDIR(st.st_mode)                          ? TDM_PATH_DIR
            : S_ISLNK(st.st_mode)                          ? TDM_PATH_LINK
            : S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ? TDM_PATH_PIPE
                                                           : TDM_PATH_DEVICE;
    return 0;
}

int tdm_fifo_open_writer(const char *path, int wait)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (wait ? 0 : O_NONBLOCK));
    if (fd >= 0 && !wait)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

char *tdm_link_read(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return NULL;
    size_t cap = st.st_size > 0 ? (size_t)st.st_size : PATH_MAX;
    char *text = malloc(cap + 1);
    if (!text)
        return NULL;
    ssize_t n = readlink(path, text, cap + 1);
    if (n < 0 || (size_t)n > cap) { /* a link that grew since lstat: try again */
        int err = n < 0 ? errno : EAGAIN;
        free(text);
        errno = err;
        return NULL;
    }
    text[n] = '\0';
    return text;
}

int tdm_make_dir(const char *dir)
{
    return mkdir(dir, 0777);
}

FILE *tdm_file_open_in_place(const char *path)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (fd >= 0 && !f) {
        int err = errno;
        close(fd);
        errno = err;
    }
    return f;
}

static const char *kind_of(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

int tdm_open_regular(const char *path, int *fd, uint64_t *size, const char **kind)
{
    *kind = NULL;
    /* O_NONBLOCK: opening a FIFO that has no writer would wait for one. */
    int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (f < 0)
        return -1;
    struct stat st;
    if (fstat(f, &st) != 0) {
        int err = errno;
        close(f);
        errno = err;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        *kind = kind_of(st.st_mode);
        close(f);
        errno = 0;
        return -1;
    }
    fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK);
    *fd = f;
    *size = (uint64_t)st.st_size;
    return 0;
}

void tdm_file_close(int fd)
{
    close(fd);
}

int64_t tdm_file_read(int fd, void *data, size_t size)
{
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, (unsigned char *)data + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return got == 0 && r < 0 ? -1 : (int64_t)got;
        got += (size_t)r;
    }
    return (int64_t)got;
}

int tdm_make_dirs(const char *dir, int owner_only)
{
    char buf[PATH_MAX];
    struct stat st;
    mode_t mode = owner_only ? 0700 : 0777;

    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, mode) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, mode) != 0 && errno != EEXIST)
        return -1;
    if (stat(buf, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

int tdm_dir_creatable(const char *dir)
{
    char buf[PATH_MAX];
    struct stat st;

    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return 0;
    for (;;) {
        if (stat(buf, &st) == 0)
            return S_ISDIR(st.st_mode) && access(buf, W_OK | X_OK) == 0;
        char *slash = strrchr(buf, '/');
        if (errno != ENOENT)
            return 0;
        if (!slash) /* a relative name: made in the working folder, as on Win32 */
            return access(".", W_OK | X_OK) == 0;
        slash[slash == buf] = '\0'; /* keep "/" itself */
    }
}

int tdm_temp_folder(char *out, size_t cap)
{
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(out, cap, "%s", tmp && *tmp ? tmp : "/tmp");
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

int tdm_make_private_temp_dir(const char *name, char *out, size_t cap)
{
    char tmp[TDM_PATH_MAX];
    struct stat st;
    if (tdm_temp_folder(tmp, sizeof tmp) != 0)
        return -1;
    int n = snprintf(out, cap, "%s/%s-%u", tmp, name, (unsigned)getuid());

    if (n <= 0 || (size_t)n >= cap)
        return -1;
    if (mkdir(out, 0700) != 0 && errno != EEXIST)
        return -1;
    return lstat(out, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
                   access(out, W_OK | X_OK) == 0
               ? 0
               : -1;
}

static int write_all(int fd, const void *data, size_t size)
{
    const unsigned char *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        size -= (size_t)w;
    }
    return 0;
}

int tdm_file_replace(const char *path, const void *const *parts, const size_t *sizes, size_t count)
{
    char tmp[PATH_MAX];
    const char *slash = strrchr(path, '/');
    int folder = slash ? (int)(slash - path) + 1 : 0;
    if (snprintf(tmp, sizeof tmp, "%.*s.tmp-XXXXXX", folder, path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0)
        return -1;
    int failed = 0;
    for (size_t i = 0; i < count && !failed; i++)
        failed = write_all(fd, parts[i], sizes[i]) != 0;
    int saved = errno;
    if (close(fd) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (!failed && rename(tmp, path) == 0)
        return 0;
    saved = failed ? saved : errno;
    unlink(tmp);
    errno = saved;
    return -1;
}

int64_t tdm_file_read_at(int fd, void *data, size_t size, uint64_t offset)
{
    size_t got = 0;
    while (got < size) {
        ssize_t r = pread(fd, (unsigned char *)data + got, size - got, (off_t)(offset + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (int64_t)got;
}

int tdm_file_create_locked(const char *path, FILE **f)
{
    *f = NULL;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    /* Taken at once: tdm_file_remove_if_unlocked skips files whose lock is held. */
    *f = flock(fd, LOCK_EX | LOCK_NB) == 0 ? fdopen(fd, "wb") : NULL;
    if (*f)
        return 0;
    int err = errno;
    unlink(path);
    close(fd);
    errno = err;
    return -2;
}

int tdm_file_remove_if_unlocked(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return errno == ENOENT || errno == ELOOP ? 0 : -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* no writer made it */
        close(fd);
        return 0;
    }
    int removed = 0;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
        /* Unlinked while held: no writer can be between creating and locking it. */
        removed = unlink(path) == 0 ? 1 : errno == ENOENT ? 0 : -1;
    } else if (errno != EWOULDBLOCK) {
        removed = -1;
    }
    int err = errno;
    close(fd);
    errno = err;
    return removed;
}

tdm_lock_result tdm_file_lock(const char *path, int *fd)
{
    struct stat st;
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
    if (*fd < 0)
        return TDM_LOCK_NO_FILE;
    tdm_lock_result r = fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode) ? TDM_LOCK_NOT_FILE
                        : flock(*fd, LOCK_EX | LOCK_NB) == 0         ? TDM_LOCK_TAKEN
                        : errno == EWOULDBLOCK                       ? TDM_LOCK_HELD
                                                                     : TDM_LOCK_FAILED;
    if (r == TDM_LOCK_NOT_FILE || r == TDM_LOCK_FAILED) {
        int err = errno;
        close(*fd);
        *fd = -1;
        errno = err;
    }
    return r;
}

int tdm_file_rewrite(int fd, const void *data, size_t size)
{
    if (ftruncate(fd, 0) != 0)
        return -1;
    return pwrite(fd, data, size, 0) == (ssize_t)size ? 0 : -1;
}

int tdm_file_sync(FILE *f)
{
    return fsync(fileno(f));
}

int tdm_dir_sync(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd), err = errno;
    close(fd);
    errno = err;
    return rc != 0 && err != EINVAL ? -2 : 0;
}

int tdm_file_rename_over(const char *from, const char *to)
{
    return rename(from, to);
}

int tdm_file_remove(const char *path)
{
    if (unlink(path) == 0)
        return 1;
    return errno == ENOENT ? 0 : -1;
}

const char *tdm_path_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int tdm_dir_remove(const char *dir)
{
    if (rmdir(dir) == 0)
        return 1;
    return errno == ENOENT ? 0 : -1;
}

int tdm_dir_list(const char *dir, int (*fn)(const char *name, void *user), void *user)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            int err = errno;
            closedir(d);
            errno = err;
            return err ? -2 : 0;
        }
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (fn(e->d_name, user))
            break;
    }
    closedir(d);
    return 0;
}
