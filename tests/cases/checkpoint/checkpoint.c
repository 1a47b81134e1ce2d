/* Checkpoint files: the documented byte layout, round trips of f32/i32 tensors of
 * every rank (scalar and empty included) and u64 values, latest and prune over a
 * directory with temporary, truncated and misnamed files, every kind of damage
 * (each single flipped byte, each truncation, foreign files, a newer version, wrong
 * dtype, shape or name on read), the writer's failure paths (abort, a repeated name,
 * a temporary file lost before commit, write errors under RLIMIT_FSIZE), and
 * variables on the reference backend split into 3 logical devices: mirrored and
 * sync-on-read SUM/MEAN variables saved, changed and restored. Scratch directories
 * go under $TMPDIR (or /tmp) and are removed at the end. */
#include "checkpoint_fixture.h"

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
    ckpt_make_subdir(dir, "format");
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

    ckpt_final_name(path, dir, step);
    size_t size = 0;
    unsigned char *got = scratch_read(path, &size);
    CHECK(got && size == at && !memcmp(got, want, at));
    free(got);
}

/* ---- round trips ---- */

static void test_round_trip(void)
{
    char dir[PATH_CAP], path[PATH_CAP];
    ckpt_path_of(dir, ckpt_root, "round-trip"); /* created by the writer */
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
    ckpt_final_name(want_path, dir, 7);
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
    ckpt_path_of(path, ckpt_root, "missing");
    CHECK_FAILS(tdm_checkpoint_latest(path, other, sizeof other, &step), TDM_ERR_NOT_FOUND,
                "missing");
    ckpt_make_subdir(dir, "latest");
    CHECK_FAILS(tdm_checkpoint_latest(dir, path, sizeof path, &step), TDM_ERR_NOT_FOUND,
                "no complete checkpoint");

    static const uint64_t steps[] = {3, 10, 2, 11};
    for (size_t i = 0; i < 4; i++)
        ckpt_commit_simple(dir, steps[i]);
    CHECK_OK(tdm_checkpoint_latest(dir, path, sizeof path, &step));
    CHECK(step == 11);
    ckpt_final_name(other, dir, 11);
    CHECK(!strcmp(path, other));
    CHECK_FAILS(tdm_checkpoint_latest(dir, path, strlen(other), &step), TDM_ERR_INVALID_ARGUMENT,
                "path_size");
    CHECK_OK(tdm_checkpoint_latest(dir, path, strlen(other) + 1, &step));

    /* Newer but not complete: a writer still open, a copy under a temporary name, a
     * truncated file and a renamed one under final names, stray names. */
    tdm_checkpoint_writer *open_writer = NULL;
    CHECK_OK(tdm_checkpoint_writer_create(dir, 50, &open_writer));
    ckpt_commit_simple(dir, 40);
    size_t size = 0;
    ckpt_final_name(other, dir, 40);
    unsigned char *bytes = scratch_read(other, &size);
    CHECK(bytes && size > 60);
    CHECK(remove(other) == 0);
    ckpt_path_of(path, dir, ".ckpt-00000000000000000060.tdm.tmp-crashed");
    ckpt_spit(path, bytes, size);
    ckpt_final_name(path, dir, 99);
    ckpt_spit(path, bytes, size - 1);
    ckpt_final_name(path, dir, 98); /* complete, but its header says step 40 */
    ckpt_spit(path, bytes, size);
    ckpt_final_name(path, dir, 97); /* ends inside the header */
    ckpt_spit(path, bytes, 10);
    ckpt_path_of(path, dir, "ckpt-123.tdm");
    ckpt_spit(path, bytes, size);
    ckpt_path_of(path, dir, "notes.txt");
    ckpt_spit(path, "hello", 5);
    free(bytes);
    CHECK_OK(tdm_checkpoint_latest(dir, path, sizeof path, &step));
    CHECK(step == 11);

    /* A newer format version, its header whole, counts: opening it says which version
     * it needs. (A version field with a flipped bit fails the header's CRC: damage.) */
    char newer[PATH_CAP];
    ckpt_path_of(newer, ckpt_root, "newer");
    CHECK(tdm_make_dir(newer) == 0);
    ckpt_commit_simple(newer, 5);
    ckpt_final_name(path, newer, 5);
    bytes = scratch_read(path, &size);
    if (bytes) {
        bytes[8] = 2;
        put_crc(bytes, 20, 0);
        ckpt_final_name(path, newer, 6);
        ckpt_spit(path, bytes, size);
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
        ckpt_final_name(path, dir, s);
        int want = s == 10 || s == 11 || s == 97 || s == 98 || s == 99;
        if (scratch_exists(path) != want) {
            test_failures++;
            fprintf(stderr, "after prune: step %llu %s\n", (unsigned long long)s,
                    want ? "is gone" : "is still there");
        }
    }
    CHECK(scratch_count(dir, "crashed") == 0);
    CHECK(scratch_count(dir, ".tmp-") == 1);
    ckpt_path_of(path, dir, "ckpt-123.tdm");
    CHECK(scratch_exists(path));
    CHECK_OK(tdm_checkpoint_latest(dir, path, sizeof path, &step));
    CHECK(step == 11);
    CHECK_OK(tdm_checkpoint_prune(dir, 1));
    ckpt_final_name(path, dir, 10);
    CHECK(!scratch_exists(path));
    CHECK_OK(tdm_checkpoint_prune(dir, 5)); /* fewer than keep: nothing to do */
    ckpt_final_name(path, dir, 11);
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
    ckpt_path_of(path, ckpt_root, "missing");
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
    ckpt_final_name(path, dir, 1);
}

static void test_corruption(void)
{
    char dir[PATH_CAP], path[PATH_CAP], bad[PATH_CAP];
    ckpt_make_subdir(dir, "damage");
    float beta[9];
    write_victim(dir, path, beta);
    size_t size = 0;
    unsigned char *good = scratch_read(path, &size);
    if (!good)
        return;
    unsigned char *copy = malloc(size);
    const unsigned char *beta_at = ckpt_find_bytes(good, size, beta, sizeof beta);
    CHECK(beta_at != NULL);
    size_t beta_data = beta_at ? (size_t)(beta_at - good) : 0;
    ckpt_path_of(bad, dir, "bad.tdm");

    /* A flipped byte in beta's data: the CRC names beta. */
    memcpy(copy, good, size);
    copy[beta_data + 17] ^= 0x10;
    ckpt_spit(bad, copy, size);
    EXPECT_CORRUPT(bad, "tensor 'beta'");
    EXPECT_CORRUPT(bad, "CRC-32");
    /* Every single flipped bit, anywhere, is refused. */
    for (size_t i = 0; i < size; i++)
        for (int bit = 0; bit < 8; bit += 7) {
            memcpy(copy, good, size);
            copy[i] ^= (unsigned char)(1u << bit);
            ckpt_spit(bad, copy, size);
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
    ckpt_make_subdir(trunc_dir, "truncated");
    ckpt_commit_simple(trunc_dir, 1);
    ckpt_final_name(trunc, trunc_dir, 2);
    for (size_t n = 0; n < size; n++) {
        ckpt_spit(trunc, good, n);
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
    ckpt_spit(trunc, good, beta_data + 5);
    EXPECT_CORRUPT(trunc, "truncated inside tensor 'beta'");
    ckpt_spit(trunc, good, size - 1);
    EXPECT_CORRUPT(trunc, "footer");
    memcpy(copy, good, size);
    ckpt_spit(trunc, copy, size);
    FILE *tail = fopen(trunc, "ab"); /* trailing bytes */
    CHECK(tail && fwrite("\0\0\0", 1, 3, tail) == 3 && fclose(tail) == 0);
    EXPECT_CORRUPT(trunc, "bytes");

    /* Foreign files, long and short; an empty file. */
    ckpt_spit(bad, "hello, this is not a checkpoint at all", 38);
    EXPECT_CORRUPT(bad, "not a tandem checkpoint");
    ckpt_spit(bad, "abc", 3);
    EXPECT_CORRUPT(bad, "not a tandem checkpoint");
    ckpt_spit(bad, "", 0);
    EXPECT_CORRUPT(bad, "truncated");

    /* A newer format version, its header whole, named with ours; the same version
     * field with its header's CRC left as it was: a flipped bit, so damage. */
    memcpy(copy, good, size);
    copy[8] = 2;
    put_crc(copy, 20, 0);
    ckpt_spit(bad, copy, size);
    EXPECT_CORRUPT(bad, "version 2");
    EXPECT_CORRUPT(bad, "version 1");
    memcpy(copy, good, size);
    copy[8] ^= 2;
    ckpt_spit(bad, copy, size);
    EXPECT_CORRUPT(bad, "the header is damaged");

    ckpt_path_of(bad, dir, "no-such-file.tdm");
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

void test_case_checkpoint(const test_run *run)
{
    (void)run;
    if (scratch_temp_dir(ckpt_root, "tdm-checkpoint") != 0) {
        fprintf(stderr, "cannot create a scratch directory %s: %s\n", ckpt_root, strerror(errno));
        test_failures++;
        return;
    }
    test_format_bytes();
    test_round_trip();
    test_latest_prune();
    test_corruption();
    ckpt_test_writer_failures();
    ckpt_test_variables();
    if (scratch_remove_tree(ckpt_root) != 0) {
        fprintf(stderr, "cannot remove %s\n", ckpt_root);
        test_failures++;
    }
}
