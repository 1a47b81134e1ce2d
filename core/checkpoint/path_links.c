/* Paths through symbolic links: followed, and a directory made where a dangling one
 * points (path_links.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "checkpoint/checkpoint_posix.h"
#include "checkpoint/path_links.h"

#define MAX_LINKS 40 /* Linux's own bound on a path's links */

static tdm_status out_of_memory(const char *func)
{
    return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
}

/* *to = what the link at path names, as a path from here (malloc'd). */
static tdm_status link_target(const char *path, off_t size, const char *func, char **to)
{
    size_t cap = size > 0 ? (size_t)size : PATH_MAX;
    char *read = malloc(cap + 1);
    if (!read)
        return out_of_memory(func);
    ssize_t n = readlink(path, read, cap + 1);
    if (n < 0 || (size_t)n > cap) { /* a link that grew since lstat: try again */
        free(read);
        return tdm_ckpt_os_fail(n < 0 ? errno : EAGAIN, func, "read the link", path);
    }
    read[n] = '\0';
    if (read[0] == '/') {
        *to = read;
        return TDM_OK;
    }
    char *dir = tdm_ckpt_parent_of(path);
    *to = dir ? tdm_ckpt_join(dir, read) : NULL;
    free(dir);
    free(read);
    return *to ? TDM_OK : out_of_memory(func);
}

tdm_status tdm_path_follow_links(const char *path, const char *func, const char *what,
                                 char **target, struct stat *st, int *exists)
{
    char *p = strdup(path);
    tdm_status s = p ? TDM_OK : out_of_memory(func);
    for (int links = 0; s == TDM_OK; links++) {
        *exists = lstat(p, st) == 0;
        if (!*exists && errno != ENOENT)
            s = tdm_ckpt_os_fail(errno, func, what, path);
        else if (!*exists || !S_ISLNK(st->st_mode)) {
            *target = p;
            return TDM_OK;
        } else if (links == MAX_LINKS)
            s = tdm_ckpt_os_fail(ELOOP, func, what, path);
        else {
            char *next = NULL;
            s = link_target(p, st->st_size, func, &next);
            free(p);
            p = next;
        }
    }
    free(p);
    return s;
}

/* mkdir, the new directory's entry made durable; errno kept on failure. */
static int make_durable_dir(const char *dir, const char *func, tdm_status *s)
{
    if (mkdir(dir, 0777) != 0)
        return -1;
    /* New: its own entry must persist as well as the files that go into it. */
    char *parent = tdm_ckpt_parent_of(dir);
    *s = parent ? tdm_ckpt_os_sync_dir(parent, func) : out_of_memory(func);
    free(parent);
    return 0;
}

/* dir is a dangling link: the directory made where its links end. */
static tdm_status make_link_target(const char *dir, const char *func)
{
    char *target = NULL;
    struct stat st;
    int exists = 0;
    tdm_status s = tdm_path_follow_links(dir, func, "create the directory", &target, &st, &exists);
    if (s == TDM_OK && !exists && make_durable_dir(target, func, &s) != 0) {
        char buf[128];
        s = tdm_fail(TDM_ERR_NOT_FOUND,
                     "%s: cannot create the directory %s, where the symbolic link %s points: %s",
                     func, target, dir, strerror_r(errno, buf, sizeof buf));
    }
    free(target);
    return s;
}

tdm_status tdm_ckpt_os_make_dir(const char *dir, const char *func)
{
    tdm_status s = TDM_OK;
    if (make_durable_dir(dir, func, &s) == 0)
        return s;
    int err = errno;
    struct stat st;
    if (err == EEXIST && stat(dir, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return TDM_OK;
        err = ENOTDIR;
    } else if (err == EEXIST && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)) {
        return make_link_target(dir, func); /* there, but stat found nothing behind it */
    }
    return tdm_ckpt_os_fail(err, func, "create the directory", dir);
}
