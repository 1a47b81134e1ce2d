/* The file-system calls of the checkpoint files (the platform's tdm_files.h), each
 * failure worded: directories, the temporary file and its lock, durable writes,
 * rename, listing and reading. */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkpoint/checkpoint_format.h"
#include "checkpoint/checkpoint_files.h"
#include "base/error.h"
#include "base/input_limit.h"
#include "platform/tdm_files.h"
#include "platform/tdm_host.h"
#include "platform/tdm_text.h"

/* A full quota, where the system has quotas (Windows' C runtime names none). */
#ifdef EDQUOT
#define OVER_QUOTA(err) ((err) == EDQUOT)
#else
#define OVER_QUOTA(err) 0
#endif

tdm_status tdm_ckpt_os_fail(int err, const char *func, const char *what, const char *path)
{
    char buf[128];
    const char *msg = tdm_strerror(err, buf, sizeof buf);
    tdm_status s = TDM_ERR_NOT_FOUND;
    if (err == ENOMEM || err == ENOSPC || OVER_QUOTA(err) || err == EFBIG)
        s = TDM_ERR_OUT_OF_MEMORY;
    return tdm_fail(s, "%s: cannot %s %s: %s", func, what, path, msg);
}

char *tdm_ckpt_join(const char *dir, const char *name)
{
    size_t d = strlen(dir), n = strlen(name);
    int slash = d > 0 && dir[d - 1] != '/';
    char *p = malloc(d + (size_t)slash + n + 1);
    if (!p)
        return NULL;
    memcpy(p, dir, d);
    if (slash)
        p[d] = '/';
    memcpy(p + d + slash, name, n + 1);
    return p;
}

char *tdm_ckpt_parent_of(const char *path)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') /* "a/b/" is "a/b" */
        len--;
    while (len > 0 && path[len - 1] != '/')
        len--;
    while (len > 1 && path[len - 1] == '/')
        len--;
    if (len == 0)
        return strdup(".");
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, path, len);
        p[len] = '\0';
    }
    return p;
}

tdm_status tdm_ckpt_os_create_temp(const char *dir, const char *final_name, const char *func,
                                   char **path, FILE **f)
{
    static atomic_uint counter;
    *path = NULL;
    *f = NULL;
    char name[128];
    for (int attempt = 0;; attempt++) {
        snprintf(name, sizeof name, ".%s.tmp-%ld-%u", final_name, tdm_host_process_id(),
                 atomic_fetch_add(&counter, 1));
        char *p = tdm_ckpt_join(dir, name);
        if (!p)
            return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
        /* Locked at once: prune skips files whose lock is held. */
        int created = tdm_file_create_locked(p, f);
        if (created == -1 && errno == EEXIST && attempt < 100) { /* left by our pid's */
            free(p);
            continue;
        }
        if (created != 0) {
            tdm_status s = tdm_ckpt_os_fail(errno, func,
                                            created == -1 ? "create the temporary file"
                                                          : "lock and open the temporary file",
                                            p);
            free(p);
            return s;
        }
        *path = p;
        return TDM_OK;
    }
}

tdm_status tdm_ckpt_os_sync_file(FILE *f, const char *path, const char *func)
{
    if (fflush(f) != 0)
        return tdm_ckpt_os_fail(errno, func, "write", path);
    if (tdm_file_sync(f) != 0)
        return tdm_ckpt_os_fail(errno, func, "fsync", path);
    return TDM_OK;
}

tdm_status tdm_ckpt_os_rename(const char *from, const char *to, const char *func)
{
    if (tdm_file_rename_over(from, to) == 0)
        return TDM_OK;
    int err = errno;
    char buf[128];
    tdm_status s = err == ENOMEM || err == ENOSPC || OVER_QUOTA(err) ? TDM_ERR_OUT_OF_MEMORY
                                                                     : TDM_ERR_NOT_FOUND;
    return tdm_fail(s, "%s: cannot rename %s to %s: %s", func, from, to,
                    tdm_strerror(err, buf, sizeof buf));
}

tdm_status tdm_ckpt_os_sync_dir(const char *dir, const char *func)
{
    int synced = tdm_dir_sync(dir);
    if (synced != 0)
        return tdm_ckpt_os_fail(errno, func,
                                synced == -1 ? "open the directory" : "fsync the directory", dir);
    return TDM_OK;
}

int tdm_ckpt_os_remove(const char *path)
{
    return tdm_file_remove(path);
}

int tdm_ckpt_os_remove_if_unlocked(const char *path)
{
    return tdm_file_remove_if_unlocked(path);
}

tdm_status tdm_ckpt_os_list(const char *dir, const char *func, tdm_ckpt_entry_fn fn, void *user)
{
    int listed = tdm_dir_list(dir, fn, user);
    if (listed != 0)
        return tdm_ckpt_os_fail(errno, func,
                                listed == -1 ? "open the directory" : "list the directory", dir);
    return TDM_OK;
}

/* Opens a regular file for reading without blocking; its status on failure. */
static tdm_status open_regular(const char *path, const char *func, int *fd, uint64_t *size)
{
    const char *kind;
    errno = 0;
    if (tdm_open_regular(path, fd, size, &kind) == 0)
        return TDM_OK;
    if (kind)
        return tdm_fail(TDM_ERR_NOT_FOUND, "%s: %s is %s, not a checkpoint file", func, path, kind);
    return tdm_ckpt_os_fail(errno, func, "open", path);
}

tdm_status tdm_ckpt_os_read_file(const char *path, const char *func, unsigned char **data,
                                 size_t *size)
{
    *data = NULL;
    *size = 0;
    uint64_t limit, file_size;
    int fd;
    tdm_status s = tdm_input_limit(TDM_INPUT_CHECKPOINT, func, &limit);
    if (s == TDM_OK)
        s = open_regular(path, func, &fd, &file_size);
    if (s != TDM_OK)
        return s;
    if (file_size > limit || file_size >= SIZE_MAX) {
        tdm_file_close(fd);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "%s: %s: its %" PRIu64 " bytes are over the input limit of %" PRIu64
                        " bytes (TDM_MAX_INPUT_BYTES; by default half of physical memory)",
                        func, path, file_size, limit);
    }
    size_t n = (size_t)file_size;
    unsigned char *p = malloc(n ? n : 1);
    if (!p) {
        tdm_file_close(fd);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: %s: no host memory for its %zu bytes", func,
                        path, n);
    }
    int64_t got = tdm_file_read_at(fd, p, n, 0);
    int err = errno;
    tdm_file_close(fd);
    if (got < 0) {
        free(p);
        return tdm_ckpt_os_fail(err, func, "read", path);
    }
    *data = p;
    *size = (size_t)got; /* shorter if it shrank meanwhile: judged as truncated */
    return TDM_OK;
}

int tdm_ckpt_os_read_ends(const char *path, unsigned char *head, size_t head_size, size_t *head_got,
                          unsigned char *tail, size_t tail_size, size_t *tail_got,
                          uint64_t *file_size)
{
    int fd;
    const char *kind;
    if (tdm_open_regular(path, &fd, file_size, &kind) != 0)
        return -1;
    *tail_got = 0;
    int64_t h = tdm_file_read_at(fd, head, head_size, 0), t = 0;
    if (h >= 0 && *file_size >= head_size + tail_size) {
        t = tdm_file_read_at(fd, tail, tail_size, *file_size - tail_size);
        *tail_got = t == (int64_t)tail_size ? tail_size : 0;
    }
    tdm_file_close(fd);
    if (h < 0 || t < 0)
        return -1;
    *head_got = (size_t)h;
    return 0;
}

/* "tandem (pid 4242) on host since 2026-01-02 03:04:05 UTC" */
static void describe_holder(char *out, size_t size)
{
    char host[128], when[32] = "?";
    tdm_host_name(host, sizeof host);
    time_t now = time(NULL);
    struct tm tm;
    if (tdm_host_utc(now, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    snprintf(out, size, "%s (pid %ld) on %s since %s", tdm_host_program_name(),
             tdm_host_process_id(), host, when);
}

static tdm_status held(int fd, const char *dir, const char *func)
{
    char holder[256] = "";
    int64_t n = tdm_file_read_at(fd, holder, sizeof holder - 1, 0);
    holder[n > 0 ? n : 0] = '\0';
    holder[strcspn(holder, "\n")] = '\0';
    return tdm_fail(TDM_ERR_INVALID_STATE,
                    "%s: the checkpoint directory %s is in use by another run: %s. Two runs in "
                    "one directory would replace each other's checkpoints; wait for it to end "
                    "or choose another directory",
                    func, dir, holder[0] ? holder : "its holder did not say who it is");
}

tdm_status tdm_ckpt_os_lock_dir(const char *dir, const char *func, int *fd)
{
    *fd = -1;
    char *p = tdm_ckpt_join(dir, TDM_CKPT_LOCK_NAME);
    if (!p)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    int f = -1;
    tdm_lock_result r = tdm_file_lock(p, &f);
    tdm_status s = TDM_OK;
    if (r == TDM_LOCK_NOT_FILE)
        s = tdm_fail(TDM_ERR_NOT_FOUND, "%s: the lock file %s is not a regular file", func, p);
    else if (r == TDM_LOCK_NO_FILE || r == TDM_LOCK_FAILED)
        s = tdm_ckpt_os_fail(errno, func, r == TDM_LOCK_NO_FILE ? "open the lock file" : "lock", p);
    else if (r == TDM_LOCK_HELD)
        s = held(f, dir, func);
    if (s == TDM_OK) {
        char holder[512];
        describe_holder(holder, sizeof holder);
        size_t len = strlen(holder);
        holder[len++] = '\n';
        /* Saying who holds it is a courtesy for the message above: no error if it fails. */
        (void)tdm_file_rewrite(f, holder, len);
        *fd = f;
    } else if (f >= 0) {
        tdm_file_close(f);
    }
    free(p);
    return s;
}

void tdm_ckpt_os_unlock_dir(int fd)
{
    if (fd >= 0)
        tdm_file_close(fd);
}

tdm_status tdm_ckpt_os_set_aside(const char *path, const char *func, char **kept)
{
    size_t len = strlen(path) + 32;
    char *to = malloc(len);
    *kept = NULL;
    if (!to)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (int n = 1; n <= 1000; n++) {
        tdm_path_kind kind = TDM_PATH_NONE;
        snprintf(to, len, n == 1 ? "%s.damaged" : "%s.damaged-%d", path, n);
        if (tdm_path_kind_of(to, 0, &kind) != 0)
            break;
        if (kind != TDM_PATH_NONE)
            continue; /* kept from an earlier time: never replaced */
        tdm_status s = tdm_ckpt_os_rename(path, to, func);
        if (s != TDM_OK) {
            free(to);
            return s;
        }
        *kept = to;
        return TDM_OK;
    }
    int err = errno;
    free(to);
    return tdm_ckpt_os_fail(err ? err : EEXIST, func, "find a free name to keep aside", path);
}
