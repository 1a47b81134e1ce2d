/* The checkpoint case, its second part (checkpoint.c runs it): the writer's failure
 * paths, and variables saved and restored on three logical reference devices. */
#include "checkpoint_fixture.h"

/* ---- the writer's failure paths ---- */

void ckpt_test_writer_failures(void)
{
    char dir[PATH_CAP], path[PATH_CAP];
    ckpt_make_subdir(dir, "writer");
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
    ckpt_final_name(path, dir, 3);
    tdm_checkpoint *c = NULL;
    CHECK_OK(tdm_checkpoint_open(path, &c));
    CHECK(tdm_checkpoint_count(c) == 2);
    tdm_checkpoint_close(c);
    CHECK(remove(path) == 0);

    /* writer_create: arguments; the directory is created one level deep only. */
    CHECK_FAILS(tdm_checkpoint_writer_create(NULL, 1, &w), TDM_ERR_INVALID_ARGUMENT, "dir");
    CHECK_FAILS(tdm_checkpoint_writer_create(dir, 1, NULL), TDM_ERR_INVALID_ARGUMENT, "out");
    CHECK_FAILS(tdm_checkpoint_writer_create("", 1, &w), TDM_ERR_INVALID_ARGUMENT, "empty");
    ckpt_path_of(path, dir, "a/b");
    CHECK_FAILS(tdm_checkpoint_writer_create(path, 1, &w), TDM_ERR_NOT_FOUND, "a/b");
    CHECK(w == NULL);
    ckpt_path_of(path, dir, "file");
    ckpt_spit(path, "x", 1);
    CHECK_FAILS(tdm_checkpoint_writer_create(path, 1, &w), TDM_ERR_NOT_FOUND, "file");
    CHECK(remove(path) == 0);

    /* The temporary file vanishes before commit (removed by hand): the rename fails,
     * no final file appears. Windows removes an open file when its writer closes it, so
     * there the commit may still land: then the checkpoint is whole. */
    CHECK_OK(tdm_checkpoint_writer_create(dir, 4, &w));
    CHECK_OK(tdm_checkpoint_add(w, "x", TDM_F32, &s4, x));
    CHECK(ckpt_find_entry(dir, ".tmp-", path) && remove(path) == 0);
#ifdef _WIN32
    if (tdm_checkpoint_commit(w) == TDM_OK) {
        ckpt_final_name(path, dir, 4);
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

void ckpt_test_variables(void)
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
    ckpt_make_subdir(dir, "variables");
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
