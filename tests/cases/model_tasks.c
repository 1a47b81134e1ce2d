/* Models of every task: a regression (mean squared and absolute error, Huber), a
 * binary and a multi-label classifier (sigmoid cross-entropy) and one of soft labels
 * (categorical cross-entropy). Each learns its task; replicas train as one replica on
 * the global batch, also from a dataset cached on the devices; a step's loss is the
 * evaluation's; the metrics follow the task; the loss survives a model file; labels
 * that do not fit the loss are refused with the reason. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scratch.h"
#include "train_fixture.h"

#define FEATURES 6
#define EXAMPLES 240
#define BATCH 48
#define MAX_STEPS 400

static tdm_context *ctx;
static tdm_device *devs[3];
static size_t n_devs;

/* The tasks, each a function of the features. */
typedef enum task { REGRESSION, BINARY, MULTI_LABEL, SOFT_LABELS } task;

static size_t task_outputs(task t)
{
    return t == REGRESSION ? 2 : t == BINARY ? 1 : 3;
}

static void task_targets(task t, const float *x, float *y)
{
    float a = x[0] + 0.5f * x[1] - x[2], b = x[3] * x[4] + 0.3f * x[5];
    switch (t) {
    case REGRESSION:
        y[0] = 2.0f * a + 0.5f;
        y[1] = x[3] - 0.5f * x[4] + 0.3f * x[5] * x[5];
        return;
    case BINARY:
        y[0] = a > 0.0f;
        return;
    case MULTI_LABEL:
        y[0] = a > 0.0f, y[1] = b > 0.0f, y[2] = x[5] > 0.2f;
        return;
    case SOFT_LABELS: { /* one-hot of the largest score, softened as label smoothing does */
        float s[3] = {a, b, x[5]};
        size_t best = s[1] > s[0] ? 1 : 0;
        best = s[2] > s[best] ? 2 : best;
        for (size_t c = 0; c < 3; c++)
            y[c] = c == best ? 0.9f : 0.05f;
        return;
    }
    }
}

static tdm_dataset *task_data(task t, uint64_t seed, int batched)
{
    static float x[EXAMPLES * FEATURES], y[EXAMPLES * 3];
    size_t k = task_outputs(t);
    uint64_t state = seed;
    for (size_t i = 0; i < EXAMPLES; i++) {
        for (size_t j = 0; j < FEATURES; j++)
            x[i * FEATURES + j] = fixture_draw(&state);
        task_targets(t, x + i * FEATURES, y + i * k);
    }
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_targets(x, y, EXAMPLES, FEATURES, k, &ds));
    if (ds && batched) {
        CHECK_OK(tdm_dataset_shuffle(ds, 5));
        CHECK_OK(tdm_dataset_batch(ds, BATCH, 0));
        CHECK_OK(tdm_dataset_repeat(ds, TDM_REPEAT_FOREVER));
    }
    return ds;
}

static void open_trainer(trainer *t, tdm_device *const *d, size_t n, task k, tdm_loss_kind loss,
                         float learning_rate)
{
    tdm_layer layers[] = {TDM_DENSE(24, TDM_ACT_TANH, 0.0f),
                          TDM_DENSE(task_outputs(k), TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.input_features = FEATURES;
    mo.layers = layers;
    mo.layer_count = 2;
    mo.loss = loss;
    mo.huber_delta = 0.5f;
    mo.seed = 17;
    trainer_open_on(t, ctx, d, n, &mo, TDM_OPT_SGD, learning_rate);
}

/* Steps over ds, distributed (cached on the devices or not), recording the losses. */
static size_t run_steps(trainer *t, const tdm_dataset *ds, size_t steps, int cached,
                        double *losses)
{
    if (!cached)
        return fixture_train_steps(t->strategy, t->op, ds, steps, losses);
    tdm_distribute_options o = TDM_DISTRIBUTE_OPTIONS_INIT;
    o.cache_on_devices = 1;
    tdm_distributed_dataset *dist = NULL;
    tdm_distributed_iterator *it = NULL;
    CHECK_OK(tdm_distribute_dataset(t->strategy, ds, &o, &dist));
    CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    size_t done = 0;
    const tdm_distributed_batch *b = NULL;
    while (done < steps && it && tdm_distributed_iterator_next(it, &b) == TDM_OK &&
           b->global_batch_size && tdm_train_op_run(t->op, b, &losses[done]) == TDM_OK)
        done++;
    tdm_distributed_iterator_destroy(it);
    tdm_distributed_dataset_destroy(dist);
    return done;
}

/* One replica and every replica on the same global batches lose the same at every
 * step (the rule of the seed's strategies), and the loss falls (soft labels' by less:
 * their entropy, 0.39 here, is its floor). */
static void check_learns(task k, tdm_loss_kind loss, float lr, size_t steps, int cached,
                         tdm_evaluation *ev)
{
    tdm_dataset *ds = task_data(k, 99, 1), *test = task_data(k, 7, 0);
    trainer one, many;
    static double a[MAX_STEPS], b[MAX_STEPS];
    open_trainer(&one, devs, 1, k, loss, lr);
    open_trainer(&many, devs, n_devs, k, loss, lr);
    CHECK(run_steps(&one, ds, steps, 0, a) == steps);
    CHECK(run_steps(&many, ds, steps, cached, b) == steps);
    double worst = fixture_worst_relative(b, a, steps);
    CHECK(worst <= 1e-4);
    CHECK(a[steps - 1] < 0.6 * a[0]);
    if (worst > 1e-4 || !(a[steps - 1] < 0.6 * a[0]))
        fprintf(stderr, "%s: loss %g -> %g, worst relative difference between replicas %g\n",
                tdm_loss_kind_name(loss), a[0], a[steps - 1], worst);
    CHECK_OK(tdm_strategy_check_mirrored(many.strategy));
    CHECK_OK(tdm_model_evaluate(many.model, test, ev));
    CHECK(ev->examples == EXAMPLES);
    trainer_close(&one);
    trainer_close(&many);
    tdm_dataset_destroy(ds);
    tdm_dataset_destroy(test);
}

static void check_tasks(void)
{
    tdm_evaluation ev;
    check_learns(REGRESSION, TDM_LOSS_MEAN_SQUARED_ERROR, 0.1f, 400, 0, &ev);
    CHECK(ev.r2 > 0.9 && ev.rmse > 0.0 && ev.mae > 0.0 && ev.mae <= ev.rmse && ev.accuracy == 0.0);
    CHECK(fabs(ev.loss - ev.rmse * ev.rmse) <= 1e-6 * ev.loss); /* the mean of squares */
    fprintf(stderr, "regression (mse): R^2 %.4f, RMSE %.4f, MAE %.4f\n", ev.r2, ev.rmse, ev.mae);
    check_learns(REGRESSION, TDM_LOSS_MEAN_ABSOLUTE_ERROR, 0.1f, 400, 1, &ev);
    CHECK(ev.r2 > 0.8 && fabs(ev.loss - ev.mae) <= 1e-6 * ev.loss);
    check_learns(REGRESSION, TDM_LOSS_HUBER, 0.1f, 400, 0, &ev);
    CHECK(ev.r2 > 0.8);
    check_learns(BINARY, TDM_LOSS_SIGMOID_CROSS_ENTROPY, 0.5f, 400, 1, &ev);
    CHECK(ev.accuracy > 0.9 && ev.r2 == 0.0);
    fprintf(stderr, "binary: accuracy %.4f, loss %.4f\n", ev.accuracy, ev.loss);
    check_learns(MULTI_LABEL, TDM_LOSS_SIGMOID_CROSS_ENTROPY, 0.5f, 400, 0, &ev);
    CHECK(ev.accuracy > 0.85);
    fprintf(stderr, "multi-label: binary accuracy %.4f\n", ev.accuracy);
    check_learns(SOFT_LABELS, TDM_LOSS_CATEGORICAL_CROSS_ENTROPY, 0.5f, 400, 0, &ev);
    CHECK(ev.accuracy > 0.85);
    fprintf(stderr, "soft labels: accuracy %.4f\n", ev.accuracy);
}

/* A step at learning rate 0 over the whole data in one batch reports the loss that
 * evaluation computes on the host: the kernels reduce as the metrics do. */
static void check_step_loss_is_evaluation(task k, tdm_loss_kind loss)
{
    tdm_dataset *ds = task_data(k, 3, 0);
    CHECK_OK(tdm_dataset_batch(ds, EXAMPLES, 0));
    trainer t;
    open_trainer(&t, devs, n_devs, k, loss, 0.0f);
    double step = 0.0;
    CHECK(run_steps(&t, ds, 1, 0, &step) == 1);
    tdm_evaluation ev;
    CHECK_OK(tdm_model_evaluate(t.model, ds, &ev));
    CHECK(fabs(step - ev.loss) <= 1e-5 * fmax(ev.loss, 1e-3));
    if (!(fabs(step - ev.loss) <= 1e-5 * fmax(ev.loss, 1e-3)))
        fprintf(stderr, "%s: a step's loss %.9g, evaluation's %.9g\n", tdm_loss_kind_name(loss),
                step, ev.loss);
    trainer_close(&t);
    tdm_dataset_destroy(ds);
}

static void check_losses_agree(void)
{
    check_step_loss_is_evaluation(REGRESSION, TDM_LOSS_MEAN_SQUARED_ERROR);
    check_step_loss_is_evaluation(REGRESSION, TDM_LOSS_MEAN_ABSOLUTE_ERROR);
    check_step_loss_is_evaluation(REGRESSION, TDM_LOSS_HUBER);
    check_step_loss_is_evaluation(MULTI_LABEL, TDM_LOSS_SIGMOID_CROSS_ENTROPY);
    check_step_loss_is_evaluation(SOFT_LABELS, TDM_LOSS_CATEGORICAL_CROSS_ENTROPY);
}

/* The loss kind and Huber's delta survive a model file. */
static void check_file(void)
{
    char dir[SCRATCH_PATH], path[SCRATCH_PATH + 32];
    CHECK(scratch_temp_dir(dir, "tdm_model_tasks") == 0);
    snprintf(path, sizeof path, "%s/huber.tdm", dir);
    trainer t;
    open_trainer(&t, devs, 1, REGRESSION, TDM_LOSS_HUBER, 0.1f);
    CHECK_OK(tdm_model_save(t.model, path));
    tdm_model *back = NULL;
    CHECK_OK(tdm_model_load(t.strategy, path, &back));
    CHECK(tdm_model_loss_kind(back) == TDM_LOSS_HUBER);
    tdm_dataset *ds = task_data(REGRESSION, 3, 0);
    tdm_evaluation a, b;
    CHECK_OK(tdm_model_evaluate(t.model, ds, &a));
    CHECK_OK(tdm_model_evaluate(back, ds, &b));
    CHECK(a.loss == b.loss); /* the same delta, the same weights */
    tdm_model_destroy(back);
    tdm_dataset_destroy(ds);
    trainer_close(&t);
    CHECK(scratch_remove_tree(dir) == 0);
}

/* Labels that do not fit the loss, named with the reason; and what a dataset refuses. */
static void check_refused(void)
{
    float x[4 * FEATURES] = {0}, y[4 * 2] = {0};
    int32_t classes[4] = {0, 1, 0, 1};
    tdm_dataset *targets = NULL, *labels = NULL, *wide = NULL;
    CHECK_OK(tdm_dataset_from_targets(x, y, 4, FEATURES, 2, &targets));
    CHECK_OK(tdm_dataset_from_arrays(x, classes, 4, FEATURES, 2, &labels));
    CHECK_OK(tdm_dataset_from_targets(x, y, 2, FEATURES, 4, &wide));
    CHECK(tdm_dataset_label_dtype(targets) == TDM_F32 && tdm_dataset_label_width(targets) == 2 &&
          tdm_dataset_class_count(targets) == 0);
    trainer t;
    tdm_evaluation ev;
    open_trainer(&t, devs, 1, REGRESSION, TDM_LOSS_MEAN_ABSOLUTE_ERROR, 0.1f);
    CHECK_FAILS(tdm_model_evaluate(t.model, labels, &ev), TDM_ERR_INVALID_ARGUMENT,
                "compares the outputs with float targets");
    CHECK_FAILS(tdm_model_evaluate(t.model, wide, &ev), TDM_ERR_INVALID_ARGUMENT,
                "4 float targets per example, and the model has 2 outputs");
    float rows[2 * FEATURES] = {0}, out[2 * 2];
    rows[FEATURES + 2] = NAN; /* refused as a dataset refuses it */
    CHECK_FAILS(tdm_model_predict(t.model, rows, 2, out), TDM_ERR_NUMERIC,
                "tdm_model_predict: feature 2 of example 1 is nan");
    trainer_close(&t);
    open_trainer(&t, devs, 1, REGRESSION, TDM_LOSS_SOFTMAX_CROSS_ENTROPY, 0.1f);
    CHECK_FAILS(tdm_model_evaluate(t.model, targets, &ev), TDM_ERR_INVALID_ARGUMENT,
                "categorical_crossentropy");
    trainer_close(&t);
    y[3] = NAN;
    tdm_dataset *bad = NULL;
    CHECK_FAILS(tdm_dataset_from_targets(x, y, 4, FEATURES, 2, &bad), TDM_ERR_NUMERIC,
                "target 1 of example 1 is nan");
    CHECK(bad == NULL);
    tdm_dataset_destroy(targets);
    tdm_dataset_destroy(labels);
    tdm_dataset_destroy(wide);
}

/* Loss names: each kind's, Keras', and an unknown one listed against them. */
static void check_names(void)
{
    tdm_loss_kind k;
    CHECK_OK(tdm_loss_kind_parse("mse", &k));
    CHECK(k == TDM_LOSS_MEAN_SQUARED_ERROR);
    CHECK_OK(tdm_loss_kind_parse("binary_crossentropy", &k));
    CHECK(k == TDM_LOSS_SIGMOID_CROSS_ENTROPY);
    CHECK_OK(tdm_loss_kind_parse("softmax_cross_entropy", &k));
    CHECK(k == TDM_LOSS_SOFTMAX_CROSS_ENTROPY);
    CHECK_FAILS(tdm_loss_kind_parse("msle", &k), TDM_ERR_INVALID_ARGUMENT,
                "unknown loss 'msle': the losses are sparse_categorical_crossentropy");
    for (int i = 0; i < TDM_LOSS_KIND_COUNT; i++) {
        CHECK_OK(tdm_loss_kind_parse(tdm_loss_kind_alias((tdm_loss_kind)i), &k));
        CHECK(k == (tdm_loss_kind)i && tdm_loss_kind_labels(k) != 0);
    }
    CHECK(!strcmp(tdm_loss_kind_name(TDM_LOSS_KIND_COUNT), "unknown"));
}

void test_case_model_tasks(const test_run *run)
{
    n_devs = test_scenario_of(run, &ctx, devs);
    check_names();
    check_tasks();
    check_losses_agree();
    check_file();
    check_refused();
}
