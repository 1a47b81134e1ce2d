/* tandem/summary.h: a TensorBoard event file, made new in its folder and appended to. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "platform/tdm_files.h"
#include "platform/tdm_host.h"
#include "platform/tdm_text.h"
#include "summary/event_record.h"
#include "tandem/summary.h"

#define MAX_TAG 4096
#define EVENT_PREFIX "events.out.tfevents."
#define LAST_SECONDS 9999999999LL /* the last of ten digits */
#define MAX_TRIES 1000 /* files of one name but n made in one second, before giving up */

struct tdm_summary_writer {
    FILE *f;
    char *path;
    tdm_pb record; /* the record being written, its buffer kept from one to the next */
    int failed;    /* a write failed: the file may end inside a record */
};

/* A full quota, where the system has quotas (Windows' C runtime names none). */
#ifdef EDQUOT
#define OVER_QUOTA(err) ((err) == EDQUOT)
#else
#define OVER_QUOTA(err) 0
#endif

static tdm_status os_fail(int err, const char *func, const char *what, const char *path)
{
    char buf[128];
    const char *msg = tdm_strerror(err, buf, sizeof buf);
    tdm_status s = err == ENOMEM || err == ENOSPC || OVER_QUOTA(err) || err == EFBIG
                       ? TDM_ERR_OUT_OF_MEMORY
                       : TDM_ERR_NOT_FOUND;
    return tdm_fail(s, "%s: cannot %s %s: %s", func, what, path, msg);
}

/* The machine's name where it is a plain file name's part (letters, digits, '-', '_'
 * and '.'), else "" (Windows' "?" when the system does not say). */
static void host_part(char *out, size_t size)
{
    tdm_host_name(out, size);
    for (const char *c = out; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.", *c)) {
            out[0] = '\0';
            return;
        }
}

/* dir/events.out.tfevents.<seconds>.<host>.<pid>.<n> (malloc'd), or NULL. */
static char *event_path(const char *dir, long long seconds, const char *host, unsigned n)
{
    char name[256];
    snprintf(name, sizeof name, EVENT_PREFIX "%010lld.%s%s%ld.%u", seconds, host,
             host[0] ? "." : "", tdm_host_process_id(), n);
    size_t d = strlen(dir);
    int slash = d > 0 && dir[d - 1] != '/' && dir[d - 1] != '\\';
    size_t size = d + (size_t)slash + strlen(name) + 1;
    char *path = malloc(size);
    if (path)
        snprintf(path, size, "%s%s%s", dir, slash ? "/" : "", name);
    return path;
}

/* The largest <seconds> of the event files already in a folder (-1 if none). */
static int largest_seconds(const char *name, void *user)
{
    long long *largest = user;
    size_t prefix = strlen(EVENT_PREFIX);
    if (strncmp(name, EVENT_PREFIX, prefix) != 0 || strlen(name) < prefix + 10)
        return 0;
    long long seconds = 0;
    for (size_t i = prefix; i < prefix + 10; i++) {
        if (name[i] < '0' || name[i] > '9')
            return 0;
        seconds = seconds * 10 + (name[i] - '0');
    }
    if (seconds > *largest)
        *largest = seconds;
    return 0;
}

/* The <seconds> of a new file's name: the wall clock's, or one past the folder's latest
 * file where that is not earlier. TensorBoard reads a folder's files in the order of
 * their names; within one second that order would be the process ids' as text, so a
 * resumed run's epochs could be read before the first run's. */
static long long name_seconds(const char *dir, double wall)
{
    long long largest = -1;
    tdm_dir_list(dir, largest_seconds, &largest); /* unreadable: the clock alone */
    long long seconds = (long long)wall;
    return largest >= seconds && largest < LAST_SECONDS ? largest + 1 : seconds;
}

/* A new file of the name: the first n not taken yet. */
static tdm_status create_file(const char *dir, double wall, tdm_summary_writer *w)
{
    char host[256];
    host_part(host, sizeof host);
    long long seconds = name_seconds(dir, wall);
    for (unsigned n = 0; n < MAX_TRIES; n++) {
        w->path = event_path(dir, seconds, host, n);
        if (!w->path)
            return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_summary_open: out of memory");
        if (tdm_file_create_locked(w->path, &w->f) == 0)
            return TDM_OK;
        if (errno != EEXIST)
            return os_fail(errno, "tdm_summary_open", "create", w->path);
        free(w->path);
        w->path = NULL;
    }
    return tdm_fail(TDM_ERR_INVALID_STATE,
                    "tdm_summary_open: %d event files of this process and second in %s already",
                    MAX_TRIES, dir);
}

/* Writes the record built in w->record. */
static tdm_status write_record(tdm_summary_writer *w, const char *func)
{
    tdm_status s = tdm_pb_finish(&w->record, func);
    if (s != TDM_OK)
        return s;
    if (fwrite(w->record.data, 1, w->record.size, w->f) != w->record.size) {
        w->failed = 1;
        return os_fail(errno, func, "write", w->path);
    }
    return TDM_OK;
}

tdm_status tdm_summary_open(const char *dir, tdm_summary_writer **out)
{
    TDM_CHECK_ARG(out, "tdm_summary_open");
    *out = NULL;
    TDM_CHECK_ARG(dir, "tdm_summary_open");
    if (!dir[0])
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_summary_open: the folder's name is empty");
    if (tdm_make_dirs(dir, 0) != 0)
        return os_fail(errno, "tdm_summary_open", "make the folder", dir);
    tdm_summary_writer *w = calloc(1, sizeof *w);
    if (!w)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_summary_open: out of memory");
    tdm_pb_init(&w->record);
    double wall = tdm_host_wall_seconds();
    tdm_status s = create_file(dir, wall, w);
    if (s == TDM_OK) {
        tdm_event_version_record(&w->record, wall);
        s = write_record(w, "tdm_summary_open");
    }
    if (s == TDM_OK) {
        *out = w;
        return TDM_OK;
    }
    if (w->f) { /* a file without its first record is no event file: removed */
        fclose(w->f);
        w->f = NULL;
        tdm_file_remove(w->path);
    }
    tdm_summary_close(w);
    return s;
}

tdm_status tdm_summary_scalar(tdm_summary_writer *w, const char *tag, int64_t step, double value)
{
    TDM_CHECK_ARG(w, "tdm_summary_scalar");
    TDM_CHECK_ARG(tag, "tdm_summary_scalar");
    size_t length = strlen(tag);
    if (length == 0 || length > MAX_TAG)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_summary_scalar: a tag of %zu bytes; 1 to %d are allowed", length,
                        MAX_TAG);
    if (w->failed)
        return tdm_fail(TDM_ERR_INVALID_STATE, "tdm_summary_scalar: an earlier write to %s failed",
                        w->path);
    w->record.size = 0;
    tdm_event_scalar_record(&w->record, tdm_host_wall_seconds(), step, tag, (float)value);
    return write_record(w, "tdm_summary_scalar");
}

tdm_status tdm_summary_flush(tdm_summary_writer *w)
{
    TDM_CHECK_ARG(w, "tdm_summary_flush");
    if (w->failed)
        return tdm_fail(TDM_ERR_INVALID_STATE, "tdm_summary_flush: an earlier write to %s failed",
                        w->path);
    if (fflush(w->f) != 0) {
        w->failed = 1;
        return os_fail(errno, "tdm_summary_flush", "write", w->path);
    }
    return TDM_OK;
}

const char *tdm_summary_path(const tdm_summary_writer *w)
{
    return w ? w->path : NULL;
}

tdm_status tdm_summary_close(tdm_summary_writer *w)
{
    if (!w)
        return TDM_OK;
    tdm_status s = TDM_OK;
    if (w->f) {
        s = w->failed ? TDM_OK : tdm_summary_flush(w);
        if (fclose(w->f) != 0 && s == TDM_OK)
            s = os_fail(errno, "tdm_summary_close", "close", w->path);
    }
    tdm_pb_free(&w->record);
    free(w->path);
    free(w);
    return s;
}
