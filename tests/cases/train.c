/* Training: the train op on a strategy's replicas equals one replica on the global
 * batch, two ops over the same variables update them in turn, check_numerics stops a step before
 * anything changes, clipping and summaries, the op-level API in a custom loss function, steps and
 * the monitor with checkpoints that resume bit for bit, and a trained model's predictions after a
 * save and a load. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scratch.h"
#include "train_fixture.h"

#define STEPS 50
#define MAX_VARS 6

static tdm_context *ctx;
static tdm_device *devs[3];
static size_t n_devs;
static const char *digits_path;

static tdm_dataset *digits(size_t batch, int64_t epochs)
{
    tdm_dataset *ds = NULL, *train = NULL, *test = NULL;
    CHECK_OK(tdm_dataset_from_csv(digits_path, NULL, &ds));
    CHECK_OK(tdm_dataset_split(ds, 0.8, &train, &test));
    float mean[64], std[64];
    CHECK_OK(tdm_dataset_feature_stats(train, mean, std));
    CHECK_OK(tdm_dataset_standardize(train, mean, std));
    CHECK_OK(tdm_dataset_shuffle(train, 7));
    CHECK_OK(tdm_dataset_batch(train, batch, 0));
    CHECK_OK(tdm_dataset_repeat(train, epochs));
    tdm_dataset_destroy(ds);
    tdm_dataset_destroy(test);
    return train;
}

/* What a trainer changes from the train op's defaults. */
typedef struct trainer_config {
    size_t bucket_bytes; /* 0: the default buckets */
    int balance;
    tdm_device *const *ps; /* ps_count > 0: a parameter-server strategy with these */
    size_t ps_count;
    float loss_scale; /* > 0: dynamic loss scaling from this scale */
    uint32_t growth_steps;
} trainer_config;

static void trainer_open_config(trainer *t, tdm_device *const *d, size_t n, tdm_optimizer_kind kind,
                                size_t outputs, trainer_config config)
{
    memset(t, 0, sizeof *t);
    tdm_strategy_options so = TDM_STRATEGY_OPTIONS_INIT;
    so.check_mirrored = config.ps_count > 0;
    CHECK_OK(config.ps_count ? tdm_strategy_create_parameter_server(
                                   ctx, d, n, config.ps, config.ps_count, &so, &t->strategy)
             : n == 1 ? tdm_strategy_create_one_device(d[0], NULL, &t->strategy)
                      : tdm_strategy_create_mirrored(ctx, d, n, NULL, &t->strategy));
    tdm_layer layers[] = {TDM_DENSE(32, TDM_ACT_RELU, 0.25f),
                          TDM_DENSE(outputs, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.input_features = 64;
    mo.layers = layers;
    mo.layer_count = 2;
    mo.seed = 11;
    CHECK_OK(tdm_model_create(t->strategy, &mo, &t->model));
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.kind = kind;
    oo.learning_rate.initial = kind == TDM_OPT_SGD ? 0.1f : 0.01f;
    CHECK_OK(tdm_optimizer_create(t->strategy, &oo, &t->opt));
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = tdm_model_loss;
    to.loss_user = t->model;
    to.optimizer = t->opt;
    to.seed = 3;
    if (config.bucket_bytes)
        to.bucket_bytes = to.first_bucket_bytes = config.bucket_bytes;
    to.balance = config.balance;
    to.loss_scale = config.loss_scale;
    to.loss_scale_growth_steps = config.growth_steps;
    CHECK_OK(tdm_train_op_create(t->strategy, &to, &t->op));
}

static void trainer_open(trainer *t, tdm_device *const *d, size_t n, tdm_optimizer_kind kind,
                         size_t outputs)
{
    trainer_open_config(t, d, n, kind, outputs, (trainer_config){0});
}

static size_t train_steps(trainer *t, tdm_dataset *ds, size_t steps, double *losses)
{
    return fixture_train_steps(t->strategy, t->op, ds, steps, losses);
}

/* The rule of docs/SEMANTICS.md (Losses and gradients): with the same seed, global
 * batch and SGD, the loss of the N-replica run matches one replica at every step (the
 * 23rd is a partial batch of 29, split unevenly), dropout included. */
static void check_equivalence(void)
{
    tdm_dataset *ds = digits(64, 3);
    trainer one, many;
    double a[STEPS], b[STEPS];
    trainer_open(&one, devs, 1, TDM_OPT_SGD, 10);
    trainer_open(&many, devs, n_devs, TDM_OPT_SGD, 10);
    CHECK(train_steps(&one, ds, STEPS, a) == STEPS);
    CHECK(train_steps(&many, ds, STEPS, b) == STEPS);
    double worst = 0.0;
    for (size_t i = 0; i < STEPS; i++)
        worst = fmax(worst, fabs(a[i] - b[i]) / fabs(a[i]));
    CHECK(worst <= 1e-4);
    CHECK(a[STEPS - 1] < 0.5 * a[0]); /* it learns */
    CHECK(tdm_train_op_global_step(many.op) == STEPS);
    CHECK_OK(tdm_strategy_check_mirrored(many.strategy));
    if (worst > 1e-4)
        fprintf(stderr, "equivalence: worst relative loss difference %g\n", worst);
    trainer_close(&one);
    trainer_close(&many);
    tdm_dataset_destroy(ds);
}

/* Reads every trained variable's first copy, concatenated. */
static size_t read_weights(const trainer *t, float *out, size_t capacity)
{
    size_t used = 0;
    for (size_t i = 0; i < tdm_train_op_variable_count(t->op); i++) {
        tdm_tensor *c = tdm_variable_copy(tdm_train_op_variable(t->op, i), 0);
        size_t n = tdm_tensor_count(c);
        if (used + n > capacity)
            break;
        CHECK_OK(tdm_tensor_read(c, out + used, n * sizeof(float)));
        used += n;
    }
    return used;
}

/* Unsharded, the op's arenas start every variable's copy at a multiple of 4 floats
 * (the digits model's sizes alone would not), as Vulkan's GEMM needs for its 4-float
 * loads: every copy on a device in one buffer, at an aligned offset. Devices that
 * round differently keep a buffer per copy (mixed): then only at offset 0. */
static void check_aligned(const tdm_train_op *op, int mixed)
{
    tdm_variable *first = tdm_train_op_variable(op, 0);
    for (size_t i = 0; i < tdm_train_op_variable_count(op); i++) {
        tdm_variable *v = tdm_train_op_variable(op, i);
        for (size_t c = 0; c < tdm_variable_copy_count(v); c++) {
            tdm_buffer_view at = tdm_tensor_view(tdm_variable_copy(v, c));
            CHECK(mixed || at.buffer == tdm_tensor_view(tdm_variable_copy(first, c)).buffer);
            CHECK(at.offset % (4 * sizeof(float)) == 0);
        }
    }
}

/* Each train op updates its replicas' copies in one launch, from arenas it moves
 * them into (docs/design/006-one-update-launch.md). A second op over the same
 * variables moves them into its own: the first must then update the variables, not
 * its old arenas. Steps taken by two ops in turn give one op's bits, and a copy's
 * tensor taken before the move stays the variable's. */
static void check_two_ops(int mixed)
{
    tdm_dataset *ds = digits(64, 1);
    trainer one, two;
    trainer_open(&one, devs, n_devs, TDM_OPT_ADAM, 10);
    trainer_open(&two, devs, n_devs, TDM_OPT_ADAM, 10);
    check_aligned(two.op, mixed);
    tdm_variable *first = tdm_train_op_variable(two.op, 0);
    tdm_tensor *held = tdm_variable_copy(first, 0);
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = tdm_model_loss;
    to.loss_user = two.model;
    to.optimizer = two.opt;
    to.seed = 3; /* trainer_open's */
    tdm_train_op *other = NULL;
    CHECK_OK(tdm_train_op_create(two.strategy, &to, &other));
    CHECK(tdm_variable_copy(first, 0) == held);
    double loss[2][3];
    for (size_t k = 0; k < 3; k++) { /* two's ops take turns, at the one global step (which,
                                        with the op's seed, seeds dropout) */
        tdm_train_op *op = k == 1 ? other : two.op;
        CHECK_OK(tdm_train_op_set_global_step(op, k));
        CHECK(train_steps(&one, ds, 1, &loss[0][k]) == 1);
        CHECK(fixture_train_steps(two.strategy, op, ds, 1, &loss[1][k]) == 1);
    }
    static float a[64 * 32 + 32 + 32 * 10 + 10], b[sizeof a / sizeof a[0]];
    size_t n = read_weights(&one, a, sizeof a / sizeof a[0]);
    CHECK(n == sizeof a / sizeof a[0] && read_weights(&two, b, n) == n);
    CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(loss[0], loss[1], sizeof loss[0]) == 0);
    CHECK(loss[0][2] < loss[0][0]); /* the steps did update */
    CHECK_OK(tdm_strategy_check_mirrored(two.strategy));
    tdm_train_op_destroy(other);
    trainer_close(&one);
    trainer_close(&two);
    tdm_dataset_destroy(ds);
}

/* A parameter-server strategy trains like mirrored training of the same steps: the
 * same losses, and the same weights, bit for bit where the parameter devices compute
 * like the workers (an update at a home on another backend rounds its own way). */
static void check_parameter_server(int mixed)
{
    tdm_dataset *ds = digits(64, 3);
    tdm_device *ps[2] = {devs[n_devs - 1], devs[0]};
    trainer mirrored, served;
    trainer_open(&mirrored, devs, n_devs, TDM_OPT_ADAM, 10);
    trainer_open_config(&served, devs, n_devs, TDM_OPT_ADAM, 10,
                        (trainer_config){.ps = ps, .ps_count = 2});
    double a[STEPS], b[STEPS];
    CHECK(train_steps(&mirrored, ds, STEPS, a) == STEPS);
    CHECK(train_steps(&served, ds, STEPS, b) == STEPS);
    float wa[4096], wb[4096];
    size_t na = read_weights(&mirrored, wa, 4096), nb = read_weights(&served, wb, 4096);
    CHECK(na == nb && na > 0);
    double worst_loss = 0.0, worst_weight = 0.0;
    for (size_t i = 0; i < STEPS; i++)
        worst_loss = fmax(worst_loss, fabs(a[i] - b[i]) / fabs(a[i]));
    for (size_t i = 0; i < na && i < nb; i++)
        worst_weight = fmax(worst_weight, fabs((double)wa[i] - wb[i]) / fmax(fabs(wa[i]), 1e-3));
    if (mixed) {
        CHECK(worst_loss <= 1e-4);
        CHECK(worst_weight <= 1e-3);
    } else {
        CHECK(worst_loss == 0.0);
        CHECK(na == nb && !memcmp(wa, wb, na * sizeof *wa));
    }
    CHECK(b[STEPS - 1] < 0.5 * b[0]);
    CHECK(tdm_train_op_global_step(served.op) == STEPS);
    tdm_variable *first = tdm_train_op_variable(served.op, 0);
    CHECK(tdm_variable_home(first) == ps[0] || tdm_variable_home(first) == ps[1]);
    CHECK_OK(tdm_strategy_check_mirrored(served.strategy));
    fprintf(stderr, "parameter server: worst loss difference %g, weight difference %g\n",
            worst_loss, worst_weight);
    trainer_close(&mirrored);
    trainer_close(&served);
    tdm_dataset_destroy(ds);
}

/* Dynamic loss scaling (LossScaleOptimizer): a power-of-two scale changes no bit of
 * the training; a scale that overflows the loss skips the step (no variable changes,
 * the global step advances, the skip is counted) and halves; a run of finite steps
 * doubles it; training then converges. */
static void check_loss_scaling(void)
{
    tdm_dataset *ds = digits(64, 3);
    trainer plain, scaled;
    trainer_open(&plain, devs, n_devs, TDM_OPT_ADAM, 10);
    trainer_open_config(&scaled, devs, n_devs, TDM_OPT_ADAM, 10,
                        (trainer_config){.loss_scale = 32768.0f});
    double a[STEPS], b[STEPS];
    CHECK(train_steps(&plain, ds, STEPS, a) == STEPS);
    CHECK(train_steps(&scaled, ds, STEPS, b) == STEPS);
    float wa[4096], wb[4096];
    size_t na = read_weights(&plain, wa, 4096), nb = read_weights(&scaled, wb, 4096);
    CHECK(na == nb && !memcmp(wa, wb, na * sizeof *wa));
    CHECK(!memcmp(a, b, sizeof a));
    float scale = 0.0f;
    uint64_t skipped = 1;
    CHECK_OK(tdm_train_op_loss_scale(scaled.op, &scale, &skipped));
    CHECK(scale == 32768.0f && skipped == 0);
    trainer_close(&plain);
    trainer_close(&scaled);

    /* 2^127 times a loss above 2 is past the largest float. */
    trainer over;
    trainer_open_config(&over, devs, n_devs, TDM_OPT_ADAM, 10,
                        (trainer_config){.loss_scale = 0x1p127f, .growth_steps = 5});
    float before[4096], after[4096];
    size_t n = read_weights(&over, before, 4096);
    double losses[STEPS];
    CHECK(train_steps(&over, ds, 1, losses) == 1);
    read_weights(&over, after, 4096);
    CHECK(!memcmp(before, after, n * sizeof *before)); /* skipped */
    CHECK_OK(tdm_train_op_loss_scale(over.op, &scale, &skipped));
    CHECK(scale == 0x1p126f && skipped == 1);
    CHECK(tdm_train_op_global_step(over.op) == 1);
    CHECK(train_steps(&over, ds, STEPS, losses) == STEPS);
    CHECK_OK(tdm_train_op_loss_scale(over.op, &scale, &skipped));
    fprintf(stderr, "loss scaling: scale %g after %llu skipped steps, loss %.4f -> %.4f\n",
            (double)scale, (unsigned long long)skipped, losses[0], losses[STEPS - 1]);
    CHECK(skipped >= 1 && scale >= 1.0f);
    CHECK(losses[STEPS - 1] < 0.5 * losses[skipped + 1 < STEPS ? skipped + 1 : 0]);
    CHECK_OK(tdm_strategy_check_mirrored(over.strategy));
    trainer_close(&over);

    /* Growth: 3 finite steps in a row double the scale. */
    trainer grow;
    trainer_open_config(&grow, devs, n_devs, TDM_OPT_SGD, 10,
                        (trainer_config){.loss_scale = 4.0f, .growth_steps = 3});
    CHECK(train_steps(&grow, ds, 7, losses) == 7);
    CHECK_OK(tdm_train_op_loss_scale(grow.op, &scale, &skipped));
    CHECK(scale == 16.0f && skipped == 0);
    trainer_close(&grow);
    tdm_dataset_destroy(ds);
}

/* Gradient buckets change when the all-reduces run, never what they compute: one
 * bucket per variable (each started by the model's backward as soon as its layer is
 * done) trains bitwise like one bucket for everything, and like one replica. */
static void check_buckets(void)
{
    tdm_dataset *ds = digits(64, 3);
    trainer whole, split, one;
    double a[STEPS], b[STEPS], c[STEPS];
    trainer_open_config(&whole, devs, n_devs, TDM_OPT_ADAM, 10,
                        (trainer_config){.bucket_bytes = SIZE_MAX});
    trainer_open_config(&split, devs, n_devs, TDM_OPT_ADAM, 10,
                        (trainer_config){.bucket_bytes = 4});
    trainer_open_config(&one, devs, 1, TDM_OPT_ADAM, 10, (trainer_config){.bucket_bytes = 4});
    CHECK(train_steps(&whole, ds, STEPS, a) == STEPS);
    CHECK(train_steps(&split, ds, STEPS, b) == STEPS);
    CHECK(train_steps(&one, ds, STEPS, c) == STEPS);
    float wa[4096], wb[4096];
    size_t na = read_weights(&whole, wa, 4096), nb = read_weights(&split, wb, 4096);
    CHECK(na == nb && na > 0 && memcmp(wa, wb, na * sizeof *wa) == 0);
    for (size_t i = 0; i < STEPS; i++) {
        CHECK(a[i] == b[i] && fabs(b[i] - c[i]) <= 1e-4 * fabs(c[i]));
        if (a[i] != b[i] || fabs(b[i] - c[i]) > 1e-4 * fabs(c[i]))
            fprintf(stderr, "step %zu: one bucket %.9g, split %.9g, one replica %.9g\n", i, a[i],
                    b[i], c[i]);
    }
    trainer_close(&whole);
    trainer_close(&split);
    trainer_close(&one);
    tdm_dataset_destroy(ds);
}

/* Balance moves rows between replicas after measuring them, and the loss stays that
 * of one replica with the global batch at every step; the shares it sets follow the
 * replicas' measured rates. */
static void check_balance(void)
{
    tdm_dataset *ds = digits(64, 3);
    trainer balanced, one;
    double a[STEPS], b[STEPS];
    trainer_open_config(&balanced, devs, n_devs, TDM_OPT_SGD, 10, (trainer_config){.balance = 1});
    trainer_open(&one, devs, 1, TDM_OPT_SGD, 10);
    CHECK(train_steps(&balanced, ds, STEPS, a) == STEPS);
    CHECK(train_steps(&one, ds, STEPS, b) == STEPS);
    for (size_t i = 0; i < STEPS; i++)
        CHECK(fabs(a[i] - b[i]) <= 1e-4 * fabs(b[i]));
    double shares[3], rates[3], rate_sum = 0.0;
    CHECK_OK(tdm_strategy_batch_shares(balanced.strategy, shares, n_devs));
    for (size_t i = 0; i < n_devs; i++) {
        CHECK_OK(tdm_train_op_replica_rate(balanced.op, i, &rates[i]));
        CHECK(rates[i] > 0.0);
        rate_sum += rates[i];
    }
    for (size_t i = 0; i < n_devs; i++)
        CHECK(fabs(shares[i] - rates[i] / rate_sum) < 1e-9);
    trainer_close(&balanced);
    trainer_close(&one);
    tdm_dataset_destroy(ds);
}

/* A model with 5 outputs on 10 classes: labels 5..9 give a NaN loss. */
static void check_numerics(void)
{
    tdm_dataset *ds = digits(64, 1);
    trainer t;
    trainer_open(&t, devs, n_devs, TDM_OPT_ADAM, 5);
    static float before[4096], after[4096];
    size_t n = read_weights(&t, before, 4096);
    tdm_distributed_dataset *dist = NULL;
    tdm_distributed_iterator *it = NULL;
    const tdm_distributed_batch *b = NULL;
    CHECK_OK(tdm_distribute_dataset(t.strategy, ds, NULL, &dist));
    CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    CHECK_OK(tdm_distributed_iterator_next(it, &b));
    double loss = 0.0;
    CHECK_FAILS(tdm_train_op_run(t.op, b, &loss), TDM_ERR_NUMERIC, "loss is inf or nan");
    CHECK(read_weights(&t, after, 4096) == n && memcmp(before, after, n * sizeof(float)) == 0);
    CHECK(tdm_train_op_global_step(t.op) == 0);
    CHECK(tdm_optimizer_iterations(t.opt) == 0);
    tdm_variable *m = NULL;
    CHECK_OK(tdm_optimizer_get_slot(t.opt, tdm_train_op_variable(t.op, 0), "m", &m));
    static float slot[64 * 32];
    CHECK_OK(tdm_tensor_read(tdm_variable_copy(m, 0), slot, sizeof slot));
    CHECK(slot[0] == 0.0f && slot[64 * 32 - 1] == 0.0f);
    tdm_distributed_iterator_destroy(it);
    tdm_distributed_dataset_destroy(dist);
    trainer_close(&t);
    tdm_dataset_destroy(ds);
}

/* A custom loss function over the op-level API: loss = sum(w * x) over the rows of
 * the replica, so d/dw = the column sums of x, scaled for the global batch. The
 * grads of `bad` hold a NaN when asked. */
typedef struct linear_loss {
    int nan_gradient;
} linear_loss;

static tdm_status linear_loss_fn(const tdm_loss_args *a, void *user)
{
    linear_loss *ll = user;
    tdm_tensor *y = NULL, *per_row = NULL;
    tdm_device *dev = tdm_replica_device(a->rc);
    size_t rows = a->rows;
    tdm_status s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(rows, 1), &y);
    if (s == TDM_OK)
        s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(rows), &per_row);
    tdm_tensor *w = tdm_variable_local(a->vars[0], a->rc);
    tdm_tensor *w_col = NULL;
    if (s == TDM_OK)
        s = tdm_tensor_slice(w, 0, &TDM_SHAPE(64, 1), &w_col);
    if (s == TDM_OK)
        s = tdm_op_matmul(y, a->features, 0, w_col, 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_op_sum(a->loss, y);
    if (s == TDM_OK)
        s = tdm_op_scale(a->loss, a->loss, tdm_loss_args_scale(a));
    if (s == TDM_OK) /* d(sum of x w) / dw = column sums of x */
        s = tdm_op_sum_rows(a->grads[0], a->features);
    if (s == TDM_OK)
        s = tdm_op_scale(a->grads[0], a->grads[0], tdm_loss_args_scale(a));
    if (s == TDM_OK && ll->nan_gradient)
        s = tdm_op_fill(a->grads[0], NAN);
    tdm_tensor_destroy(w_col);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(per_row);
    return s;
}

/* Clip by value and by global norm, summaries, and a NaN gradient named. */
static void check_custom_loss_and_clipping(void)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, n_devs, NULL, &s));
    tdm_variable_options vo = TDM_VARIABLE_OPTIONS_INIT;
    vo.name = "w";
    vo.shape = TDM_SHAPE(64);
    tdm_variable *w = NULL;
    CHECK_OK(tdm_variable_create(s, &vo, &w));
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.learning_rate.initial = 1.0f;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(s, &oo, &opt));
    linear_loss ll = {0};
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = linear_loss_fn;
    to.loss_user = &ll;
    to.optimizer = opt;
    to.clip_value = 0.25f;
    to.clip_global_norm = 1.0f;
    to.gradient_summaries = 1;
    tdm_train_op *op = NULL;
    CHECK_OK(tdm_train_op_create(s, &to, &op));

    /* One batch of 16 examples with features x[r][c] = c + 1, so every gradient
     * element is c + 1 (the mean over rows) before clipping. */
    float f[16 * 64];
    int32_t labels[16] = {0};
    for (size_t i = 0; i < 16 * 64; i++)
        f[i] = (float)(i % 64 + 1);
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_arrays(f, labels, 16, 64, 1, &ds));
    CHECK_OK(tdm_dataset_batch(ds, 16, 0));
    double loss;
    CHECK(train_steps(&(trainer){s, NULL, opt, op}, ds, 1, &loss) == 1);
    CHECK(loss == 0.0); /* w was 0 */
    /* every element clipped to 0.25, norm 0.25 * 8 = 2, scaled to 1: each 0.125 */
    float got[64];
    CHECK_OK(tdm_variable_read(w, got, sizeof got));
    CHECK(got[0] == -0.125f && got[63] == -0.125f);
    tdm_gradient_summary sum;
    CHECK_OK(tdm_train_op_gradient_summary(op, 0, &sum));
    CHECK(fabs(sum.norm - 1.0) < 1e-6 && sum.min == 0.125f && sum.counts[0] == 64);
    CHECK_FAILS(tdm_train_op_gradient_summary(op, 1, &sum), TDM_ERR_INVALID_ARGUMENT, "variable 1");

    ll.nan_gradient = 1;
    tdm_distributed_dataset *dist = NULL;
    tdm_distributed_iterator *it = NULL;
    const tdm_distributed_batch *b = NULL;
    CHECK_OK(tdm_distribute_dataset(s, ds, NULL, &dist));
    CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    CHECK_OK(tdm_distributed_iterator_next(it, &b));
    CHECK_FAILS(tdm_train_op_run(op, b, &loss), TDM_ERR_NUMERIC, "gradient of 'w'");
    CHECK_OK(tdm_variable_read(w, got, sizeof got));
    CHECK(got[0] == -0.125f);
    tdm_distributed_iterator_destroy(it);
    tdm_distributed_dataset_destroy(dist);
    tdm_dataset_destroy(ds);
    tdm_train_op_destroy(op);
    tdm_optimizer_destroy(opt);
    tdm_strategy_destroy(s);
}

/* A transform that treats replica 1 differently breaks the rule that it must act
 * the same on every replica: check_mirrored (what --deterministic turns on) names the
 * variable after the step. On devices that round differently the train op copies
 * replica 0's update to the others instead, so the copies agree again. */
static tdm_status diverge(tdm_replica_context *rc, tdm_tensor *const *grads,
                          tdm_variable *const *vars, size_t count, void *user)
{
    (void)vars;
    (void)count;
    (void)user;
    return tdm_replica_id(rc) == 1 ? tdm_op_scale(grads[0], grads[0], 2.0f) : TDM_OK;
}

static void check_mirrored_after_steps(int mixed)
{
    tdm_strategy_options so = TDM_STRATEGY_OPTIONS_INIT;
    so.check_mirrored = 1;
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, n_devs, &so, &s));
    tdm_variable_options vo = TDM_VARIABLE_OPTIONS_INIT;
    vo.name = "w";
    vo.shape = TDM_SHAPE(64);
    tdm_variable *w = NULL;
    CHECK_OK(tdm_variable_create(s, &vo, &w));
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(s, &oo, &opt));
    linear_loss ll = {0};
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = linear_loss_fn;
    to.loss_user = &ll;
    to.optimizer = opt;
    to.transform = diverge;
    tdm_train_op *op = NULL;
    CHECK_OK(tdm_train_op_create(s, &to, &op));
    float f[8 * 64];
    int32_t labels[8] = {0};
    for (size_t i = 0; i < 8 * 64; i++)
        f[i] = 1.0f;
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_arrays(f, labels, 8, 64, 1, &ds));
    CHECK_OK(tdm_dataset_batch(ds, 8, 0));
    tdm_distributed_dataset *dist = NULL;
    tdm_distributed_iterator *it = NULL;
    const tdm_distributed_batch *b = NULL;
    CHECK_OK(tdm_distribute_dataset(s, ds, NULL, &dist));
    CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    CHECK_OK(tdm_distributed_iterator_next(it, &b));
    double loss;
    if (mixed)
        CHECK_OK(tdm_train_op_run(op, b, &loss));
    else
        CHECK_FAILS(tdm_train_op_run(op, b, &loss), TDM_ERR_INVALID_STATE, "'w'");
    tdm_distributed_iterator_destroy(it);
    tdm_distributed_dataset_destroy(dist);
    tdm_dataset_destroy(ds);
    tdm_train_op_destroy(op);
    tdm_optimizer_destroy(opt);
    tdm_strategy_destroy(s);
}

static void check_errors(void)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, n_devs, NULL, &s));
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(s, &oo, &opt));
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    tdm_train_op *op = NULL;
    to.optimizer = opt;
    CHECK_FAILS(tdm_train_op_create(s, &to, &op), TDM_ERR_INVALID_ARGUMENT, "loss function");
    to.loss_fn = linear_loss_fn;
    CHECK_FAILS(tdm_train_op_create(s, &to, &op), TDM_ERR_INVALID_ARGUMENT,
                "no variables to train");
    CHECK(op == NULL);
    tdm_single_loss_step_options so = TDM_SINGLE_LOSS_STEP_OPTIONS_INIT;
    tdm_step *step = NULL;
    CHECK_FAILS(tdm_single_loss_step_create(&so, &step), TDM_ERR_INVALID_ARGUMENT,
                "train op is required");
    tdm_optimizer_destroy(opt);
    tdm_strategy_destroy(s);
}

static tdm_status no_training(const tdm_distributed_batch *batch, void *user, double *loss)
{
    (void)batch, (void)user;
    *loss = 0.0;
    return TDM_OK;
}

/* Tracing's refusals: a window that ends before it starts, a write with nothing
 * traced, and a monitor's trace over a step without a train op (the files are
 * checked by cli_train_trace.sh). */
static void check_trace_errors(void)
{
    trainer t;
    trainer_open(&t, devs, n_devs, TDM_OPT_SGD, 10);
    CHECK_FAILS(tdm_train_op_trace(t.op, "t.json", 5, 2), TDM_ERR_INVALID_ARGUMENT, "5 to 2");
    CHECK_FAILS(tdm_train_op_trace_write(t.op), TDM_ERR_INVALID_STATE, "not tracing");
    tdm_dataset *ds = digits(64, 1);
    tdm_distributed_dataset *dist = NULL;
    tdm_step *step = NULL;
    tdm_monitor *m = NULL;
    CHECK_OK(tdm_distribute_dataset(t.strategy, ds, NULL, &dist));
    CHECK_OK(tdm_standard_input_step_create(dist, no_training, NULL, 1, &step));
    tdm_monitor_options mo = TDM_MONITOR_OPTIONS_INIT;
    mo.trace_path = "t.json";
    CHECK_FAILS(tdm_monitor_create(step, &mo, &m), TDM_ERR_INVALID_ARGUMENT, "single-loss step");
    CHECK(m == NULL);
    tdm_step_destroy(step);
    tdm_distributed_dataset_destroy(dist);
    tdm_dataset_destroy(ds);
    trainer_close(&t);
}

/* A monitor over a single-loss step. */
typedef struct train_run {
    trainer t;
    tdm_step *step;
    tdm_monitor *monitor;
} train_run;

static void run_open(train_run *r, tdm_dataset *ds, const char *dir, trainer_config config)
{
    trainer_open_config(&r->t, devs, n_devs, TDM_OPT_ADAM, 10, config);
    tdm_single_loss_step_options so = TDM_SINGLE_LOSS_STEP_OPTIONS_INIT;
    so.train_op = r->t.op;
    so.dataset = ds;
    CHECK_OK(tdm_single_loss_step_create(&so, &r->step));
    tdm_monitor_options mo = TDM_MONITOR_OPTIONS_INIT;
    mo.checkpoint_dir = dir;
    mo.checkpoint_every = 10;
    CHECK_OK(tdm_monitor_create(r->step, &mo, &r->monitor));
}

static void run_close(train_run *r)
{
    tdm_monitor_destroy(r->monitor);
    tdm_step_destroy(r->step);
    trainer_close(&r->t);
}

/* An interrupted run resumed from its newest checkpoint ends with exactly the
 * weights of an uninterrupted one (and, with loss scaling, the same scale and skips);
 * the input's end ends run_steps normally. */
static void check_monitor_resume(trainer_config config)
{
    char dir[SCRATCH_PATH];
    CHECK(scratch_temp_dir(dir, "tandem-train") == 0);
    tdm_dataset *ds = digits(64, 2); /* 2 epochs of 23 steps */
    train_run a, b;
    uint64_t done = 0;
    run_open(&a, ds, NULL, config);
    CHECK_OK(tdm_monitor_run_steps(a.monitor, 0, &done));
    CHECK(done == 46 && tdm_monitor_input_exhausted(a.monitor));
    static float want[4096], got[4096];
    size_t n = read_weights(&a.t, want, 4096);
    float want_scale = 0.0f, got_scale = 0.0f;
    uint64_t want_skipped = 0, got_skipped = 0;
    CHECK_OK(tdm_train_op_loss_scale(a.t.op, &want_scale, &want_skipped));
    run_close(&a);

    run_open(&a, ds, dir, config); /* "killed" after 27 steps: checkpoints at 10 and 20 */
    CHECK_OK(tdm_monitor_run_steps(a.monitor, 27, &done));
    CHECK(done == 27 && !tdm_monitor_input_exhausted(a.monitor));
    run_close(&a);
    run_open(&b, ds, dir, config);
    /* Steps before the restore: it writes over state the devices hold since (on mixed
     * devices, the optimizer's scratch on the other device too). */
    CHECK_OK(tdm_monitor_run_steps(b.monitor, 3, &done));
    int restored = 0;
    uint64_t step = 0;
    CHECK_OK(tdm_monitor_restore(b.monitor, &restored, &step));
    CHECK(restored && step == 20);
    CHECK_OK(tdm_monitor_run_steps(b.monitor, 0, &done));
    CHECK(done == 26 && tdm_train_op_global_step(b.t.op) == 46);
    CHECK(read_weights(&b.t, got, 4096) == n && memcmp(want, got, n * sizeof(float)) == 0);
    CHECK_OK(tdm_train_op_loss_scale(b.t.op, &got_scale, &got_skipped));
    CHECK(got_scale == want_scale && got_skipped == want_skipped);
    if (config.loss_scale > 0.0f)
        CHECK(want_skipped > 0); /* the scale moved during the run */
    run_close(&b);
    CHECK(scratch_remove_tree(dir) == 0);
    tdm_dataset_destroy(ds);
}

/* The raw features and labels of a dataset's examples (batched into one batch). */
static size_t host_rows(const tdm_dataset *ds, float *x, int32_t *y, size_t capacity)
{
    tdm_dataset_iterator *it = NULL;
    const tdm_batch *b = NULL;
    CHECK_OK(tdm_dataset_iterator_create(ds, &it));
    CHECK_OK(tdm_dataset_iterator_next(it, &b));
    size_t n = b && b->count <= capacity ? b->count : 0;
    if (n) {
        memcpy(x, b->features, n * 64 * sizeof *x);
        memcpy(y, b->labels, n * sizeof *y);
    }
    tdm_dataset_iterator_destroy(it);
    return n;
}

/* The fraction of rows whose highest output is their label. */
static double accuracy_of(const float *outputs, const int32_t *labels, size_t rows)
{
    size_t correct = 0;
    for (size_t r = 0; r < rows; r++) {
        size_t best = 0;
        for (size_t c = 1; c < 10; c++)
            best = outputs[r * 10 + c] > outputs[r * 10 + best] ? c : best;
        correct += best == (size_t)labels[r];
    }
    return (double)correct / (double)rows;
}

/* A trained model, given its standardisation, predicts from raw features what
 * evaluate scores on the standardised test split; saved and loaded onto a one-device
 * strategy or onto the mirrored one, it predicts the same outputs bit for bit. */
/* DistributeConfig: training mirrored, evaluating on one device; every evaluation
 * sees the weights training has reached, and scores what the trained model scores
 * (exactly where the eval device computes like the first replica's). */
static void check_eval_strategy(int mixed)
{
    tdm_dataset *all = NULL, *train = NULL, *test = NULL;
    CHECK_OK(tdm_dataset_from_csv(digits_path, NULL, &all));
    CHECK_OK(tdm_dataset_split(all, 0.8, &train, &test));
    CHECK_OK(tdm_dataset_batch(test, 100, 0));
    CHECK_OK(tdm_dataset_batch(train, 64, 0));
    CHECK_OK(tdm_dataset_repeat(train, 2));
    trainer t;
    trainer_open(&t, devs, n_devs, TDM_OPT_ADAM, 10);
    tdm_strategy *eval = NULL;
    CHECK_OK(tdm_strategy_create_one_device(devs[n_devs - 1], NULL, &eval));
    tdm_distribute_config config = TDM_DISTRIBUTE_CONFIG_INIT;
    config.train_distribute = t.strategy;
    config.eval_distribute = eval;
    tdm_evaluator *e = NULL;
    CHECK_OK(tdm_evaluator_create(t.model, &config, &e));
    CHECK(e && tdm_evaluator_model(e) != t.model);
    double losses[40];
    for (int round = 0; round < 2 && e; round++) {
        CHECK(train_steps(&t, train, 20, losses) == 20);
        tdm_evaluation got, want;
        CHECK_OK(tdm_evaluator_run(e, test, &got));
        CHECK_OK(tdm_model_evaluate(t.model, test, &want));
        CHECK(got.examples == want.examples && got.examples == 360);
        CHECK(mixed ? fabs(got.loss - want.loss) <= 1e-5 * want.loss : got.loss == want.loss);
        CHECK(mixed ? fabs(got.accuracy - want.accuracy) <= 0.01 : got.accuracy == want.accuracy);
        fprintf(stderr, "eval strategy, round %d: loss %.6f (trained model %.6f)\n", round,
                got.loss, want.loss);
    }
    tdm_evaluator_destroy(e);
    tdm_evaluator *bad = NULL;
    config.train_distribute = eval;
    CHECK_FAILS(tdm_evaluator_create(t.model, &config, &bad), TDM_ERR_INVALID_ARGUMENT,
                "train_distribute");
    trainer_close(&t);
    tdm_strategy_destroy(eval);
    tdm_dataset_destroy(all);
    tdm_dataset_destroy(train);
    tdm_dataset_destroy(test);
}

static void check_predict_after_load(void)
{
    tdm_dataset *all = NULL, *train = NULL, *test = NULL;
    CHECK_OK(tdm_dataset_from_csv(digits_path, NULL, &all));
    CHECK_OK(tdm_dataset_shuffle_once(all, 5));
    CHECK_OK(tdm_dataset_split(all, 0.8, &train, &test));
    CHECK_OK(tdm_dataset_batch(test, 512, 0));
    static float raw[512 * 64], want[512 * 10], got[512 * 10];
    static int32_t labels[512];
    size_t rows = host_rows(test, raw, labels, 512);
    CHECK(rows == 360);
    float mean[64], std[64];
    CHECK_OK(tdm_dataset_feature_stats(train, mean, std));
    CHECK_OK(tdm_dataset_standardize(train, mean, std));
    CHECK_OK(tdm_dataset_standardize(test, mean, std));
    CHECK_OK(tdm_dataset_batch(train, 64, 0));
    trainer t;
    trainer_open(&t, devs, n_devs, TDM_OPT_ADAM, 10);
    double losses[23];
    CHECK(train_steps(&t, train, 23, losses) == 23);
    tdm_evaluation ev;
    CHECK_OK(tdm_model_evaluate(t.model, test, &ev));
    CHECK(ev.examples == rows && ev.accuracy > 0.8);
    CHECK_OK(tdm_model_set_standardization(t.model, mean, std));
    CHECK_OK(tdm_model_predict(t.model, raw, rows, want));
    CHECK(accuracy_of(want, labels, rows) == ev.accuracy);

    char dir[SCRATCH_PATH], path[SCRATCH_PATH + 32];
    CHECK(scratch_temp_dir(dir, "tandem-model") == 0);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    CHECK_OK(tdm_model_save(t.model, path));
    tdm_strategy *strategies[2] = {NULL, t.strategy};
    CHECK_OK(tdm_strategy_create_one_device(devs[0], NULL, &strategies[0]));
    for (int i = 0; i < 2; i++) {
        tdm_model *loaded = NULL;
        CHECK_OK(tdm_model_load(strategies[i], path, &loaded));
        memset(got, 0, sizeof got);
        CHECK_OK(tdm_model_predict(loaded, raw, rows, got));
        CHECK(memcmp(want, got, rows * 10 * sizeof *got) == 0);
        tdm_model_destroy(loaded);
    }
    tdm_strategy_destroy(strategies[0]);
    CHECK(scratch_remove_tree(dir) == 0);
    trainer_close(&t);
    tdm_dataset_destroy(all);
    tdm_dataset_destroy(train);
    tdm_dataset_destroy(test);
}

void test_case_train(const test_run *run)
{
    n_devs = test_scenario_of(run, &ctx, devs);
    digits_path = run->argv[1];
    int mixed = !strcmp(run->scenario, "mixed");
    check_equivalence();
    check_two_ops(mixed);
    check_buckets();
    check_parameter_server(mixed);
    check_loss_scaling();
    check_balance();
    check_numerics();
    check_custom_loss_and_clipping();
    check_errors();
    check_trace_errors();
    check_mirrored_after_steps(mixed);
    check_monitor_resume((trainer_config){0});
    check_monitor_resume((trainer_config){.loss_scale = 0x1p127f, .growth_steps = 4});
    check_predict_after_load();
    check_eval_strategy(mixed);
}
