/* Checkpoint files: the documented byte layout, round trips of f32/i32 tensors of
 * every rank (scalar and empty included) and u64 values, latest and prune over a
 * directory with temporary, truncated and misnamed files, every kind of damage
 * (each single flipped byte, each truncation, foreign files, a newer version, wrong
 * dtype, shape or name on read), the writer's failure paths (abort, a repeated name,
 * a temporary file lost before commit, write errors under RLIMIT_FSIZE), and
 * variables on the reference backend split into 3 logical devices: mirrored and
 * sync-on-read SUM/MEAN variables saved, changed and restored. Scratch directories
 * go under $TMPDIR (or /tmp) and are removed at the end. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>
#ifndef _WIN32
#include <signal.h>       /* SIGXFSZ */
#include <sys/resource.h> /* RLIMIT_FSIZE */
#endif

#include "harness.h"
#include "platform/tdm_files.h"
#include "scratch.h"

#define PATH_CAP 4096

static char root[PATH_CAP];

/* ---- files ---- */

/* A path that does not fit fails the test. */
static void fits(int n)
{
    if (n < 0 || n >= PATH_CAP) {
        fprintf(stderr, "a scratch path is too long\n");
        exit(1);
    }
}

static void path_of(char *out, const char *dir, const char *name)
{
    fits(snprintf(out, PATH_CAP, "%s/%s", dir, name));
}

static void make_subdir(char *out, const char *name)
{
    path_of(out, root, name);
    if (tdm_make_dir(out) != 0 && errno != EEXIST) {
        fprintf(stderr, "mkdir %s: %s\n", out, strerror(errno));
        test_failures++;
    }
}

static void final_name(char *out, const char *dir, uint64_t step)
{
    fits(snprintf(out, PATH_CAP, "%s/ckpt-%020llu.tdm", dir, (unsigned long long)step));
}

/* The first place of needle in the size bytes at data (memmem, which Windows lacks). */
static const unsigned char *find_bytes(const unsigned char *data, size_t size, const void *needle,
                                       size_t n)
{
    for (size_t i = 0; n <= size && i <= size - n; i++)
        if (!memcmp(data + i, needle, n))
            return data + i;
    return NULL;
}

static void spit(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size)) {
        fprintf(stderr, "cannot write %s\n", path);
        test_failures++;
    }
    if (f)
        fclose(f);
}

struct entry_search {
    const char *dir, *part;
    char *out;
};

static int match_entry(const char *name, void *user)
{
    const struct entry_search *e = user;
    if (!strstr(name, e->part))
        return 0;
    path_of(e->out, e->dir, name);
    return 1;
}

/* The name of the first entry of dir containing `part`, into out. */
static int find_entry(const char *dir, const char *part, char *out)
{
    struct entry_search e = {dir, part, out};
    out[0] = '\0';
    tdm_dir_list(dir, match_entry, &e);
    return out[0] != '\0';
}

/* ---- checkpoints ---- */

typedef struct tensor {
    const char *name;
    tdm_dtype dtype;
    tdm_shape shape;
    void *data; /* shape's count of 4-byte elements */
} tensor;

static void commit_simple(const char *dir, uint64_t step)
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
static void expect_corrupt_(const char *path, const char *needle, int line)
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
#define EXPECT_CORRUPT(path, needle) expect_corrupt_(path, needle, __LINE__)

/* ---- the byte layout of docs/CHECKPOINTS.md ---- */

static size_t put_bytes(unsigned char *p, size_t at, const void *src, size_t n)
{
    memcpy(p + at, src, n);
    return at + n;
}

static size_t put_le(unsigned char *p, size_t at, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[at + (size_t)i] = (unsigned char)(v >> (8 * i));
    return at + (size_t)bytes;
}

static size_t put_crc(unsigned char *p, size_t at, size_t from)
{
    return put_le(p, at, crc32(0, p + from, (uInt)(at - from)), 4);
}

static void test_format_bytes(void)
{
    char dir[PATH_CAP], path[PATH_CAP];
    make_subdir(dir, "format");
    uint64_t step = 0x0102030405060708ull;
    tdm_checkpoint_writer *w = NULL;
    CHECK_OK(tdm_checkpoint_writer_create(dir, step, &w));
    int32_t ab[2] = {1, -2};
    float c = -1.5f;
    tdm_shape shape = TDM_SHAPE(2, 1), scalar = TDM_SCALAR;
    CHECK_OK(tdm_checkpoint_add(w, "ab", TDM_I32, &shape, ab));
    CHECK_OK(tdm_checkpoint_add(w, "c", TDM_F32, &scalar, &c));
    CHECK_OK(tdm_checkpoint_add_u64(w, "seed", 0xA1B2C3D4E5F60718ull));
    CHECK_OK(tdm_checkpoint_commit(w));

    unsigned char want[256];
    size_t at = put_bytes(want, 0, "\x89TDMCKPT", 8);
    at = put_le(want, at, 1, 4);
    at = put_le(want, at, step, 8);
    at = put_crc(want, at, 0);
    size_t rec = at; /* "ab": i32 [2, 1] */
    at = put_bytes(want, at, "TREC", 4);
    at = put_le(want, at, 2, 2);
    at = put_le(want, at, 2, 1); /* i32 */
    at = put_le(want, at, 2, 1); /* rank */
    at = put_bytes(want, at, "ab", 2);
    at = put_le(want, at, 2, 8);
    at = put_le(want, at, 1, 8);
    at = put_le(want, at, 8, 8);
    at = put_le(want, at, 1, 4);
    at = put_le(want, at, 0xFFFFFFFEu, 4);
    at = put_crc(want, at, rec);
    rec = at; /* "c": f32 scalar */
    at = put_bytes(want, at, "TREC", 4);
    at = put_le(want, at, 1, 2);
    at = put_le(want, at, 1, 1);
    at = put_le(want, at, 0, 1);
    at = put_bytes(want, at, "c", 1);
    at = put_le(want, at, 4, 8);
    at = put_le(want, at, 0xBFC00000u, 4); /* -1.5f */
    at = put_crc(want, at, rec);
    rec = at; /* "seed": u64 */
    at = put_bytes(want, at, "TREC", 4);
    at = put_le(want, at, 4, 2);
    at = put_le(want, at, 3, 1);
    at = put_le(want, at, 0, 1);
    at = put_bytes(want, at, "seed", 4);
    at = put_le(want, at, 8, 8);
    at = put_le(want, at, 0xA1B2C3D4E5F60718ull, 8);
    at = put_crc(want, at, rec);
    size_t footer = at;
    at = put_bytes(want, at, "TEND", 4);
    at = put_le(want, at, 3, 8);
    at = put_le(want, at, at + 8 + 8 + 4, 8);
    at = put_bytes(want, at, "TDMCKEND", 8);
    at = put_crc(want, at, footer);

    final_name(path, dir, step);
    size_t size = 0;
    unsigned char *got = scratch_read(path, &size);
    CHECK(got && size == at && !memcmp(got, want, at));
    free(got);
}

/* ---- round trips ---- */

static void test_round_trip(void)
{
    char dir[PATH_CAP], path[PATH_CAP];
    path_of(dir, root, "round-trip"); /* created by the writer */
    float scalar = 3.25f, vec[5], mat[2][3], four[2][3][4][5];
    static float big[100003];
    int32_t ints[3][2] = {{0, -1}, {INT32_MIN, INT32_MAX}, {7, 123456789}};
    test_random_bytes(vec, sizeof vec, 1);
    test_random_bytes(mat, sizeof mat, 2);
    test_random_bytes(four, sizeof four, 3);
    test_random_bytes(big, sizeof big, 4);
    uint32_t specials[4] = {0x7FC00001u /* a NaN payload */, 0x80000000u /* -0 */,
                            0x00000001u /* denormal */, 0xFF800000u /* -inf */};
    memcpy(vec, specials, sizeof specials);
    char long_name[256];
    memset(long_name, 'n', 255);
    long_name[255] = '\0';
    tensor ts[] = {
        {"scalar", TDM_F32, TDM_SCALAR, &scalar},   {"dense/kernel:0", TDM_F32, TDM_SHAPE(5), vec},
        {"matrix", TDM_F32, TDM_SHAPE(2, 3), mat},  {"empty", TDM_F32, TDM_SHAPE(2, 0, 3), NULL},
        {"empty_i32", TDM_I32, TDM_SHAPE(0), NULL}, {"rank4", TDM_F32, TDM_SHAPE(2, 3, 4, 5), four},
        {"labels", TDM_I32, TDM_SHAPE(3, 2), ints}, {long_name, TDM_F32, TDM_SHAPE(100003), big},
    };
    size_t nt = sizeof ts / sizeof ts[0];
    struct {
        const char *name;
        uint64_t value;
    } us[] = {{"global_step", 1000}, {"rng_seed", UINT64_MAX}, {"input_position", 0}};

    tdm_checkpoint_writer *w = NULL;
    CHECK_OK(tdm_checkpoint_writer_create(dir, 7, &w));
    if (!w)
        return;
    for (size_t i = 0; i < nt; i++) {
        CHECK_OK(tdm_checkpoint_add(w, ts[i].name, ts[i].dtype, &ts[i].shape, ts[i].data));
        if (i < 3)
            CHECK_OK(tdm_checkpoint_add_u64(w, us[i].name, us[i].value));
    }
    CHECK_OK(tdm_checkpoint_commit(w));

    uint64_t step = 0;
    CHECK_OK(tdm_checkpoint_latest(dir, path, sizeof path, &step));
    CHECK(step == 7);
    char want_path[PATH_CAP];
    final_name(want_path, dir, 7);
    CHECK(!strcmp(path, want_path));
    CHECK(scratch_count(dir, "") == 1); /* no temporary file left */

    tdm_checkpoint *c = NULL;
    CHECK_OK(tdm_checkpoint_open(path, &c));
    if (!c)
        return;
    CHECK(tdm_checkpoint_step(c) == 7);
    CHECK(tdm_checkpoint_count(c) == nt + 3);
    CHECK(tdm_checkpoint_name(c, nt + 3) == NULL);
    /* Names in the order they were added. */
    size_t k = 0;
    for (size_t i = 0; i < nt; i++) {
        const char *n = tdm_checkpoint_name(c, k++);
        CHECK(n && !strcmp(n, ts[i].name));
        if (i < 3) {
            n = tdm_checkpoint_name(c, k++);
            CHECK(n && !strcmp(n, us[i].name));
        }
    }
    for (size_t i = 0; i < nt; i++) {
        size_t bytes = tdm_shape_count(&ts[i].shape) * 4;
        unsigned char *got = malloc(bytes ? bytes : 1);
        CHECK_OK(tdm_checkpoint_read(c, ts[i].name, ts[i].dtype, &ts[i].shape, bytes ? got : NULL,
                                     bytes));
        CHECK(!bytes || !memcmp(got, ts[i].data, bytes));
        free(got);
    }
    for (size_t i = 0; i < 3; i++) {
        uint64_t v = 1;
        CHECK_OK(tdm_checkpoint_read_u64(c, us[i].name, &v));
        CHECK(v == us[i].value);
    }
    tdm_checkpoint_close(c);
    tdm_checkpoint_close(NULL);
}

/* ---- latest and prune ---- */

static void test_latest_prune(void)
{
    char dir[PATH_CAP], path[PATH_CAP], other[PATH_CAP];
    uint64_t step = 0;
    path_of(path, root, "missing");
    CHECK_FAILS(tdm_checkpoint_latest(path, other, sizeof other, &step), TDM_ERR_NOT_FOUND,
                "missing");
    make_subdir(dir, "latest");
    CHECK_FAILS(tdm_checkpoint_latest(dir, path, sizeof path, &step), TDM_ERR_NOT_FOUND,
                "no complete checkpoint");

    static const uint64_t steps[] = {3, 10, 2, 11};
    for (size_t i = 0; i < 4; i++)
        commit_simple(dir, steps[i]);
    CHECK_OK(tdm_checkpoint_latest(dir, path, sizeof path, &step));
    CHECK(step == 11);
    final_name(other, dir, 11);
    CHECK(!strcmp(path, other));
    CHECK_FAILS(tdm_checkpoint_latest(dir, path, strlen(other), &step), TDM_ERR_INVALID_ARGUMENT,
                "path_size");
    CHECK_OK(tdm_checkpoint_latest(dir, path, strlen(other) + 1, &step));

    /* Newer but not complete: a writer still open, a copy under a temporary name, a
     * truncated file and a renamed one under final names, stray names. */
    tdm_checkpoint_writer *open_writer = NULL;
    CHECK_OK(tdm_checkpoint_writer_create(dir, 50, &open_writer));
    commit_simple(dir, 40);
    size_t size = 0;
    final_name(other, dir, 40);
    unsigned char *bytes = scratch_read(other, &size);
    CHECK(bytes && size > 60);
    CHECK(remove(other) == 0);
    path_of(path, dir, ".ckpt-00000000000000000060.tdm.tmp-crashed");
    spit(path, bytes, size);
    final_name(path, dir, 99);
    spit(path, bytes, size - 1);
    final_name(path, dir, 98); /* complete, but its header says step 40 */
    spit(path, bytes, size);
    final_name(path, dir, 97); /* ends inside the header */
    spit(path, bytes, 10);
    path_of(path, dir, "ckpt-123.tdm");
    spit(path, bytes, size);
    path_of(path, dir, "notes.txt");
    spit(path, "hello", 5);
    free(bytes);
    CHECK_OK(tdm_checkpoint_latest(dir, path, sizeof path, &step));
    CHECK(step == 11);

    /* A newer format version, its header whole, counts: opening it says which version
     * it needs. (A version field with a flipped bit fails the header's CRC: damage.) */
    char newer[PATH_CAP];
    path_of(newer, root, "newer");
    CHECK(tdm_make_dir(newer) == 0);
    commit_simple(newer, 5);
    final_name(path, newer, 5);
    bytes = scratch_read(path, &size);
    if (bytes) {
        bytes[8] = 2;
        put_crc(bytes, 20, 0);
        final_name(path, newer, 6);
        spit(path, bytes, size);
        free(bytes);
    }
    CHECK_OK(tdm_checkpoint_latest(newer, path, sizeof path, &step));
    CHECK(step == 6);
    EXPECT_CORRUPT(path, "version 2");

    /* Prune: the newest two complete checkpoints stay, damaged files stay, the stale
     * temporary file goes, the open writer's stays. */
    CHECK_FAILS(tdm_checkpoint_prune(dir, 0), TDM_ERR_INVALID_ARGUMENT, "keep");
    CHECK_OK(tdm_checkpoint_prune(dir, 2));
    for (uint64_t s = 0; s < 100; s++) {
        final_name(path, dir, s);
        int want = s == 10 || s == 11 || s == 97 || s == 98 || s == 99;
        if (scratch_exists(path) != want) {
            test_failures++;
            fprintf(stderr, "after prune: step %llu %s\n", (unsigned long long)s,
                    want ? "is gone" : "is still there");
        }
    }
    CHECK(scratch_count(dir, "crashed") == 0);
    CHECK(scratch_count(dir, ".tmp-") == 1);
    path_of(path, dir, "ckpt-123.tdm");
    CHECK(scratch_exists(path));
    CHECK_OK(tdm_checkpoint_latest(dir, path, sizeof path, &step));
    CHECK(step == 11);
    CHECK_OK(tdm_checkpoint_prune(dir, 1));
    final_name(path, dir, 10);
    CHECK(!scratch_exists(path));
    CHECK_OK(tdm_checkpoint_prune(dir, 5)); /* fewer than keep: nothing to do */
    final_name(path, dir, 11);
    CHECK(scratch_exists(path));

    /* The open writer still commits; then it is the newest. */
    float x = 1;
    tdm_shape scalar = TDM_SCALAR;
    CHECK_OK(tdm_checkpoint_add(open_writer, "x", TDM_F32, &scalar, &x));
    CHECK_OK(tdm_checkpoint_commit(open_writer));
    CHECK_OK(tdm_checkpoint_latest(dir, path, sizeof path, &step));
    CHECK(step == 50);
    CHECK(scratch_count(dir, ".tmp-") == 0);

    /* The same step again replaces the checkpoint. */
    tdm_checkpoint_writer *w = NULL;
    CHECK_OK(tdm_checkpoint_writer_create(dir, 50, &w));
    CHECK_OK(tdm_checkpoint_add_u64(w, "again", 2));
    CHECK_OK(tdm_checkpoint_commit(w));
    tdm_checkpoint *c = NULL;
    CHECK_OK(tdm_checkpoint_open(path, &c));
    uint64_t v = 0;
    CHECK(c && tdm_checkpoint_count(c) == 1);
    CHECK_OK(tdm_checkpoint_read_u64(c, "again", &v));
    CHECK(v == 2);
    tdm_checkpoint_close(c);
    path_of(path, root, "missing");
    CHECK_FAILS(tdm_checkpoint_prune(path, 1), TDM_ERR_NOT_FOUND, "missing");
}

/* ---- damage ---- */

/* A checkpoint with two f32 tensors and a u64 at dir/ckpt-1; its path into path. */
static void write_victim(const char *dir, char *path, float *beta)
{
    tdm_checkpoint_writer *w = NULL;
    CHECK_OK(tdm_checkpoint_writer_create(dir, 1, &w));
    float alpha[4] = {1, 2, 3, 4};
    for (int i = 0; i < 9; i++)
        beta[i] = 1000.5f + (float)i;
    tdm_shape s4 = TDM_SHAPE(4), s33 = TDM_SHAPE(3, 3);
    CHECK_OK(tdm_checkpoint_add(w, "alpha", TDM_F32, &s4, alpha));
    CHECK_OK(tdm_checkpoint_add(w, "beta", TDM_F32, &s33, beta));
    CHECK_OK(tdm_checkpoint_add_u64(w, "global_step", 1));
    CHECK_OK(tdm_checkpoint_commit(w));
    final_name(path, dir, 1);
}

static void test_corruption(void)
{
    char dir[PATH_CAP], path[PATH_CAP], bad[PATH_CAP];
    make_subdir(dir, "damage");
    float beta[9];
    write_victim(dir, path, beta);
    size_t size = 0;
    unsigned char *good = scratch_read(path, &size);
    if (!good)
        return;
    unsigned char *copy = malloc(size);
    const unsigned char *beta_at = find_bytes(good, size, beta, sizeof beta);
    CHECK(beta_at != NULL);
    size_t beta_data = beta_at ? (size_t)(beta_at - good) : 0;
    path_of(bad, dir, "bad.tdm");

    /* A flipped byte in beta's data: the CRC names beta. */
    memcpy(copy, good, size);
    copy[beta_data + 17] ^= 0x10;
    spit(bad, copy, size);
    EXPECT_CORRUPT(bad, "tensor 'beta'");
    EXPECT_CORRUPT(bad, "CRC-32");
    /* Every single flipped bit, anywhere, is refused. */
    for (size_t i = 0; i < size; i++)
        for (int bit = 0; bit < 8; bit += 7) {
            memcpy(copy, good, size);
            copy[i] ^= (unsigned char)(1u << bit);
            spit(bad, copy, size);
            tdm_checkpoint *c = NULL;
            tdm_status s = tdm_checkpoint_open(bad, &c);
            if (s != TDM_ERR_CORRUPT_DATA) {
                test_failures++;
                fprintf(stderr, "byte %zu bit %d flipped: open returned %s\n", i, bit,
                        tdm_status_str(s));
            }
            tdm_checkpoint_close(c);
        }

    /* Every truncation is refused; inside beta, the message names beta; latest never
     * picks a truncated file. */
    char trunc_dir[PATH_CAP], trunc[PATH_CAP], latest[PATH_CAP];
    make_subdir(trunc_dir, "truncated");
    commit_simple(trunc_dir, 1);
    final_name(trunc, trunc_dir, 2);
    for (size_t n = 0; n < size; n++) {
        spit(trunc, good, n);
        tdm_checkpoint *c = NULL;
        tdm_status s = tdm_checkpoint_open(trunc, &c);
        int in_beta = n > beta_data && n < beta_data + sizeof beta;
        if (s != TDM_ERR_CORRUPT_DATA || (in_beta && !strstr(tdm_last_error(), "'beta'")) ||
            (n >= 8 && !strstr(tdm_last_error(), "truncated"))) {
            test_failures++;
            fprintf(stderr, "truncated to %zu bytes: %s: %s\n", n, tdm_status_str(s),
                    tdm_last_error());
        }
        tdm_checkpoint_close(c);
        uint64_t step = 0;
        CHECK_OK(tdm_checkpoint_latest(trunc_dir, latest, sizeof latest, &step));
        if (step != 1) {
            test_failures++;
            fprintf(stderr, "truncated to %zu bytes: latest picked it\n", n);
        }
    }
    spit(trunc, good, beta_data + 5);
    EXPECT_CORRUPT(trunc, "truncated inside tensor 'beta'");
    spit(trunc, good, size - 1);
    EXPECT_CORRUPT(trunc, "footer");
    memcpy(copy, good, size);
    spit(trunc, copy, size);
    FILE *tail = fopen(trunc, "ab"); /* trailing bytes */
    CHECK(tail && fwrite("\0\0\0", 1, 3, tail) == 3 && fclose(tail) == 0);
    EXPECT_CORRUPT(trunc, "bytes");

    /* Foreign files, long and short; an empty file. */
    spit(bad, "hello, this is not a checkpoint at all", 38);
    EXPECT_CORRUPT(bad, "not a tandem checkpoint");
    spit(bad, "abc", 3);
    EXPECT_CORRUPT(bad, "not a tandem checkpoint");
    spit(bad, "", 0);
    EXPECT_CORRUPT(bad, "truncated");

    /* A newer format version, its header whole, named with ours; the same version
     * field with its header's CRC left as it was: a flipped bit, so damage. */
    memcpy(copy, good, size);
    copy[8] = 2;
    put_crc(copy, 20, 0);
    spit(bad, copy, size);
    EXPECT_CORRUPT(bad, "version 2");
    EXPECT_CORRUPT(bad, "version 1");
    memcpy(copy, good, size);
    copy[8] ^= 2;
    spit(bad, copy, size);
    EXPECT_CORRUPT(bad, "the header is damaged");

    path_of(bad, dir, "no-such-file.tdm");
    tdm_checkpoint *c = NULL;
    CHECK_FAILS(tdm_checkpoint_open(bad, &c), TDM_ERR_NOT_FOUND, "no-such-file.tdm");
    CHECK(c == NULL);
    CHECK_FAILS(tdm_checkpoint_open(dir, &c), TDM_ERR_NOT_FOUND, "damage");

    /* Wrong dtype, shape or name on read. */
    CHECK_OK(tdm_checkpoint_open(path, &c));
    if (c) {
        float out[9];
        int32_t iout[4];
        uint64_t v = 0;
        tdm_shape s4 = TDM_SHAPE(4), s5 = TDM_SHAPE(5), s22 = TDM_SHAPE(2, 2),
                  s33 = TDM_SHAPE(3, 3), scalar = TDM_SCALAR;
        CHECK_OK(tdm_checkpoint_read(c, "beta", TDM_F32, &s33, out, sizeof out));
        CHECK(!memcmp(out, beta, sizeof beta));
        CHECK_FAILS(tdm_checkpoint_read(c, "alpha", TDM_F32, &s5, out, 20), TDM_ERR_CORRUPT_DATA,
                    "tensor 'alpha' in checkpoint");
        CHECK_FAILS(tdm_checkpoint_read(c, "alpha", TDM_F32, &s5, out, 20), TDM_ERR_CORRUPT_DATA,
                    "is f32 [4], expected f32 [5]");
        CHECK_FAILS(tdm_checkpoint_read(c, "alpha", TDM_F32, &s22, out, 16), TDM_ERR_CORRUPT_DATA,
                    "expected f32 [2, 2]");
        CHECK_FAILS(tdm_checkpoint_read(c, "alpha", TDM_I32, &s4, iout, 16), TDM_ERR_CORRUPT_DATA,
                    "is f32 [4], expected i32 [4]");
        CHECK_FAILS(tdm_checkpoint_read(c, "global_step", TDM_F32, &scalar, out, 4),
                    TDM_ERR_CORRUPT_DATA, "global_step");
        CHECK_FAILS(tdm_checkpoint_read_u64(c, "alpha", &v), TDM_ERR_CORRUPT_DATA,
                    "expected a u64 value");
        CHECK_FAILS(tdm_checkpoint_read(c, "gamma", TDM_F32, &s4, out, 16), TDM_ERR_NOT_FOUND,
                    "'gamma'");
        CHECK_FAILS(tdm_checkpoint_read(c, "gamma", TDM_F32, &s4, out, 16), TDM_ERR_NOT_FOUND,
                    path);
        CHECK_FAILS(tdm_checkpoint_read_u64(c, "seed", &v), TDM_ERR_NOT_FOUND, "'seed'");
        CHECK_FAILS(tdm_checkpoint_read(c, "alpha", TDM_F32, &s4, out, 12),
                    TDM_ERR_INVALID_ARGUMENT, "size");
        CHECK_FAILS(tdm_checkpoint_read(c, "alpha", (tdm_dtype)9, &s4, out, 16),
                    TDM_ERR_INVALID_ARGUMENT, "dtype");
        CHECK_OK(tdm_checkpoint_read_u64(c, "global_step", &v));
        CHECK(v == 1);
        tdm_dtype dtype = TDM_I32;
        tdm_shape shape = TDM_SCALAR;
        CHECK_OK(tdm_checkpoint_tensor_shape(c, "beta", &dtype, &shape));
        CHECK(dtype == TDM_F32 && shape.rank == 2 && shape.dims[0] == 3 && shape.dims[1] == 3);
        CHECK_FAILS(tdm_checkpoint_tensor_shape(c, "global_step", &dtype, &shape),
                    TDM_ERR_CORRUPT_DATA, "is a u64 value, not a tensor");
        CHECK_FAILS(tdm_checkpoint_tensor_shape(c, "gamma", &dtype, &shape), TDM_ERR_NOT_FOUND,
                    "'gamma'");
        tdm_checkpoint_close(c);
    }
    free(copy);
    free(good);
}

/* ---- the writer's failure paths ---- */

static void test_writer_failures(void)
{
    char dir[PATH_CAP], path[PATH_CAP];
    make_subdir(dir, "writer");
    tdm_checkpoint_writer *w = NULL;
    float x[4] = {1, 2, 3, 4};
    tdm_shape s4 = TDM_SHAPE(4), s0 = TDM_SHAPE(0);

    /* Abort removes the temporary file. */
    CHECK_OK(tdm_checkpoint_writer_create(dir, 1, &w));
    CHECK(scratch_count(dir, ".tmp-") == 1);
    CHECK_OK(tdm_checkpoint_add(w, "x", TDM_F32, &s4, x));
    tdm_checkpoint_writer_abort(w);
    CHECK(scratch_count(dir, "") == 0);
    tdm_checkpoint_writer_abort(NULL);

    /* A repeated name fails and writes nothing; after abort nothing is left. */
    CHECK_OK(tdm_checkpoint_writer_create(dir, 2, &w));
    CHECK_OK(tdm_checkpoint_add(w, "x", TDM_F32, &s4, x));
    CHECK_FAILS(tdm_checkpoint_add(w, "x", TDM_F32, &s4, x), TDM_ERR_INVALID_ARGUMENT,
                "'x' is already in checkpoint");
    CHECK_FAILS(tdm_checkpoint_add_u64(w, "x", 3), TDM_ERR_INVALID_ARGUMENT, "already");
    tdm_checkpoint_writer_abort(w);
    CHECK(scratch_count(dir, "") == 0);

    /* Rejected arguments leave the writer usable: it commits what was added. */
    char long_name[300];
    memset(long_name, 'a', 256);
    long_name[256] = '\0';
    CHECK_OK(tdm_checkpoint_writer_create(dir, 3, &w));
    CHECK_OK(tdm_checkpoint_add(w, "x", TDM_F32, &s4, x));
    CHECK_FAILS(tdm_checkpoint_add(w, "x", TDM_F32, &s4, x), TDM_ERR_INVALID_ARGUMENT, "'x'");
    CHECK_FAILS(tdm_checkpoint_add(w, "", TDM_F32, &s4, x), TDM_ERR_INVALID_ARGUMENT, "empty");
    CHECK_FAILS(tdm_checkpoint_add(w, long_name, TDM_F32, &s4, x), TDM_ERR_INVALID_ARGUMENT, "255");
    CHECK_FAILS(tdm_checkpoint_add(w, "y", TDM_F32, NULL, x), TDM_ERR_INVALID_ARGUMENT, "shape");
    CHECK_FAILS(tdm_checkpoint_add(w, "y", (tdm_dtype)5, &s4, x), TDM_ERR_INVALID_ARGUMENT,
                "dtype");
    CHECK_FAILS(tdm_checkpoint_add(w, "y", TDM_F32, &s4, NULL), TDM_ERR_INVALID_ARGUMENT, "NULL");
    tdm_shape rank5 = {5, {1, 1, 1, 1}};
    CHECK_FAILS(tdm_checkpoint_add(w, "y", TDM_F32, &rank5, x), TDM_ERR_INVALID_ARGUMENT, "rank");
    tdm_shape huge = TDM_SHAPE(SIZE_MAX / 2, 4);
    CHECK_FAILS(tdm_checkpoint_add(w, "y", TDM_F32, &huge, x), TDM_ERR_INVALID_ARGUMENT, "64 bits");
    CHECK_OK(tdm_checkpoint_add(w, "y", TDM_I32, &s0, NULL));
    CHECK_FAILS(tdm_checkpoint_add(NULL, "y", TDM_F32, &s4, x), TDM_ERR_INVALID_ARGUMENT, "w");
    CHECK_FAILS(tdm_checkpoint_commit(NULL), TDM_ERR_INVALID_ARGUMENT, "w");
    CHECK_OK(tdm_checkpoint_commit(w));
    final_name(path, dir, 3);
    tdm_checkpoint *c = NULL;
    CHECK_OK(tdm_checkpoint_open(path, &c));
    CHECK(tdm_checkpoint_count(c) == 2);
    tdm_checkpoint_close(c);
    CHECK(remove(path) == 0);

    /* writer_create: arguments; the directory is created one level deep only. */
    CHECK_FAILS(tdm_checkpoint_writer_create(NULL, 1, &w), TDM_ERR_INVALID_ARGUMENT, "dir");
    CHECK_FAILS(tdm_checkpoint_writer_create(dir, 1, NULL), TDM_ERR_INVALID_ARGUMENT, "out");
    CHECK_FAILS(tdm_checkpoint_writer_create("", 1, &w), TDM_ERR_INVALID_ARGUMENT, "empty");
    path_of(path, dir, "a/b");
    CHECK_FAILS(tdm_checkpoint_writer_create(path, 1, &w), TDM_ERR_NOT_FOUND, "a/b");
    CHECK(w == NULL);
    path_of(path, dir, "file");
    spit(path, "x", 1);
    CHECK_FAILS(tdm_checkpoint_writer_create(path, 1, &w), TDM_ERR_NOT_FOUND, "file");
    CHECK(remove(path) == 0);

    /* The temporary file vanishes before commit (removed by hand): the rename fails,
     * no final file appears. Windows removes an open file when its writer closes it, so
     * there the commit may still land: then the checkpoint is whole. */
    CHECK_OK(tdm_checkpoint_writer_create(dir, 4, &w));
    CHECK_OK(tdm_checkpoint_add(w, "x", TDM_F32, &s4, x));
    CHECK(find_entry(dir, ".tmp-", path) && remove(path) == 0);
#ifdef _WIN32
    if (tdm_checkpoint_commit(w) == TDM_OK) {
        final_name(path, dir, 4);
        tdm_checkpoint *landed = NULL;
        float got[4] = {0};
        CHECK_OK(tdm_checkpoint_open(path, &landed));
        CHECK_OK(tdm_checkpoint_read(landed, "x", TDM_F32, &s4, got, sizeof got));
        CHECK(!memcmp(got, x, sizeof got));
        tdm_checkpoint_close(landed);
        CHECK(scratch_count(dir, "") == 1 && remove(path) == 0);
    }
#else
    CHECK_FAILS(tdm_checkpoint_commit(w), TDM_ERR_NOT_FOUND, "rename");
#endif
    CHECK(scratch_count(dir, "") == 0);

#ifdef _WIN32
    printf("checkpoint: no file size limit on Windows: write errors not checked\n");
#else
    /* Write errors (RLIMIT_FSIZE: writes past it fail with EFBIG): a failed add leaves
     * the writer failed, and commit removes the temporary file. */
    struct rlimit old, small;
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, SIG_IGN);
    small = old;
    small.rlim_cur = 64 << 10;
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    static float big[1 << 16];
    tdm_shape sbig = TDM_SHAPE(1 << 16);
    CHECK_OK(tdm_checkpoint_writer_create(dir, 5, &w));
    CHECK_FAILS(tdm_checkpoint_add(w, "big", TDM_F32, &sbig, big), TDM_ERR_OUT_OF_MEMORY,
                "cannot write");
    CHECK_FAILS(tdm_checkpoint_add(w, "x", TDM_F32, &s4, x), TDM_ERR_INVALID_STATE,
                "earlier write");
    CHECK_FAILS(tdm_checkpoint_commit(w), TDM_ERR_INVALID_STATE, "earlier write");
    CHECK(scratch_count(dir, "") == 0);
    /* Buffered data that only fails to write in commit. */
    small.rlim_cur = 100;
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    CHECK_OK(tdm_checkpoint_writer_create(dir, 6, &w));
    CHECK_OK(tdm_checkpoint_add(w, "x", TDM_F32, &s4, x));
    CHECK_OK(tdm_checkpoint_add(w, "y", TDM_F32, &s4, x));
    CHECK_FAILS(tdm_checkpoint_commit(w), TDM_ERR_OUT_OF_MEMORY, "cannot write");
    CHECK(scratch_count(dir, "") == 0);
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, SIG_DFL);
#endif
}

/* ---- variables on 3 logical reference devices ---- */

#define N 3

static tdm_variable *make_var(tdm_strategy *s, const char *name, tdm_shape shape,
                              tdm_synchronization sync, tdm_aggregation agg, const float *init)
{
    tdm_variable_options o = TDM_VARIABLE_OPTIONS_INIT;
    o.name = name;
    o.shape = shape;
    o.synchronization = sync;
    o.aggregation = agg;
    o.initial_value = init;
    tdm_variable *var = NULL;
    CHECK_OK(tdm_variable_create(s, &o, &var));
    return var;
}

static void expect_copies_(tdm_variable *var, const float *want, size_t count, int line)
{
    for (size_t i = 0; var && i < tdm_variable_copy_count(var); i++) {
        float got[16];
        tdm_status s = tdm_tensor_read(tdm_variable_copy(var, i), got, count * sizeof(float));
        if (s != TDM_OK || memcmp(got, want, count * sizeof(float))) {
            test_failures++;
            fprintf(stderr, "line %d: variable '%s' copy %zu: %s\n", line, tdm_variable_name(var),
                    i, s ? tdm_last_error() : "wrong value");
        }
    }
}
#define EXPECT_COPIES(var, want, count) expect_copies_(var, want, count, __LINE__)

static tdm_status restore_in_replica(tdm_replica_context *rc, void *user_data)
{
    (void)rc;
    void **args = user_data;
    return tdm_checkpoint_restore_variable(args[0], args[1]);
}

static void test_variables(void)
{
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *devs[4];
    size_t n = test_scenario_devices(ctx, "reference", devs);
    CHECK(n == N);
    tdm_strategy *s = NULL;
    tdm_strategy_options o = TDM_STRATEGY_OPTIONS_INIT;
    o.check_mirrored = 1;
    if (n == N)
        CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, n, &o, &s));
    if (!s) {
        tdm_context_destroy(ctx);
        return;
    }
    char dir[PATH_CAP], path[PATH_CAP];
    make_subdir(dir, "variables");
    float w0[6] = {1, -2, 3.5f, 0.25f, -0.125f, 6};
    tdm_variable *mirrored =
        make_var(s, "dense/kernel", TDM_SHAPE(2, 3), TDM_SYNC_ON_WRITE, TDM_AGG_MEAN, w0);
    tdm_variable *sum =
        make_var(s, "metrics/total", TDM_SHAPE(4), TDM_SYNC_ON_READ, TDM_AGG_SUM, NULL);
    tdm_variable *mean =
        make_var(s, "metrics/mean", TDM_SHAPE(4), TDM_SYNC_ON_READ, TDM_AGG_MEAN, NULL);
    tdm_variable *empty = make_var(s, "empty", TDM_SHAPE(0), TDM_SYNC_ON_WRITE, TDM_AGG_NONE, NULL);
    if (!mirrored || !sum || !mean || !empty) {
        tdm_strategy_destroy(s);
        tdm_context_destroy(ctx);
        return;
    }
    /* Each replica's own copy of the sync-on-read variables. */
    float copies[N][4] = {{1, 2, 3, 4.5f}, {10, 20, 30, 40}, {0.5f, -7, 1e-3f, 3}};
    for (size_t i = 0; i < N; i++) {
        CHECK_OK(tdm_tensor_write(tdm_variable_copy(sum, i), copies[i], sizeof copies[i]));
        CHECK_OK(tdm_tensor_write(tdm_variable_copy(mean, i), copies[i], sizeof copies[i]));
    }
    float saved_sum[4], saved_mean[4];
    CHECK_OK(tdm_variable_read(sum, saved_sum, sizeof saved_sum));
    CHECK_OK(tdm_variable_read(mean, saved_mean, sizeof saved_mean));
    for (int e = 0; e < 4; e++) {
        float acc = (copies[0][e] + copies[1][e]) + copies[2][e];
        CHECK(saved_sum[e] == acc);
        CHECK(saved_mean[e] == acc * (float)(1.0 / 3.0));
    }

    /* Save (in the strategy's scope: cross-replica mode) with the global step. */
    tdm_checkpoint_writer *w = NULL;
    CHECK_OK(tdm_strategy_scope_enter(s));
    CHECK_OK(tdm_checkpoint_writer_create(dir, 100, &w));
    CHECK_OK(tdm_checkpoint_add_variable(w, mirrored));
    CHECK_OK(tdm_checkpoint_add_variable(w, sum));
    CHECK_OK(tdm_checkpoint_add_variable(w, mean));
    CHECK_OK(tdm_checkpoint_add_variable(w, empty));
    CHECK_FAILS(tdm_checkpoint_add_variable(w, sum), TDM_ERR_INVALID_ARGUMENT, "already");
    CHECK_OK(tdm_checkpoint_add_u64(w, "global_step", 100));
    CHECK_OK(tdm_checkpoint_commit(w));
    CHECK_OK(tdm_strategy_scope_exit(s));

    /* The file holds the cross-replica values. */
    uint64_t step = 0;
    CHECK_OK(tdm_checkpoint_latest(dir, path, sizeof path, &step));
    tdm_checkpoint *c = NULL;
    CHECK_OK(tdm_checkpoint_open(path, &c));
    if (!c) {
        tdm_strategy_destroy(s);
        tdm_context_destroy(ctx);
        return;
    }
    float got[6];
    tdm_shape s23 = TDM_SHAPE(2, 3), s4 = TDM_SHAPE(4);
    CHECK_OK(tdm_checkpoint_read(c, "dense/kernel", TDM_F32, &s23, got, sizeof w0));
    CHECK(!memcmp(got, w0, sizeof w0));
    CHECK_OK(tdm_checkpoint_read(c, "metrics/total", TDM_F32, &s4, got, sizeof saved_sum));
    CHECK(!memcmp(got, saved_sum, sizeof saved_sum));
    CHECK_OK(tdm_checkpoint_read(c, "metrics/mean", TDM_F32, &s4, got, sizeof saved_mean));
    CHECK(!memcmp(got, saved_mean, sizeof saved_mean));

    /* Change everything, then restore (default mode). */
    float junk[6] = {9, 9, 9, 9, 9, 9};
    CHECK_OK(tdm_variable_assign_host(mirrored, TDM_ASSIGN, junk, sizeof junk));
    CHECK_OK(tdm_variable_assign_host(sum, TDM_ASSIGN, junk, 4 * sizeof(float)));
    CHECK_OK(tdm_variable_assign_host(mean, TDM_ASSIGN, junk, 4 * sizeof(float)));
    CHECK_OK(tdm_checkpoint_restore_variable(c, mirrored));
    CHECK_OK(tdm_checkpoint_restore_variable(c, sum));
    CHECK_OK(tdm_checkpoint_restore_variable(c, mean));
    CHECK_OK(tdm_checkpoint_restore_variable(c, empty));
    EXPECT_COPIES(mirrored, w0, 6);
    float third[4];
    for (int e = 0; e < 4; e++)
        third[e] = saved_sum[e] / 3.0f;
    EXPECT_COPIES(sum, third, 4); /* x / N per copy */
    EXPECT_COPIES(mean, saved_mean, 4);
    CHECK_OK(tdm_strategy_check_mirrored(s));
    float back[4];
    CHECK_OK(tdm_variable_read(mean, back, sizeof back));
    for (int e = 0; e < 4; e++) /* ((m + m) + m) * (1 / 3): m up to rounding */
        CHECK(fabsf(back[e] - saved_mean[e]) <= 1e-6f * fabsf(saved_mean[e]));
    CHECK_OK(tdm_variable_read(sum, back, sizeof back));
    for (int e = 0; e < 4; e++)
        CHECK(fabsf(back[e] - saved_sum[e]) <= 1e-6f * fabsf(saved_sum[e]));

    /* A variable whose shape differs, one not in the checkpoint, a replica function. */
    tdm_variable *reshaped =
        make_var(s, "dense/kernel", TDM_SHAPE(6), TDM_SYNC_ON_WRITE, TDM_AGG_NONE, NULL);
    tdm_variable *absent =
        make_var(s, "dense/bias", TDM_SHAPE(3), TDM_SYNC_ON_WRITE, TDM_AGG_NONE, NULL);
    CHECK_FAILS(tdm_checkpoint_restore_variable(c, reshaped), TDM_ERR_CORRUPT_DATA,
                "variable 'dense/kernel'");
    CHECK_FAILS(tdm_checkpoint_restore_variable(c, reshaped), TDM_ERR_CORRUPT_DATA,
                "is f32 [2, 3], expected f32 [6]");
    CHECK_FAILS(tdm_checkpoint_restore_variable(c, absent), TDM_ERR_NOT_FOUND,
                "variable 'dense/bias'");
    CHECK_FAILS(tdm_checkpoint_restore_variable(c, absent), TDM_ERR_NOT_FOUND, path);
    void *args[2] = {c, mirrored};
    CHECK_FAILS(tdm_strategy_run(s, restore_in_replica, args, NULL, 0, NULL), TDM_ERR_INVALID_STATE,
                "replica");
    CHECK_FAILS(tdm_checkpoint_restore_variable(NULL, mirrored), TDM_ERR_INVALID_ARGUMENT, "c");
    CHECK_FAILS(tdm_checkpoint_add_variable(NULL, mirrored), TDM_ERR_INVALID_ARGUMENT, "w");
    EXPECT_COPIES(mirrored, w0, 6);
    uint64_t global_step = 0;
    CHECK_OK(tdm_checkpoint_read_u64(c, "global_step", &global_step));
    CHECK(global_step == 100 && tdm_checkpoint_step(c) == 100);
    tdm_checkpoint_close(c);

    tdm_strategy_destroy(s);
    tdm_context_destroy(ctx);
}

void test_case_checkpoint(const test_run *run)
{
    (void)run;
    if (scratch_temp_dir(root, "tdm-checkpoint") != 0) {
        fprintf(stderr, "cannot create a scratch directory %s: %s\n", root, strerror(errno));
        test_failures++;
        return;
    }
    test_format_bytes();
    test_round_trip();
    test_latest_prune();
    test_corruption();
    test_writer_failures();
    test_variables();
    if (scratch_remove_tree(root) != 0) {
        fprintf(stderr, "cannot remove %s\n", root);
        test_failures++;
    }
}
