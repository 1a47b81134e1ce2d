/* The checkpoints of a directory: the newest complete one (tdm_checkpoint_latest) and
 * pruning old ones and stale temporary files (tdm_checkpoint_prune). A checkpoint is
 * complete when its final name, header and footer agree; the records between them
 * are only verified by tdm_checkpoint_open. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/checkpoint_dir.h"
#include "checkpoint/checkpoint_format.h"
#include "checkpoint/checkpoint_files.h"
#include "base/error.h"
#include "tandem/checkpoint.h"

/* What a listing of the directory found: final names, and temporary names when asked. */
typedef struct scan {
    tdm_ckpt_found *finals;
    size_t final_count, final_capacity;
    char **temps;
    size_t temp_count, temp_capacity;
    int want_temps;
    int out_of_memory;
} scan;

static int grow(void **items, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return 0;
    size_t bigger = *capacity ? *capacity * 2 : 16;
    void *p = realloc(*items, bigger * size);
    if (!p)
        return -1;
    *items = p;
    *capacity = bigger;
    return 0;
}

static int collect(const char *name, void *user)
{
    scan *sc = user;
    uint64_t step;
    if (tdm_ckpt_parse_final_name(name, &step)) {
        if (grow((void **)&sc->finals, &sc->final_capacity, sc->final_count, sizeof *sc->finals)) {
            sc->out_of_memory = 1;
            return 1;
        }
        tdm_ckpt_found *f = &sc->finals[sc->final_count++];
        f->step = step;
        memcpy(f->name, name, sizeof f->name);
    } else if (sc->want_temps && tdm_ckpt_is_temp_name(name)) {
        char *copy = strdup(name);
        if (!copy ||
            grow((void **)&sc->temps, &sc->temp_capacity, sc->temp_count, sizeof *sc->temps)) {
            free(copy);
            sc->out_of_memory = 1;
            return 1;
        }
        sc->temps[sc->temp_count++] = copy;
    }
    return 0;
}

static int newest_first(const void *a, const void *b)
{
    uint64_t x = ((const tdm_ckpt_found *)a)->step, y = ((const tdm_ckpt_found *)b)->step;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void scan_free(scan *sc)
{
    for (size_t i = 0; i < sc->temp_count; i++)
        free(sc->temps[i]);
    free(sc->temps);
    free(sc->finals);
}

/* Lists dir, final names sorted newest first. */
static tdm_status list(const char *dir, const char *func, scan *sc)
{
    tdm_status s = tdm_ckpt_os_list(dir, func, collect, sc);
    if (s == TDM_OK && sc->out_of_memory)
        s = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    if (s != TDM_OK)
        return s;
    if (sc->final_count > 1) /* qsort's array may not be NULL, even for no elements */
        qsort(sc->finals, sc->final_count, sizeof *sc->finals, newest_first);
    return TDM_OK;
}

tdm_status tdm_ckpt_list_final(const char *dir, const char *func, tdm_ckpt_found **found,
                               size_t *count)
{
    scan sc = {0};
    tdm_status s = list(dir, func, &sc);
    *found = s == TDM_OK ? sc.finals : NULL;
    *count = s == TDM_OK ? sc.final_count : 0;
    if (s != TDM_OK)
        scan_free(&sc);
    return s;
}

tdm_ckpt_state tdm_ckpt_file_state(const char *path, uint64_t step)
{
    unsigned char head[TDM_CKPT_HEADER_SIZE], tail[TDM_CKPT_FOOTER_SIZE];
    size_t head_got = 0, tail_got = 0;
    uint64_t size = 0, header_step = 0, records = 0, footer_size = 0;
    uint32_t version = 0;
    if (tdm_ckpt_os_read_ends(path, head, sizeof head, &head_got, tail, sizeof tail, &tail_got,
                              &size) != 0)
        return TDM_CKPT_INCOMPLETE;
    tdm_ckpt_header_check h = tdm_ckpt_check_header(head, head_got, &version, &header_step);
    if (h == TDM_CKPT_HEADER_NEWER)
        return TDM_CKPT_NEWER;
    return h == TDM_CKPT_HEADER_OK && header_step == step && tail_got == sizeof tail &&
                   tdm_ckpt_check_footer(tail, &records, &footer_size) == 0 && footer_size == size
               ? TDM_CKPT_COMPLETE
               : TDM_CKPT_INCOMPLETE;
}

/* A checkpoint of a newer version counts as complete: this build cannot judge it. */
static int complete(const char *path, uint64_t step)
{
    return tdm_ckpt_file_state(path, step) != TDM_CKPT_INCOMPLETE;
}

tdm_status tdm_checkpoint_latest(const char *dir, char *path, size_t path_size, uint64_t *step)
{
    static const char func[] = "tdm_checkpoint_latest";
    TDM_CHECK_ARG(dir, func);
    TDM_CHECK_ARG(path, func);
    TDM_CHECK_ARG(step, func);
    scan sc = {0};
    tdm_status s = list(dir, func, &sc);
    if (s == TDM_ERR_NOT_FOUND)
        s = tdm_fail_context(s, "%s: no checkpoint in %s", func, dir);
    for (size_t i = 0; s == TDM_OK && i < sc.final_count; i++) {
        char *p = tdm_ckpt_join(dir, sc.finals[i].name);
        if (!p) {
            s = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
            break;
        }
        if (complete(p, sc.finals[i].step)) {
            size_t len = strlen(p);
            if (len >= path_size)
                s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                             "%s: the path %s needs %zu bytes, path_size is %zu", func, p, len + 1,
                             path_size);
            else {
                memcpy(path, p, len + 1);
                *step = sc.finals[i].step;
            }
            free(p);
            scan_free(&sc);
            return s;
        }
        free(p);
    }
    if (s == TDM_OK)
        s = sc.final_count
                ? tdm_fail(TDM_ERR_NOT_FOUND,
                           "%s: no complete checkpoint in %s: its %zu file(s) named like "
                           "checkpoints are truncated or damaged",
                           func, dir, sc.final_count)
                : tdm_fail(TDM_ERR_NOT_FOUND, "%s: no complete checkpoint in %s", func, dir);
    scan_free(&sc);
    return s;
}

/* Removes dir/name; the first failure is kept in *s. 1 when removed. */
static int remove_one(const char *dir, const char *name, int temp, const char *func, tdm_status *s)
{
    char *p = tdm_ckpt_join(dir, name);
    if (!p) {
        if (*s == TDM_OK)
            *s = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
        return 0;
    }
    int rc = temp ? tdm_ckpt_os_remove_if_unlocked(p) : tdm_ckpt_os_remove(p);
    if (rc < 0 && *s == TDM_OK)
        *s = tdm_ckpt_os_fail(errno, func, "remove", p);
    free(p);
    return rc > 0;
}

tdm_status tdm_checkpoint_prune(const char *dir, size_t keep)
{
    static const char func[] = "tdm_checkpoint_prune";
    TDM_CHECK_ARG(dir, func);
    if (keep < 1)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: keep is 0; at least the newest checkpoint is kept", func);
    scan sc = {.want_temps = 1};
    tdm_status s = list(dir, func, &sc);
    size_t kept = 0, removed = 0;
    for (size_t i = 0; i < sc.final_count; i++) {
        char *p = tdm_ckpt_join(dir, sc.finals[i].name);
        if (!p) {
            s = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
            break;
        }
        int whole = complete(p, sc.finals[i].step);
        free(p);
        if (whole && kept < keep)
            kept++;
        else if (whole)
            removed += (size_t)remove_one(dir, sc.finals[i].name, 0, func, &s);
    }
    for (size_t i = 0; i < sc.temp_count; i++)
        removed += (size_t)remove_one(dir, sc.temps[i], 1, func, &s);
    scan_free(&sc);
    if (removed) {
        tdm_status synced = tdm_ckpt_os_sync_dir(dir, func);
        if (s == TDM_OK)
            s = synced;
    }
    return s;
}
