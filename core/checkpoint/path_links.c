/* Paths through symbolic links: followed, and a directory made where a dangling one
 * points (path_links.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "checkpoint/checkpoint_files.h"
#include "checkpoint/path_links.h"
#include "platform/tdm_text.h"

#define MAX_LINKS 40 /* Linux's own bound on a path's links */

static tdm_status out_of_memory(const char *func)
{
    return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
}

/* *to = what the link at path names, as a path from here (malloc'd). */
static tdm_status link_target(const char *path, const char *func, char **to)
{
    char *read = tdm_link_read(path);
    if (!read)
        return errno == ENOMEM ? out_of_memory(func)
                               : tdm_ckpt_os_fail(errno, func, "read the link", path);
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
                                 char **target, tdm_path_kind *kind)
{
    char *p = strdup(path);
    tdm_status s = p ? TDM_OK : out_of_memory(func);
    for (int links = 0; s == TDM_OK; links++) {
        if (tdm_path_kind_of(p, 0, kind) != 0)
            s = tdm_ckpt_os_fail(errno, func, what, path);
        else if (*kind != TDM_PATH_LINK) {
            *target = p;
            return TDM_OK;
        } else if (links == MAX_LINKS)
            s = tdm_ckpt_os_fail(ELOOP, func, what, path);
        else {
            char *next = NULL;
            s = link_target(p, func, &next);
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
    if (tdm_make_dir(dir) != 0)
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
    tdm_path_kind kind = TDM_PATH_NONE;
    tdm_status s = tdm_path_follow_links(dir, func, "create the directory", &target, &kind);
    if (s == TDM_OK && kind == TDM_PATH_NONE && make_durable_dir(target, func, &s) != 0) {
        char buf[128];
        s = tdm_fail(TDM_ERR_NOT_FOUND,
                     "%s: cannot create the directory %s, where the symbolic link %s points: %s",
                     func, target, dir, tdm_strerror(errno, buf, sizeof buf));
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
    tdm_path_kind kind = TDM_PATH_NONE, itself = TDM_PATH_NONE;
    if (err == EEXIST && tdm_path_kind_of(dir, 1, &kind) == 0 && kind != TDM_PATH_NONE) {
        if (kind == TDM_PATH_DIR)
            return TDM_OK;
        err = ENOTDIR;
    } else if (err == EEXIST && tdm_path_kind_of(dir, 0, &itself) == 0 && itself == TDM_PATH_LINK) {
        return make_link_target(dir, func); /* there, but stat found nothing behind it */
    }
    return tdm_ckpt_os_fail(err, func, "create the directory", dir);
}
