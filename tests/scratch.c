/* Scratch files for tests, through the platform room's files so that the Windows
 * build's tests use them too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratch.h"
#include "platform/tdm_files.h"
#include "platform/tdm_host.h"

static char root[SCRATCH_PATH];

_Noreturn static void stop(const char *what, const char *path)
{
    fprintf(stderr, "scratch: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

/* One entry of a folder being removed: its path is the folder's plus the name. */
static int remove_entry(const char *name, void *folder)
{
    char path[SCRATCH_PATH];
    snprintf(path, sizeof path, "%s/%s", (const char *)folder, name);
    return scratch_remove_tree(path);
}

int scratch_exists(const char *path)
{
    tdm_path_kind kind;
    return tdm_path_kind_of(path, 0, &kind) == 0 && kind != TDM_PATH_NONE;
}

int scratch_remove_tree(const char *path)
{
    tdm_path_kind kind;
    if (tdm_path_kind_of(path, 0, &kind) != 0)
        return -1;
    if (kind != TDM_PATH_DIR)
        return tdm_file_remove(path) < 0 ? -1 : 0;
    if (tdm_dir_list(path, remove_entry, (void *)path) != 0)
        return -1;
    return tdm_dir_remove(path) < 0 ? -1 : 0;
}

void scratch_remove(void)
{
    if (root[0] && scratch_remove_tree(root) != 0)
        fprintf(stderr, "scratch: cannot remove %s\n", root);
    root[0] = '\0';
}

int scratch_temp_dir(char *out, const char *prefix)
{
    /* A fresh name by the process id, a count and the clock, made or tried again. */
    static unsigned made;
    char tmp[SCRATCH_PATH];
    if (tdm_temp_folder(tmp, sizeof tmp) != 0)
        return -1;
    for (int attempt = 0; attempt < 100; attempt++) {
        if (snprintf(out, SCRATCH_PATH, "%s/%s-%ld-%u-%llx", tmp, prefix, tdm_host_process_id(),
                     made++,
                     (unsigned long long)(tdm_host_now_ns() % 0xffffffffu)) >= SCRATCH_PATH) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if (tdm_make_dir(out) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

const char *scratch_root(const char *prefix)
{
    if (scratch_temp_dir(root, prefix) != 0)
        stop("cannot create", root);
    atexit(scratch_remove);
    return root;
}

FILE *scratch_text_open(void)
{
    return tmpfile();
}

char *scratch_text_take(FILE *f)
{
    if (!f)
        return NULL;
    char *text = NULL;
    long n = -1;
    if (fflush(f) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text)
        text[n] = '\0';
    fclose(f);
    return text;
}

void scratch_path(char *out, const char *name, int dir)
{
    if (snprintf(out, SCRATCH_PATH, "%s/%s", root, name) >= SCRATCH_PATH)
        stop("path too long", name);
    if (dir && tdm_make_dir(out) != 0)
        stop("cannot create", out);
}

void scratch_checkpoint_name(char *out, const char *dir, uint64_t step)
{
    snprintf(out, SCRATCH_PATH, "%s/ckpt-%020llu.tdm", dir, (unsigned long long)step);
}

unsigned char *scratch_read(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)n + 1)) && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    if (f)
        fclose(f);
    if (data)
        data[n] = 0;
    if (size)
        *size = data ? (size_t)n : 0;
    return data;
}

void scratch_write(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        stop("cannot write", path);
}

struct count {
    const char *part;
    size_t n;
};

static int count_entry(const char *name, void *user)
{
    struct count *c = user;
    c->n += strstr(name, c->part) != NULL;
    return 0;
}

size_t scratch_count(const char *dir, const char *part)
{
    struct count c = {part, 0};
    tdm_dir_list(dir, count_entry, &c);
    return c.n;
}
