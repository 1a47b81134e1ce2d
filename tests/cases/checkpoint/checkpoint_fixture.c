/* The checkpoint case's shared set-up and checks (the case: checkpoint.c). */
#include "checkpoint_fixture.h"

char ckpt_root[PATH_CAP];

/* A path that does not fit fails the test. */
void ckpt_fits(int n)
{
    if (n < 0 || n >= PATH_CAP) {
        fprintf(stderr, "a scratch path is too long\n");
        exit(1);
    }
}

void ckpt_path_of(char *out, const char *dir, const char *name)
{
    ckpt_fits(snprintf(out, PATH_CAP, "%s/%s", dir, name));
}

void ckpt_make_subdir(char *out, const char *name)
{
    ckpt_path_of(out, ckpt_root, name);
    if (tdm_make_dir(out) != 0 && errno != EEXIST) {
        fprintf(stderr, "mkdir %s: %s\n", out, strerror(errno));
        test_failures++;
    }
}

void ckpt_final_name(char *out, const char *dir, uint64_t step)
{
    ckpt_fits(snprintf(out, PATH_CAP, "%s/ckpt-%020llu.tdm", dir, (unsigned long long)step));
}

/* The first place of needle in the size bytes at data (memmem, which Windows lacks). */
const unsigned char *ckpt_find_bytes(const unsigned char *data, size_t size, const void *needle,
                                     size_t n)
{
    for (size_t i = 0; n <= size && i <= size - n; i++)
        if (!memcmp(data + i, needle, n))
            return data + i;
    return NULL;
}

void ckpt_spit(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size)) {
        fprintf(stderr, "cannot write %s\n", path);
        test_failures++;
    }
    if (f)
        fclose(f);
}

int ckpt_match_entry(const char *name, void *user)
{
    const struct entry_search *e = user;
    if (!strstr(name, e->part))
        return 0;
    ckpt_path_of(e->out, e->dir, name);
    return 1;
}

/* The name of the first entry of dir containing `part`, into out. */
int ckpt_find_entry(const char *dir, const char *part, char *out)
{
    struct entry_search e = {dir, part, out};
    out[0] = '\0';
    tdm_dir_list(dir, ckpt_match_entry, &e);
    return out[0] != '\0';
}

void ckpt_commit_simple(const char *dir, uint64_t step)
{
    tdm_checkpoint_writer *w = NULL;
    CHECK_OK(tdm_checkpoint_writer_create(dir, step, &w));
    float x[3] = {(float)step, 1, 2};
    tdm_shape shape = TDM_SHAPE(3);
    CHECK_OK(tdm_checkpoint_add(w, "x", TDM_F32, &shape, x));
    CHECK_OK(tdm_checkpoint_add_u64(w, "global_step", step));
    CHECK_OK(tdm_checkpoint_commit(w));
}

/* Opening path fails with CORRUPT_DATA mentioning needle ("" for any message). */
void ckpt_expect_corrupt_(const char *path, const char *needle, int line)
{
    tdm_checkpoint *c = NULL;
    tdm_status s = tdm_checkpoint_open(path, &c);
    if (s != TDM_ERR_CORRUPT_DATA || !strstr(tdm_last_error(), needle) || c) {
        test_failures++;
        fprintf(stderr,
                "line %d: open of %s returned %s ('%s'), expected CORRUPT_DATA "
                "mentioning '%s'\n",
                line, path, tdm_status_str(s), tdm_last_error(), needle);
    }
    tdm_checkpoint_close(c);
}
