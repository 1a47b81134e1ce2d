/* Training: the train op on a strategy's replicas equals one replica on the global
 * batch, two ops over the same variables update them in turn, check_numerics stops a step before
 * anything changes, clipping and summaries, the op-level API in a custom loss function, steps and
 * the monitor with checkpoints that resume bit for bit, and a trained model's predictions after a
 * save and a load. */
#include "train_case_fixture.h"

static void check_equivalence(void)
{
    tdm_dataset *ds = fixture_digits_train(tr_digits_path, 64, 3, 0);
    trainer one, many;
    double a[STEPS], b[STEPS];
    tr_trainer_open(&one, tr_devs, 1, TDM_OPT_SGD, 10);
    tr_trainer_open(&many, tr_devs, tr_n_devs, TDM_OPT_SGD, 10);
    CHECK(tr_train_steps(&one, ds, STEPS, a) == STEPS);
    CHECK(tr_train_steps(&many, ds, STEPS, b) == STEPS);
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
size_t tr_read_weights(const trainer *t, float *out, size_t capacity)
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
    tdm_dataset *ds = fixture_digits_train(tr_digits_path, 64, 1, 0);
    trainer one, two;
    tr_trainer_open(&one, tr_devs, tr_n_devs, TDM_OPT_ADAM, 10);
    tr_trainer_open(&two, tr_devs, tr_n_devs, TDM_OPT_ADAM, 10);
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
        CHECK(tr_train_steps(&one, ds, 1, &loss[0][k]) == 1);
        CHECK(fixture_train_steps(two.strategy, op, ds, 1, &loss[1][k]) == 1);
    }
    static float a[64 * 32 + 32 + 32 * 10 + 10], b[sizeof a / sizeof a[0]];
    size_t n = tr_read_weights(&one, a, sizeof a / sizeof a[0]);
    CHECK(n == sizeof a / sizeof a[0] && tr_read_weights(&two, b, n) == n);
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
    tdm_dataset *ds = fixture_digits_train(tr_digits_path, 64, 3, 0);
    tdm_device *ps[2] = {tr_devs[tr_n_devs - 1], tr_devs[0]};
    trainer mirrored, served;
    tr_trainer_open(&mirrored, tr_devs, tr_n_devs, TDM_OPT_ADAM, 10);
    tr_trainer_open_config(&served, tr_devs, tr_n_devs, TDM_OPT_ADAM, 10,
                           (trainer_config){.ps = ps, .ps_count = 2});
    double a[STEPS], b[STEPS];
    CHECK(tr_train_steps(&mirrored, ds, STEPS, a) == STEPS);
    CHECK(tr_train_steps(&served, ds, STEPS, b) == STEPS);
    float wa[4096], wb[4096];
    size_t na = tr_read_weights(&mirrored, wa, 4096), nb = tr_read_weights(&served, wb, 4096);
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
    tdm_dataset *ds = fixture_digits_train(tr_digits_path, 64, 3, 0);
    trainer plain, scaled;
    tr_trainer_open(&plain, tr_devs, tr_n_devs, TDM_OPT_ADAM, 10);
    tr_trainer_open_config(&scaled, tr_devs, tr_n_devs, TDM_OPT_ADAM, 10,
                           (trainer_config){.loss_scale = 32768.0f});
    double a[STEPS], b[STEPS];
    CHECK(tr_train_steps(&plain, ds, STEPS, a) == STEPS);
    CHECK(tr_train_steps(&scaled, ds, STEPS, b) == STEPS);
    float wa[4096], wb[4096];
    size_t na = tr_read_weights(&plain, wa, 4096), nb = tr_read_weights(&scaled, wb, 4096);
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
    tr_trainer_open_config(&over, tr_devs, tr_n_devs, TDM_OPT_ADAM, 10,
                           (trainer_config){.loss_scale = 0x1p127f, .growth_steps = 5});
    float before[4096], after[4096];
    size_t n = tr_read_weights(&over, before, 4096);
    double losses[STEPS];
    CHECK(tr_train_steps(&over, ds, 1, losses) == 1);
    tr_read_weights(&over, after, 4096);
    CHECK(!memcmp(before, after, n * sizeof *before)); /* skipped */
    CHECK_OK(tdm_train_op_loss_scale(over.op, &scale, &skipped));
    CHECK(scale == 0x1p126f && skipped == 1);
    CHECK(tdm_train_op_global_step(over.op) == 1);
    CHECK(tr_train_steps(&over, ds, STEPS, losses) == STEPS);
    CHECK_OK(tdm_train_op_loss_scale(over.op, &scale, &skipped));
    fprintf(stderr, "loss scaling: scale %g after %llu skipped steps, loss %.4f -> %.4f\n",
            (double)scale, (unsigned long long)skipped, losses[0], losses[STEPS - 1]);
    CHECK(skipped >= 1 && scale >= 1.0f);
    CHECK(losses[STEPS - 1] < 0.5 * losses[skipped + 1 < STEPS ? skipped + 1 : 0]);
    CHECK_OK(tdm_strategy_check_mirrored(over.strategy));
    trainer_close(&over);

    /* Growth: 3 finite steps in a row double the scale. */
    trainer grow;
    tr_trainer_open_config(&grow, tr_devs, tr_n_devs, TDM_OPT_SGD, 10,
                           (trainer_config){.loss_scale = 4.0f, .growth_steps = 3});
    CHECK(tr_train_steps(&grow, ds, 7, losses) == 7);
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
    tdm_dataset *ds = fixture_digits_train(tr_digits_path, 64, 3, 0);
    trainer whole, split, one;
    double a[STEPS], b[STEPS], c[STEPS];
    tr_trainer_open_config(&whole, tr_devs, tr_n_devs, TDM_OPT_ADAM, 10,
                           (trainer_config){.bucket_bytes = SIZE_MAX});
    tr_trainer_open_config(&split, tr_devs, tr_n_devs, TDM_OPT_ADAM, 10,
                           (trainer_config){.bucket_bytes = 4});
    tr_trainer_open_config(&one, tr_devs, 1, TDM_OPT_ADAM, 10, (trainer_config){.bucket_bytes = 4});
    CHECK(tr_train_steps(&whole, ds, STEPS, a) == STEPS);
    CHECK(tr_train_steps(&split, ds, STEPS, b) == STEPS);
    CHECK(tr_train_steps(&one, ds, STEPS, c) == STEPS);
    float wa[4096], wb[4096];
    size_t na = tr_read_weights(&whole, wa, 4096), nb = tr_read_weights(&split, wb, 4096);
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
    tdm_dataset *ds = fixture_digits_train(tr_digits_path, 64, 3, 0);
    trainer balanced, one;
    double a[STEPS], b[STEPS];
    tr_trainer_open_config(&balanced, tr_devs, tr_n_devs, TDM_OPT_SGD, 10,
                           (trainer_config){.balance = 1});
    tr_trainer_open(&one, tr_devs, 1, TDM_OPT_SGD, 10);
    CHECK(tr_train_steps(&balanced, ds, STEPS, a) == STEPS);
    CHECK(tr_train_steps(&one, ds, STEPS, b) == STEPS);
    for (size_t i = 0; i < STEPS; i++)
        CHECK(fabs(a[i] - b[i]) <= 1e-4 * fabs(b[i]));
    double shares[3], rates[3], rate_sum = 0.0;
    CHECK_OK(tdm_strategy_batch_shares(balanced.strategy, shares, tr_n_devs));
    for (size_t i = 0; i < tr_n_devs; i++) {
        CHECK_OK(tdm_train_op_replica_rate(balanced.op, i, &rates[i]));
        CHECK(rates[i] > 0.0);
        rate_sum += rates[i];
    }
    for (size_t i = 0; i < tr_n_devs; i++)
        CHECK(fabs(shares[i] - rates[i] / rate_sum) < 1e-9);
    trainer_close(&balanced);
    trainer_close(&one);
    tdm_dataset_destroy(ds);
}

/* A model with 5 outputs on 10 classes: labels 5..9 give a NaN loss. */
static void check_numerics(void)
{
    tdm_dataset *ds = fixture_digits_train(tr_digits_path, 64, 1, 0);
    trainer t;
    tr_trainer_open(&t, tr_devs, tr_n_devs, TDM_OPT_ADAM, 5);
    static float before[4096], after[4096];
    size_t n = tr_read_weights(&t, before, 4096);
    tdm_distributed_dataset *dist = NULL;
    tdm_distributed_iterator *it = NULL;
    const tdm_distributed_batch *b = NULL;
    CHECK_OK(tdm_distribute_dataset(t.strategy, ds, NULL, &dist));
    CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    CHECK_OK(tdm_distributed_iterator_next(it, &b));
    double loss = 0.0;
    CHECK_FAILS(tdm_train_op_run(t.op, b, &loss), TDM_ERR_NUMERIC, "loss is inf or nan");
    CHECK(tr_read_weights(&t, after, 4096) == n && memcmp(before, after, n * sizeof(float)) == 0);
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

/* The custom loss function of the fixture's header. */
tdm_status tr_linear_loss_fn(const tdm_loss_args *a, void *user)
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
    CHECK_OK(tdm_strategy_create_mirrored(tr_ctx, tr_devs, tr_n_devs, NULL, &s));
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
    to.loss_fn = tr_linear_loss_fn;
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
    CHECK(tr_train_steps(&(trainer){s, NULL, opt, op}, ds, 1, &loss) == 1);
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
    CHECK_OK(tdm_strategy_create_mirrored(tr_ctx, tr_devs, tr_n_devs, &so, &s));
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
    to.loss_fn = tr_linear_loss_fn;
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

void test_case_train(const test_run *run)
{
    tr_n_devs = test_scenario_of(run, &tr_ctx, tr_devs);
    tr_digits_path = run->argv[1];
    int mixed = !strcmp(run->scenario, "mixed");
    check_equivalence();
    check_two_ops(mixed);
    check_buckets();
    check_parameter_server(mixed);
    check_loss_scaling();
    check_balance();
    check_numerics();
    check_custom_loss_and_clipping();
    tr_check_errors();
    tr_check_trace_errors();
    check_mirrored_after_steps(mixed);
    tr_check_monitor_resume((trainer_config){0});
    tr_check_monitor_resume((trainer_config){.loss_scale = 0x1p127f, .growth_steps = 4});
    tr_check_predict_after_load();
    tr_check_eval_strategy(mixed);
}
