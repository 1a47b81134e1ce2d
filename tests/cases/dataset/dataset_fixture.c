/* The dataset case's shared set-up and checks (the case: dataset.c). */
#include "dataset_fixture.h"

const char *ds_tmp_dir; /* the scratch root, removed at exit */
char ds_created[MAX_FILES][SCRATCH_PATH];
size_t ds_created_count;

/* A path in the scratch directory, kept for the whole case. */
const char *ds_tmp_path(const char *name)
{
    if (ds_created_count == MAX_FILES) {
        fprintf(stderr, "too many scratch files\n");
        exit(1);
    }
    char *path = ds_created[ds_created_count++];
    snprintf(path, sizeof ds_created[0], "%s/%s", ds_tmp_dir, name);
    return path;
}

const char *ds_write_bytes(const char *name, const void *bytes, size_t size)
{
    const char *path = ds_tmp_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    return path;
}

const char *ds_write_text(const char *name, const char *text)
{
    return ds_write_bytes(name, text, strlen(text));
}

const char *ds_write_gzip(const char *name, const void *bytes, size_t size)
{
    const char *path = ds_tmp_path(name);
    gzFile f = gzopen(path, "wb");
    if (!f || gzwrite(f, bytes, (unsigned)size) != (int)size || gzclose(f) != Z_OK) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    return path;
}
