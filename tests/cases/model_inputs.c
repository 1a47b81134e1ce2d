/* Models of several inputs, side by side in each example's features: a model whose
 * two inputs are the same columns twice trains to the same bits as the model of one
 * input that reads them twice; a wide-and-deep model (numbers beside ids, the ids
 * embedded) and an image beside numbers learn their tasks, replicas train as one, a
 * saved file keeps the inputs and predicts the same bits; inputs that do not add up
 * are refused naming what is wrong. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "scratch.h"
#include "train_fixture.h"

#define NUMBERS 4   /* the wide input's features */
#define IDS 2       /* the deep input's ids per example */
#define VOCAB 10
#define EXAMPLES 240
#define BATCH 48
#define STEPS 300

static tdm_context *ctx;
static tdm_device *devs[3];
static size_t n_devs;

#define WIDTH (NUMBERS + IDS)

/* Numbers, then ids; the target a function of both (each id a value of its own). */
static void wide_and_deep_rows(uint64_t seed, float *x, float *y)
{
    static const float id_value[VOCAB] = {0.9f, -0.4f, 0.1f, -1.0f, 0.6f,
                                          -0.2f, 0.3f, 0.8f, -0.7f, 0.0f};
    uint64_t state = seed;
    for (size_t i = 0; i < EXAMPLES; i++) {
        float *row = x + i * (NUMBERS + IDS);
        for (size_t j = 0; j < NUMBERS; j++)
            row[j] = fixture_draw(&state);
        for (size_t j = 0; j < IDS; j++)
            row[NUMBERS + j] = (float)((size_t)((fixture_draw(&state) + 1.0f) * 5.0f) % VOCAB);
        y[i] = row[0] - 0.5f * row[1] * row[2] + id_value[(size_t)row[NUMBERS]] -
               0.5f * id_value[(size_t)row[NUMBERS + 1]];
    }
}

static tdm_dataset *wide_and_deep_data(uint64_t seed, int batched)
{
    static float x[EXAMPLES * WIDTH], y[EXAMPLES];
    wide_and_deep_rows(seed, x, y);
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_targets(x, y, EXAMPLES, WIDTH, 1, &ds));
    if (ds && batched) {
        CHECK_OK(tdm_dataset_shuffle(ds, 5));
        CHECK_OK(tdm_dataset_batch(ds, BATCH, 0));
        CHECK_OK(tdm_dataset_repeat(ds, TDM_REPEAT_FOREVER));
    }
    return ds;
}

/* The ids embedded and flattened beside the numbers as they are. */
static const tdm_layer wide_and_deep[] = {
    {.kind = TDM_LAYER_EMBEDDING, .units = 3, .vocab = VOCAB, .input_count = 1,
     .inputs = {TDM_MODEL_INPUT_AT(1)}},
    TDM_DENSE(8, TDM_ACT_TANH, 0.0f),
    {.kind = TDM_LAYER_DENSE, .units = 16, .activation = TDM_ACT_TANH, .input_count = 1,
     .inputs = {TDM_MODEL_INPUT_AT(0)}},
    TDM_CONCATENATE(1, 2),
    {.kind = TDM_LAYER_CONCATENATE, .input_count = 2, .inputs = {3, TDM_MODEL_INPUT_AT(0)}},
    TDM_DENSE(1, TDM_ACT_LINEAR, 0.0f),
};
#define WIDE_AND_DEEP_LAYERS (sizeof wide_and_deep / sizeof wide_and_deep[0])

static tdm_model_options wide_and_deep_options(void)
{
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.inputs = 2;
    mo.input_widths[0] = NUMBERS;
    mo.input_widths[1] = IDS;
    mo.layers = wide_and_deep;
    mo.layer_count = WIDE_AND_DEEP_LAYERS;
    mo.loss = TDM_LOSS_MEAN_SQUARED_ERROR;
    mo.seed = 23;
    return mo;
}

static void open_trainer(trainer *t, tdm_device *const *d, size_t n, const tdm_model_options *mo,
                         float learning_rate)
{
    trainer_open_on(t, ctx, d, n, mo, TDM_OPT_SGD, learning_rate);
}

/* Two inputs that are the same columns twice, each read by a branch of its own,
 * against one input read by both branches: the same initial weights, the same
 * losses bit for bit, on one device and on all. */
static void check_split_is_exact(void)
{
    enum { SPLIT_STEPS = 20 };
    static float x[EXAMPLES * WIDTH], twice[EXAMPLES * 2 * WIDTH], y[EXAMPLES];
    wide_and_deep_rows(41, x, y);
    tdm_dataset *once = NULL, *doubled = NULL;
    CHECK_OK(tdm_dataset_from_targets(x, y, EXAMPLES, WIDTH, 1, &once));
    for (size_t i = 0; i < EXAMPLES; i++) {
        memcpy(twice + i * 2 * WIDTH, x + i * WIDTH, WIDTH * sizeof x[0]);
        memcpy(twice + i * 2 * WIDTH + WIDTH, x + i * WIDTH, WIDTH * sizeof x[0]);
    }
    CHECK_OK(tdm_dataset_from_targets(twice, y, EXAMPLES, 2 * WIDTH, 1, &doubled));
    tdm_dataset *sets[2] = {once, doubled};
    for (size_t k = 0; k < 2; k++) {
        CHECK_OK(tdm_dataset_batch(sets[k], BATCH, 0));
        CHECK_OK(tdm_dataset_repeat(sets[k], TDM_REPEAT_FOREVER));
    }
    tdm_layer one[] = {TDM_DENSE(8, TDM_ACT_TANH, 0.0f),
                       {.kind = TDM_LAYER_DENSE, .units = 8, .activation = TDM_ACT_TANH,
                        .input_count = 1, .inputs = {TDM_MODEL_INPUT}},
                       TDM_CONCATENATE(0, 1), TDM_DENSE(1, TDM_ACT_LINEAR, 0.0f)};
    tdm_layer two[4];
    memcpy(two, one, sizeof one);
    two[1].inputs[0] = TDM_MODEL_INPUT_AT(1);
    tdm_model_options a = TDM_MODEL_OPTIONS_INIT, b;
    a.input_features = WIDTH;
    a.layers = one;
    a.layer_count = 4;
    a.loss = TDM_LOSS_MEAN_SQUARED_ERROR;
    a.seed = 5;
    b = a;
    b.input_features = 0;
    b.inputs = 2;
    b.input_widths[0] = b.input_widths[1] = WIDTH;
    b.layers = two;
    for (size_t n = 1; n <= n_devs; n += n_devs > 1 ? n_devs - 1 : 1) {
        trainer ta, tb;
        double la[SPLIT_STEPS], lb[SPLIT_STEPS];
        open_trainer(&ta, devs, n, &a, 0.01f);
        open_trainer(&tb, devs, n, &b, 0.01f);
        CHECK(tdm_model_input_count(tb.model) == 2 * WIDTH);
        CHECK(fixture_train_steps(ta.strategy, ta.op, once, SPLIT_STEPS, la) == SPLIT_STEPS);
        CHECK(fixture_train_steps(tb.strategy, tb.op, doubled, SPLIT_STEPS, lb) == SPLIT_STEPS);
        CHECK(memcmp(la, lb, sizeof la) == 0);
        CHECK(la[SPLIT_STEPS - 1] < la[0]);
        trainer_close(&ta);
        trainer_close(&tb);
    }
    tdm_dataset_destroy(once);
    tdm_dataset_destroy(doubled);
}

/* Learns, replicas train as one, and a saved file keeps the inputs. */
static void check_wide_and_deep(void)
{
    tdm_model_options mo = wide_and_deep_options();
    tdm_dataset *ds = wide_and_deep_data(99, 1), *test = wide_and_deep_data(7, 0);
    trainer one, many;
    static double a[STEPS], b[STEPS];
    open_trainer(&one, devs, 1, &mo, 0.1f);
    open_trainer(&many, devs, n_devs, &mo, 0.1f);
    size_t widths[TDM_MODEL_MAX_INPUTS] = {0};
    CHECK(tdm_model_input_widths(one.model, widths, TDM_MODEL_MAX_INPUTS) == 2);
    CHECK(widths[0] == NUMBERS && widths[1] == IDS && widths[2] == 0);
    CHECK(tdm_model_input_count(one.model) == WIDTH);
    CHECK(fixture_train_steps(one.strategy, one.op, ds, STEPS, a) == STEPS);
    CHECK(fixture_train_steps(many.strategy, many.op, ds, STEPS, b) == STEPS);
    double worst = fixture_worst_relative(b, a, STEPS);
    tdm_evaluation ev;
    CHECK_OK(tdm_model_evaluate(many.model, test, &ev));
    fprintf(stderr,
            "wide and deep: loss %.4f -> %.4f, %zu replicas against 1 worst relative %g; test "
            "R^2 %.4f\n",
            a[0], a[STEPS - 1], n_devs, worst, ev.r2);
    CHECK(worst <= 1e-4);
    CHECK(a[STEPS - 1] < 0.3 * a[0]);
    CHECK(ev.r2 > 0.8);
    CHECK_OK(tdm_strategy_check_mirrored(many.strategy));

    static float x[EXAMPLES * WIDTH], y[EXAMPLES];
    float want[4], got[4];
    wide_and_deep_rows(7, x, y);
    CHECK_OK(tdm_model_predict(many.model, x, 4, want));
    char path[4096];
    scratch_root("tdm_inputs");
    scratch_path(path, "model.safetensors", 0);
    CHECK_OK(tdm_model_save(many.model, path));
    tdm_model *back = NULL;
    CHECK_OK(tdm_model_load(one.strategy, path, &back));
    CHECK_OK(tdm_model_predict(back, x, 4, got));
    CHECK(memcmp(want, got, sizeof got) == 0);
    memset(widths, 0, sizeof widths);
    CHECK(tdm_model_input_widths(back, widths, 1) == 2 && widths[0] == NUMBERS && widths[1] == 0);
    tdm_model_destroy(back);
    scratch_remove();
    trainer_close(&one);
    trainer_close(&many);
    tdm_dataset_destroy(ds);
    tdm_dataset_destroy(test);
}

/* An image beside numbers: input 0 a 4 x 4 image under a convolution, input 1 two
 * numbers under a dense layer, joined. It learns (the image's mean plus a number),
 * replicas train as one, and a saved file keeps the image and the widths. */
static void check_image_beside_numbers(void)
{
    enum { SIDE = 4, PIXELS = SIDE * SIDE, NUMBERS2 = 2, ROWS = 192, IMAGE_STEPS = 150 };
    static float x[ROWS * (PIXELS + NUMBERS2)], y[ROWS];
    uint64_t state = 5;
    for (size_t i = 0; i < ROWS; i++) {
        float *row = x + i * (PIXELS + NUMBERS2), mean = 0.0f;
        for (size_t j = 0; j < PIXELS + NUMBERS2; j++)
            row[j] = fixture_draw(&state);
        for (size_t j = 0; j < PIXELS; j++)
            mean += row[j] / PIXELS;
        y[i] = 2.0f * mean + row[PIXELS] - 0.5f * row[PIXELS + 1];
    }
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_targets(x, y, ROWS, PIXELS + NUMBERS2, 1, &ds));
    CHECK_OK(tdm_dataset_batch(ds, BATCH, 0));
    CHECK_OK(tdm_dataset_repeat(ds, TDM_REPEAT_FOREVER));
    const tdm_layer layers[] = {
        TDM_CONV2D(4, 3, TDM_ACT_TANH), /* reads input 0, the image */
        TDM_GLOBAL_AVG_POOL2D(),
        {.kind = TDM_LAYER_DENSE, .units = 8, .activation = TDM_ACT_TANH, .input_count = 1,
         .inputs = {TDM_MODEL_INPUT_AT(1)}},
        TDM_CONCATENATE(1, 2),
        TDM_DENSE(1, TDM_ACT_LINEAR, 0.0f),
    };
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.inputs = 2;
    mo.input_widths[0] = PIXELS, mo.input_widths[1] = NUMBERS2;
    mo.input_height = mo.input_width = SIDE, mo.input_channels = 1;
    mo.layers = layers;
    mo.layer_count = sizeof layers / sizeof layers[0];
    mo.loss = TDM_LOSS_MEAN_SQUARED_ERROR;
    mo.seed = 11;
    trainer one, many;
    static double a[IMAGE_STEPS], b[IMAGE_STEPS];
    open_trainer(&one, devs, 1, &mo, 0.1f);
    open_trainer(&many, devs, n_devs, &mo, 0.1f);
    CHECK(tdm_model_input_count(one.model) == PIXELS + NUMBERS2);
    CHECK(fixture_train_steps(one.strategy, one.op, ds, IMAGE_STEPS, a) == IMAGE_STEPS);
    CHECK(fixture_train_steps(many.strategy, many.op, ds, IMAGE_STEPS, b) == IMAGE_STEPS);
    double worst = fixture_worst_relative(b, a, IMAGE_STEPS);
    fprintf(stderr, "image beside numbers: loss %.4f -> %.4f, worst relative %g\n", a[0],
            a[IMAGE_STEPS - 1], worst);
    CHECK(worst <= 1e-4);
    CHECK(a[IMAGE_STEPS - 1] < 0.5 * a[0]);
    float want[4], got[4];
    CHECK_OK(tdm_model_predict(many.model, x, 4, want));
    char path[4096];
    scratch_root("tdm_inputs_image");
    scratch_path(path, "model.safetensors", 0);
    CHECK_OK(tdm_model_save(many.model, path));
    tdm_model *back = NULL;
    CHECK_OK(tdm_model_load(one.strategy, path, &back));
    CHECK_OK(tdm_model_predict(back, x, 4, got));
    CHECK(memcmp(want, got, sizeof got) == 0);
    tdm_model_destroy(back);
    scratch_remove();
    trainer_close(&one);
    trainer_close(&many);
    tdm_dataset_destroy(ds);
}

/* Inputs that make no model, each refused with the reason; nothing is built. */
static void check_refused(void)
{
    tdm_strategy *s = NULL;
    tdm_model *m = NULL;
    CHECK_OK(tdm_strategy_create_one_device(devs[0], NULL, &s));
    tdm_layer layers[WIDE_AND_DEEP_LAYERS];
    memcpy(layers, wide_and_deep, sizeof layers);
    tdm_model_options mo = wide_and_deep_options();
    mo.layers = layers;
    mo.input_features = 7;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "input_features is 7, but the 2 inputs' widths sum to 6");
    mo.input_features = 0;
    mo.input_widths[1] = 0;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "input 1 of 2 has 0 features");
    mo = wide_and_deep_options();
    mo.layers = layers;
    mo.inputs = 9;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "9 inputs; a model takes 1 to 8");
    mo.inputs = 2;
    mo.input_widths[2] = 3;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "input_widths[2] is 3, past the model's 2 inputs");
    mo = wide_and_deep_options();
    mo.layers = layers;
    layers[2].inputs[0] = TDM_MODEL_INPUT_AT(2);
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 2 (dense) reads -3 as input 0, the model's input 2; the model has 2 "
                "(-1 to -2)");
    layers[2].inputs[0] = TDM_MODEL_INPUT_AT(1);
    layers[4].inputs[1] = 2;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "the model's input 0 (-1) is read by no layer");
    memcpy(layers, wide_and_deep, sizeof layers);
    layers[2] = (tdm_layer)TDM_CONV2D(4, 3, TDM_ACT_TANH);
    layers[2].input_count = 1, layers[2].inputs[0] = TDM_MODEL_INPUT_AT(1);
    mo.input_height = 2, mo.input_width = 2, mo.input_channels = 1;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 2 (conv2d) needs an image: the model's input 1 is flat");
    mo.input_height = 3;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "input 0 is an image of 3 x 2 x 1, 6 features, but its width is 4");
    CHECK(m == NULL);
    tdm_strategy_destroy(s);
}

void test_case_model_inputs(const test_run *run)
{
    n_devs = test_scenario_of(run, &ctx, devs);
    check_split_is_exact();
    check_wide_and_deep();
    check_image_beside_numbers();
    check_refused();
}
