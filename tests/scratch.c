/* Scratch files for tests. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scratch.h"

static char root[SCRATCH_PATH];

static void stop(const char *what, const char *path)
{
    fprintf(stderr, "scratch: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

void scratch_remove(void)
{
    if (root[0] && nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "scratch: cannot remove %s\n", root);
    root[0] = '\0';
}

const char *scratch_root(const char *prefix)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    if (!mkdtemp(root))
        stop("cannot create", root);
    atexit(scratch_remove);
    return root;
}

void scratch_path(char *out, const char *name, int dir)
{
    if (snprintf(out, SCRATCH_PATH, "%s/%s", root, name) >= SCRATCH_PATH)
        stop("path too long", name);
    if (dir && mkdir(out, 0777) != 0)
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
    *size = data ? (size_t)n : 0;
    return data;
}

void scratch_write(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        stop("cannot write", path);
}

size_t scratch_count(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strstr(e->d_name, part) != NULL;
    if (d)
        closedir(d);
    return n;
}
