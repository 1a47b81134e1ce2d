/* A label per position of a sequence: ids embedded, a convolution along the sequence,
 * a 1x1 convolution giving each position its classes, the sparse softmax
 * cross-entropy per position with padding masked. The model learns to tag each
 * token; replicas train as one; a step's loss is the evaluation's (masked positions
 * count 0, the mean over every position); labels that do not fit the output are
 * refused. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "train_fixture.h"

#define LENGTH 12 /* positions per sequence */
#define VOCAB 6
#define TAGS 3
#define EXAMPLES 240
#define BATCH 48
#define STEPS 200

static tdm_context *ctx;
static tdm_device *devs[3];
static size_t n_devs;

/* Sequences of 4 to 12 ids, padded with id 0; each position's tag is the sum of its id
 * and the one before, modulo 3; padding is masked (-1). */
static tdm_dataset *sequences(uint64_t seed, int batched)
{
    static float x[EXAMPLES * LENGTH];
    static int32_t y[EXAMPLES * LENGTH];
    uint64_t state = seed;
    for (size_t i = 0; i < EXAMPLES; i++) {
        size_t length = 4 + (size_t)((fixture_draw(&state) + 1.0f) * 4.5f);
        for (size_t p = 0; p < LENGTH; p++) {
            size_t id = p < length ? (size_t)((fixture_draw(&state) + 1.0f) * 3.0f) % VOCAB : 0;
            x[i * LENGTH + p] = (float)id;
            size_t before = p ? (size_t)x[i * LENGTH + p - 1] : 0;
            y[i * LENGTH + p] = p < length ? (int32_t)((id + before) % TAGS) : -1;
        }
    }
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_sequences(x, y, EXAMPLES, LENGTH, LENGTH, TAGS, &ds));
    if (ds && batched) {
        CHECK_OK(tdm_dataset_shuffle(ds, 5));
        CHECK_OK(tdm_dataset_batch(ds, BATCH, 0));
        CHECK_OK(tdm_dataset_repeat(ds, TDM_REPEAT_FOREVER));
    }
    return ds;
}

static const tdm_layer tagger[] = {
    TDM_EMBEDDING(VOCAB, 8), /* 1 x 12 x 8 */
    {.kind = TDM_LAYER_CONV2D, .units = 16, .activation = TDM_ACT_TANH, .kernel_h = 1,
     .kernel_w = 3}, /* each position with its neighbours */
    TDM_CONV2D(TAGS, 1, TDM_ACT_LINEAR), /* 1 x 12 x 3: a position's classes */
};

static tdm_model_options tagger_options(void)
{
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.input_features = LENGTH;
    mo.layers = tagger;
    mo.layer_count = sizeof tagger / sizeof tagger[0];
    mo.seed = 3;
    return mo;
}

static void check_learns(void)
{
    tdm_model_options mo = tagger_options();
    tdm_dataset *ds = sequences(99, 1), *test = sequences(7, 0);
    trainer one, many;
    static double a[STEPS], b[STEPS];
    trainer_open_on(&one, ctx, devs, 1, &mo, TDM_OPT_ADAM, 0.01f);
    trainer_open_on(&many, ctx, devs, n_devs, &mo, TDM_OPT_ADAM, 0.01f);
    CHECK(fixture_train_steps(one.strategy, one.op, ds, STEPS, a) == STEPS);
    CHECK(fixture_train_steps(many.strategy, many.op, ds, STEPS, b) == STEPS);
    double worst = fixture_worst_relative(b, a, STEPS);
    tdm_evaluation ev;
    CHECK_OK(tdm_model_evaluate(many.model, test, &ev));
    fprintf(stderr,
            "tagger: loss %.4f -> %.4f, %zu replicas against 1 worst relative %g; test token "
            "accuracy %.4f\n",
            a[0], a[STEPS - 1], n_devs, worst, ev.accuracy);
    CHECK(worst <= 1e-4);
    CHECK(a[STEPS - 1] < 0.3 * a[0]);
    CHECK(ev.accuracy > 0.95 && ev.examples == EXAMPLES);
    CHECK_OK(tdm_strategy_check_mirrored(many.strategy));
    trainer_close(&one);
    trainer_close(&many);
    tdm_dataset_destroy(ds);
    tdm_dataset_destroy(test);
}

/* At learning rate 0, a step over every example is the evaluation's loss: the
 * kernels mask and average as the host does. */
static void check_step_loss_is_evaluation(void)
{
    tdm_model_options mo = tagger_options();
    tdm_dataset *ds = sequences(3, 0);
    CHECK_OK(tdm_dataset_batch(ds, EXAMPLES, 0));
    trainer t;
    trainer_open_on(&t, ctx, devs, n_devs, &mo, TDM_OPT_SGD, 0.0f);
    double step = 0.0;
    CHECK(fixture_train_steps(t.strategy, t.op, ds, 1, &step) == 1);
    tdm_evaluation ev;
    CHECK_OK(tdm_model_evaluate(t.model, ds, &ev));
    if (!(fabs(step - ev.loss) <= 1e-5 * ev.loss))
        fprintf(stderr, "a step's loss %.9g, evaluation's %.9g\n", step, ev.loss);
    CHECK(fabs(step - ev.loss) <= 1e-5 * ev.loss);
    trainer_close(&t);
    tdm_dataset_destroy(ds);
}

/* The tagger's image output with one label per example: the loss over all its 36
 * outputs, as for any model, a step's loss the evaluation's. */
static void check_label_per_example(void)
{
    static float x[EXAMPLES * LENGTH];
    static int32_t y[EXAMPLES];
    uint64_t state = 13;
    for (size_t i = 0; i < EXAMPLES; i++) {
        for (size_t p = 0; p < LENGTH; p++)
            x[i * LENGTH + p] = (float)((size_t)((fixture_draw(&state) + 1.0f) * 3.0f) % VOCAB);
        y[i] = (int32_t)(i % (LENGTH * TAGS));
    }
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_arrays(x, y, EXAMPLES, LENGTH, LENGTH * TAGS, &ds));
    CHECK_OK(tdm_dataset_batch(ds, EXAMPLES, 0));
    tdm_model_options mo = tagger_options();
    trainer t;
    trainer_open_on(&t, ctx, devs, n_devs, &mo, TDM_OPT_SGD, 0.0f);
    double step = 0.0;
    CHECK(fixture_train_steps(t.strategy, t.op, ds, 1, &step) == 1);
    tdm_evaluation ev;
    CHECK_OK(tdm_model_evaluate(t.model, ds, &ev));
    CHECK(fabs(step - ev.loss) <= 1e-5 * ev.loss);
    trainer_close(&t);
    tdm_dataset_destroy(ds);
}

/* A label per position needs an output of as many positions and the sparse
 * softmax cross-entropy. */
static void check_refused(void)
{
    static const float x[2 * LENGTH];
    int32_t y[2 * LENGTH] = {0};
    tdm_dataset *ds = NULL, *shorter = NULL;
    CHECK_OK(tdm_dataset_from_sequences(x, y, 2, LENGTH, LENGTH, TAGS, &ds));
    CHECK_OK(tdm_dataset_from_sequences(x, y, 2, LENGTH, LENGTH - 1, TAGS, &shorter));
    tdm_evaluation ev;
    trainer t;
    tdm_model_options mo = tagger_options();
    trainer_open_on(&t, ctx, devs, 1, &mo, TDM_OPT_SGD, 0.1f);
    CHECK_FAILS(tdm_model_evaluate(t.model, shorter, &ev), TDM_ERR_INVALID_ARGUMENT,
                "the labels are 11 class indices per example (a sequence's); the model's output "
                "has 12 position(s) of 3 outputs each");
    trainer_close(&t);
    mo.loss = TDM_LOSS_MEAN_SQUARED_ERROR;
    trainer_open_on(&t, ctx, devs, 1, &mo, TDM_OPT_SGD, 0.1f);
    CHECK_FAILS(tdm_model_evaluate(t.model, ds, &ev), TDM_ERR_INVALID_ARGUMENT,
                "and the loss is mse: a label per position takes");
    trainer_close(&t);
    tdm_dataset_destroy(ds);
    tdm_dataset_destroy(shorter);
}

void test_case_model_sequences(const test_run *run)
{
    n_devs = test_scenario_of(run, &ctx, devs);
    check_learns();
    check_step_loss_is_evaluation();
    check_label_per_example();
    check_refused();
}
