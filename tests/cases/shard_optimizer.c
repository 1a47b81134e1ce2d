/* The train op's shard_optimizer: sharded training gives the bits of unsharded
 * training (Adam, SGD momentum, buckets of every size, loss scaling that skips
 * steps), each replica holds 1/R of the slot bytes, checkpoints resume across the
 * two and on another replica count, and what needs every gradient is refused. On
 * mixed devices (an OpenCL and a Vulkan replica), where each slice is updated by its
 * owner's backend, what is promised instead: the copies stay bitwise identical, the
 * loss falls, and a checkpoint resumes to the bits of the run that went on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scratch.h"
#include "train_fixture.h"

#define STEPS 8
#define MAX_WEIGHTS 4096

static tdm_context *ctx;
static tdm_device *devs[3];
static size_t n_devs;
static const char *digits_path;

typedef struct config {
    size_t replicas;
    tdm_optimizer_kind kind;
    int shard;
    int check_mirrored;  /* the strategy compares the copies after every write */
    size_t bucket_bytes; /* 0: the default */
    float loss_scale;
    float clip_global_norm;
} config;

/* The train op's status; the rest is checked. */
static tdm_status trainer_open(trainer *t, config c)
{
    memset(t, 0, sizeof *t);
    tdm_strategy_options so = TDM_STRATEGY_OPTIONS_INIT;
    so.check_mirrored = c.check_mirrored;
    CHECK_OK(c.replicas == 1
                 ? tdm_strategy_create_one_device(devs[0], NULL, &t->strategy)
                 : tdm_strategy_create_mirrored(ctx, devs, c.replicas, &so, &t->strategy));
    tdm_layer layers[] = {TDM_DENSE(31, TDM_ACT_RELU, 0.0f), TDM_DENSE(10, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.input_features = 64;
    mo.layers = layers;
    mo.layer_count = 2;
    mo.seed = 11;
    CHECK_OK(tdm_model_create(t->strategy, &mo, &t->model));
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.kind = c.kind;
    oo.learning_rate.initial = 0.01f;
    CHECK_OK(tdm_optimizer_create(t->strategy, &oo, &t->opt));
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = tdm_model_loss;
    to.loss_user = t->model;
    to.optimizer = t->opt;
    to.seed = 3;
    to.shard_optimizer = c.shard;
    to.loss_scale = c.loss_scale;
    to.clip_global_norm = c.clip_global_norm;
    if (c.bucket_bytes)
        to.bucket_bytes = to.first_bucket_bytes = c.bucket_bytes;
    return tdm_train_op_create(t->strategy, &to, &t->op);
}

/* STEPS steps over the dataset's first batches, losses into out. */
static void train(trainer *t, const tdm_dataset *ds, double *out)
{
    CHECK(fixture_train_steps(t->strategy, t->op, ds, STEPS, out) == STEPS);
}

/* Every copy of trained variable i, concatenated into out from element used; how
 * many. */
static size_t weights_of(const trainer *t, size_t i, float *out, size_t used)
{
    size_t at = used;
    for (size_t c = 0; c < tdm_strategy_num_local_replicas(t->strategy); c++) {
        tdm_tensor *copy = tdm_variable_copy(tdm_train_op_variable(t->op, i), c);
        size_t n = tdm_tensor_count(copy);
        CHECK(at + n <= MAX_WEIGHTS * 3);
        CHECK_OK(tdm_tensor_read(copy, out + at, n * sizeof(float)));
        at += n;
    }
    return at - used;
}

/* Every copy of every trained variable, concatenated. */
static size_t weights(const trainer *t, float *out)
{
    size_t used = 0;
    for (size_t i = 0; i < tdm_train_op_variable_count(t->op); i++)
        used += weights_of(t, i, out, used);
    return used;
}

static void check_same(const trainer *a, const trainer *b, const double *la, const double *lb,
                       size_t steps, const char *what)
{
    static float wa[MAX_WEIGHTS * 3], wb[MAX_WEIGHTS * 3];
    size_t na = weights(a, wa), nb = weights(b, wb);
    int same = na == nb && !memcmp(wa, wb, na * sizeof *wa) && !memcmp(la, lb, steps * sizeof *la);
    if (!same)
        fprintf(stderr, "%s: the weights or losses differ from unsharded training\n", what);
    CHECK(same);
}

/* Sharded and unsharded training of the same steps: the same losses and weights, bit
 * for bit, and 1/R of the slot bytes. */
static void check_bits(config c, const char *what)
{
    tdm_dataset *ds = fixture_digits_train(digits_path, 64, 2, 1);
    trainer plain, sharded;
    double lp[STEPS], ls[STEPS];
    CHECK_OK(trainer_open(&plain, c));
    c.shard = 1;
    CHECK_OK(trainer_open(&sharded, c));
    train(&plain, ds, lp);
    train(&sharded, ds, ls);
    check_same(&plain, &sharded, lp, ls, STEPS, what);
    CHECK_OK(tdm_strategy_check_mirrored(sharded.strategy));
    size_t whole = 0, part = 0, r = c.replicas;
    CHECK_OK(tdm_train_op_slot_bytes(plain.op, &whole));
    CHECK_OK(tdm_train_op_slot_bytes(sharded.op, &part));
    /* Each bucket is padded to a multiple of R: at most R - 1 floats per slot and
     * bucket over whole / R (two variables per layer, two layers); unsharded, each of
     * the four variables starts at a multiple of 4 floats: at most 3 more per slot. */
    size_t gaps = 4 * 3 * 2 * sizeof(float);
    CHECK(whole > 0 && part * r + gaps >= whole &&
          part * r < whole + 4 * r * 2 * 4 * sizeof(float));
    trainer_close(&plain);
    trainer_close(&sharded);
    tdm_dataset_destroy(ds);
}

static void save(const trainer *t, const char *dir)
{
    tdm_checkpoint_writer *w = NULL;
    CHECK_OK(tdm_checkpoint_writer_create(dir, tdm_train_op_global_step(t->op), &w));
    CHECK_OK(tdm_train_op_save(t->op, w));
    CHECK_OK(tdm_checkpoint_commit(w));
}

static void restore(trainer *t, const char *dir)
{
    char path[SCRATCH_PATH];
    uint64_t step = 0;
    tdm_checkpoint *c = NULL;
    CHECK_OK(tdm_checkpoint_latest(dir, path, sizeof path, &step));
    CHECK_OK(tdm_checkpoint_open(path, &c));
    CHECK_OK(tdm_train_op_restore(t->op, c));
    tdm_checkpoint_close(c);
}

/* STEPS steps sharded or not, a checkpoint, STEPS more over the same batches from it
 * with the other: the bits of unsharded training without the checkpoint; and the run
 * that saved goes on to the same bits (a save borrows the flat buffers). */
static void check_resume(int first_sharded, const char *name)
{
    tdm_dataset *ds = fixture_digits_train(digits_path, 64, 2, 1);
    char dir[SCRATCH_PATH];
    scratch_path(dir, name, 1);
    config c = {.replicas = n_devs, .kind = TDM_OPT_ADAM, .shard = first_sharded};
    trainer before, after, straight;
    double lb[STEPS], la[STEPS], ls[STEPS];
    CHECK_OK(trainer_open(&before, c));
    train(&before, ds, lb);
    save(&before, dir);
    c.shard = !first_sharded;
    CHECK_OK(trainer_open(&after, c));
    restore(&after, dir);
    train(&after, ds, la);
    c.shard = 0;
    CHECK_OK(trainer_open(&straight, c));
    train(&straight, ds, ls);
    train(&straight, ds, ls);
    check_same(&straight, &after, ls, la, STEPS, name);
    train(&before, ds, lb);
    check_same(&straight, &before, ls, lb, STEPS, name);
    trainer_close(&before);
    trainer_close(&after);
    trainer_close(&straight);
    tdm_dataset_destroy(ds);
}

/* Whether record `name` has the same dtype, shape and bytes (or u64 value) in both. */
static int same_record(const tdm_checkpoint *a, const tdm_checkpoint *b, const char *name)
{
    tdm_dtype ta, tb;
    tdm_shape sa, sb;
    if (tdm_checkpoint_tensor_shape(a, name, &ta, &sa) != TDM_OK) {
        uint64_t va = 0, vb = 1;
        return tdm_checkpoint_read_u64(a, name, &va) == TDM_OK &&
               tdm_checkpoint_read_u64(b, name, &vb) == TDM_OK && va == vb;
    }
    if (tdm_checkpoint_tensor_shape(b, name, &tb, &sb) != TDM_OK || ta != tb ||
        sa.rank != sb.rank || memcmp(sa.dims, sb.dims, sa.rank * sizeof *sa.dims))
        return 0;
    size_t size = tdm_shape_count(&sa) * tdm_dtype_size(ta);
    unsigned char *da = malloc(size ? size : 1), *db = malloc(size ? size : 1);
    int same = da && db && tdm_checkpoint_read(a, name, ta, &sa, da, size) == TDM_OK &&
               tdm_checkpoint_read(b, name, tb, &sb, db, size) == TDM_OK && !memcmp(da, db, size);
    free(da);
    free(db);
    return same;
}

/* A sharded checkpoint of R replicas restored on one replica and saved again: the
 * same records (the order may differ: one replica trains unsharded), so every slot's
 * parts went back where they came from. */
static void check_other_count(void)
{
    tdm_dataset *ds = fixture_digits_train(digits_path, 64, 2, 1);
    char a[SCRATCH_PATH], b[SCRATCH_PATH], pa[SCRATCH_PATH], pb[SCRATCH_PATH];
    scratch_path(a, "many", 1);
    scratch_path(b, "one", 1);
    trainer many, one;
    double l[STEPS];
    CHECK_OK(trainer_open(&many, (config){.replicas = n_devs, .kind = TDM_OPT_ADAM, .shard = 1}));
    train(&many, ds, l);
    save(&many, a);
    CHECK_OK(trainer_open(&one, (config){.replicas = 1, .kind = TDM_OPT_ADAM, .shard = 1}));
    restore(&one, a);
    save(&one, b);
    scratch_checkpoint_name(pa, a, STEPS);
    scratch_checkpoint_name(pb, b, STEPS);
    tdm_checkpoint *ca = NULL, *cb = NULL;
    CHECK_OK(tdm_checkpoint_open(pa, &ca));
    CHECK_OK(tdm_checkpoint_open(pb, &cb));
    size_t records = tdm_checkpoint_count(ca);
    CHECK(records > 4 && records == tdm_checkpoint_count(cb));
    for (size_t i = 0; i < records; i++) {
        const char *name = tdm_checkpoint_name(ca, i);
        if (!same_record(ca, cb, name))
            fprintf(stderr, "record '%s' differs after a restore on one replica\n", name);
        CHECK(same_record(ca, cb, name));
    }
    tdm_checkpoint_close(ca);
    tdm_checkpoint_close(cb);
    trainer_close(&many);
    trainer_close(&one);
    tdm_dataset_destroy(ds);
}

static void check_refusals(void)
{
    trainer t;
    tdm_status s = trainer_open(
        &t, (config){.replicas = n_devs, .kind = TDM_OPT_ADAM, .shard = 1, .clip_global_norm = 1});
    CHECK(s == TDM_ERR_UNSUPPORTED && strstr(tdm_last_error(), "clip_global_norm"));
    CHECK(!t.op);
    trainer_close(&t);
}

/* Sharded on an OpenCL and a Vulkan replica: every step's copies compared by the
 * strategy and again here, a falling loss, and a checkpoint that resumes to the bits
 * of the run that saved it and went on. */
static void check_mixed(void)
{
    tdm_dataset *ds = fixture_digits_train(digits_path, 64, 2, 1);
    char dir[SCRATCH_PATH];
    scratch_path(dir, "mixed", 1);
    config c = {.replicas = n_devs, .kind = TDM_OPT_ADAM, .shard = 1, .check_mirrored = 1};
    trainer on, resumed;
    double lo[STEPS], lr[STEPS];
    CHECK_OK(trainer_open(&on, c));
    train(&on, ds, lo);
    CHECK(lo[STEPS - 1] < lo[0]);
    save(&on, dir);
    CHECK_OK(trainer_open(&resumed, c));
    restore(&resumed, dir);
    train(&on, ds, lo);
    train(&resumed, ds, lr);
    check_same(&on, &resumed, lo, lr, STEPS, "mixed, resumed");
    static float w[MAX_WEIGHTS * 3];
    for (size_t i = 0; i < tdm_train_op_variable_count(on.op); i++) {
        size_t n = weights_of(&on, i, w, 0) / 2; /* copy 0, then copy 1 */
        CHECK(n && !memcmp(w, w + n, n * sizeof *w));
    }
    trainer_close(&on);
    trainer_close(&resumed);
    tdm_dataset_destroy(ds);
}

void test_case_shard_optimizer(const test_run *run)
{
    n_devs = test_scenario_of(run, &ctx, devs);
    digits_path = run->argv[1];
    scratch_root("tdm-shard-optimizer");
    if (!strcmp(run->argv[0], "mixed")) {
        check_mixed();
        scratch_remove();
        return;
    }
    check_bits((config){.replicas = n_devs, .kind = TDM_OPT_ADAM}, "adam");
    check_bits((config){.replicas = n_devs, .kind = TDM_OPT_MOMENTUM, .bucket_bytes = 4},
               "momentum, a bucket per variable");
    check_bits((config){.replicas = n_devs, .kind = TDM_OPT_ADAM, .loss_scale = 0x1p127f},
               "adam, loss scaling that skips steps");
    check_resume(1, "sharded-then-plain");
    check_resume(0, "plain-then-sharded");
    check_other_count();
    check_refusals();
    scratch_remove();
}
