/* Outputs written whole, by what their path is (output_file.h): replaced atomically,
 * followed through links, or written in place. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "checkpoint/checkpoint_files.h"
#include "checkpoint/output_file.h"
#include "checkpoint/path_links.h"

static tdm_status out_of_memory(const char *func)
{
    return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
}

static tdm_status open_in_place(tdm_output_file *o, const char *path, const char *func)
{
    o->f = tdm_file_open_in_place(o->target);
    return o->f ? TDM_OK : tdm_ckpt_os_fail(errno, func, "write", path);
}

/* The temporary file beside the target, in a directory that must be writable. */
static tdm_status open_beside(tdm_output_file *o, const char *path, const char *func)
{
    char *dir = tdm_ckpt_parent_of(o->target);
    if (!dir)
        return out_of_memory(func);
    const char *slash = strrchr(o->target, '/'), *name = slash ? slash + 1 : o->target;
    tdm_status s = tdm_path_writable(dir)
                       ? tdm_ckpt_os_create_temp(dir, name, func, &o->temp, &o->f)
                       : tdm_ckpt_os_fail(errno, func, "write", path);
    free(dir);
    return s;
}

/* Resolves path; a directory is refused, and a FIFO or socket for a whole output.
 * *special: a device, FIFO or socket, written in place. */
static tdm_status place(const char *path, tdm_output_kind output, const char *func, char **target,
                        int *special)
{
    tdm_path_kind kind = TDM_PATH_NONE;
    tdm_status s = tdm_path_follow_links(path, func, "write", target, &kind);
    if (s == TDM_OK && kind == TDM_PATH_DIR)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: cannot write %s: it is a directory", func,
                     path);
    else if (s == TDM_OK && kind == TDM_PATH_PIPE && output == TDM_OUTPUT_WHOLE)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                     "%s: cannot write %s: it is a FIFO or socket, and this output is a whole "
                     "file, which a reader there could not tell from one cut short: name a "
                     "regular file",
                     func, path);
    if (s != TDM_OK) {
        free(*target);
        *target = NULL;
    }
    *special = s == TDM_OK && (kind == TDM_PATH_DEVICE || kind == TDM_PATH_PIPE);
    return s;
}

int tdm_output_replaces(const char *path)
{
    char *target = NULL;
    int special = 1;
    tdm_status s = place(path, TDM_OUTPUT_STREAM, "tdm_output_replaces", &target, &special);
    free(target);
    return s == TDM_OK && !special;
}

tdm_status tdm_output_open(const char *path, tdm_output_kind kind, const char *func,
                           tdm_output_file *out)
{
    *out = (tdm_output_file){0};
    int special = 0;
    tdm_status s = place(path, kind, func, &out->target, &special);
    if (s == TDM_OK)
        s = special ? open_in_place(out, path, func) : open_beside(out, path, func);
    if (s != TDM_OK) {
        free(out->target);
        *out = (tdm_output_file){0};
    }
    return s;
}

tdm_status tdm_output_check(const char *path, tdm_output_kind kind, const char *func)
{
    tdm_output_file o = {0};
    int special = 0;
    tdm_status s = place(path, kind, func, &o.target, &special);
    if (s == TDM_OK && special && !tdm_path_writable(o.target))
        s = tdm_ckpt_os_fail(errno, func, "write", path);
    else if (s == TDM_OK && !special)
        s = open_beside(&o, path, func);
    tdm_output_abort(&o);
    return s;
}

tdm_status tdm_output_commit(tdm_output_file *o, const char *func)
{
    const char *written = o->temp ? o->temp : o->target;
    /* a write that failed while the caller wrote left its errno (ENOSPC, EIO) */
    int failed_write = ferror(o->f) ? (errno ? errno : EIO) : 0;
    tdm_status s = failed_write ? tdm_ckpt_os_fail(failed_write, func, "write", written) : TDM_OK;
    if (s == TDM_OK)
        s = o->temp             ? tdm_ckpt_os_sync_file(o->f, o->temp, func)
            : fflush(o->f) == 0 ? TDM_OK
                                : tdm_ckpt_os_fail(errno, func, "write", written);
    if (fclose(o->f) != 0 && s == TDM_OK)
        s = tdm_ckpt_os_fail(errno, func, "write", written);
    o->f = NULL;
    if (s == TDM_OK && o->temp)
        s = tdm_ckpt_os_rename(o->temp, o->target, func);
    if (s == TDM_OK && o->temp) { /* renamed: nothing left to remove */
        free(o->temp);
        o->temp = NULL;
        char *dir = tdm_ckpt_parent_of(o->target);
        s = dir ? tdm_ckpt_os_sync_dir(dir, func) : out_of_memory(func);
        free(dir);
    }
    tdm_output_abort(o);
    return s;
}

void tdm_output_abort(tdm_output_file *o)
{
    if (o->f)
        fclose(o->f);
    if (o->temp)
        tdm_ckpt_os_remove(o->temp);
    free(o->temp);
    free(o->target);
    *o = (tdm_output_file){0};
}
