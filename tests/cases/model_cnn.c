/* Convolutional models: the digits as 8 x 8 images through convolution, max and
 * average pooling and dense layers. N replicas train like one replica on the global
 * batch; the model's gradients (conv2d filters and biases, pooling's routing, the
 * flattening dense layer) match central differences of its loss; a saved model
 * predicts the same bits after loading; options that make no model are refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scratch.h"
#include "train_fixture.h"

#define STEPS 30
#define FEATURES 64
#define CLASSES 10

static tdm_context *ctx;
static tdm_device *devs[3];
static size_t n_devs;
static const char *digits_path;

/* conv 6 filters 3x3 SAME, max pool 2 (4x4), conv 8 filters 3x3 stride 1 VALID (2x2),
 * average pool 2 over SAME (1x1), dense 16 with dropout, dense 10. */
static const tdm_layer cnn[] = {
    TDM_CONV2D(6, 3, TDM_ACT_RELU),
    TDM_MAX_POOL2D(2),
    {.kind = TDM_LAYER_CONV2D,
     .units = 8,
     .activation = TDM_ACT_TANH,
     .kernel_h = 3,
     .kernel_w = 3,
     .padding = TDM_PADDING_VALID},
    TDM_AVG_POOL2D(2),
    TDM_DENSE(16, TDM_ACT_RELU, 0.25f),
    TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f),
};
#define CNN_LAYERS (sizeof cnn / sizeof cnn[0])

static tdm_model_options cnn_options(void)
{
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.layers = cnn;
    mo.layer_count = CNN_LAYERS;
    mo.input_height = mo.input_width = 8;
    mo.input_channels = 1;
    mo.seed = 5;
    return mo;
}

/* loss_scale > 0: dynamic loss scaling from that scale; gradients all-reduced as
 * all_reduce (f32 or f16; f16 in buckets of 1 KiB, several per step). */
static void trainer_open_reduced(trainer *t, tdm_device *const *d, size_t n, float lr,
                                 const tdm_model_options *mo, float loss_scale,
                                 tdm_dtype all_reduce)
{
    memset(t, 0, sizeof *t);
    CHECK_OK(n == 1 ? tdm_strategy_create_one_device(d[0], NULL, &t->strategy)
                    : tdm_strategy_create_mirrored(ctx, d, n, NULL, &t->strategy));
    CHECK_OK(tdm_model_create(t->strategy, mo, &t->model));
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.kind = TDM_OPT_SGD;
    oo.learning_rate.initial = lr;
    CHECK_OK(tdm_optimizer_create(t->strategy, &oo, &t->opt));
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = tdm_model_loss;
    to.loss_user = t->model;
    to.optimizer = t->opt;
    to.seed = 3;
    to.loss_scale = loss_scale;
    to.all_reduce_dtype = all_reduce;
    if (all_reduce == TDM_F16)
        to.bucket_bytes = to.first_bucket_bytes = 1024;
    CHECK_OK(tdm_train_op_create(t->strategy, &to, &t->op));
}

static void trainer_open_model(trainer *t, tdm_device *const *d, size_t n, float lr,
                               const tdm_model_options *mo, float loss_scale)
{
    trainer_open_reduced(t, d, n, lr, mo, loss_scale, TDM_F32);
}

static void trainer_open(trainer *t, tdm_device *const *d, size_t n, float lr)
{
    tdm_model_options mo = cnn_options();
    trainer_open_model(t, d, n, lr, &mo, 0.0f);
    CHECK(tdm_model_variable_count(t->model) == 8);
}

/* The digits' training split; raw: the pixel values as they are, whole numbers from
 * 0 to 16 (an embedding's ids), else standardised. */
static tdm_dataset *digits_as(size_t batch, int64_t epochs, int raw)
{
    tdm_dataset *ds = NULL, *train = NULL, *test = NULL;
    CHECK_OK(tdm_dataset_from_csv(digits_path, NULL, &ds));
    CHECK_OK(tdm_dataset_split(ds, 0.8, &train, &test));
    float mean[FEATURES], std[FEATURES];
    CHECK_OK(tdm_dataset_feature_stats(train, mean, std));
    if (!raw)
        CHECK_OK(tdm_dataset_standardize(train, mean, std));
    CHECK_OK(tdm_dataset_shuffle(train, 7));
    CHECK_OK(tdm_dataset_batch(train, batch, 0));
    CHECK_OK(tdm_dataset_repeat(train, epochs));
    tdm_dataset_destroy(ds);
    tdm_dataset_destroy(test);
    return train;
}

static tdm_dataset *digits(size_t batch, int64_t epochs)
{
    return digits_as(batch, epochs, 0);
}

static size_t train_steps(trainer *t, tdm_dataset *ds, size_t steps, double *losses)
{
    return fixture_train_steps(t->strategy, t->op, ds, steps, losses);
}

/* The largest |got - want| / |want| over the steps' losses. */
static double worst_relative(const double *got, const double *want)
{
    double worst = 0.0;
    for (size_t i = 0; i < STEPS; i++)
        worst = fmax(worst, fabs(got[i] - want[i]) / fabs(want[i]));
    return worst;
}

/* The N == 1 rule for a model of these options: every step's loss within 1e-4 of one
 * replica's on the same global batch (the 23rd a partial batch, split unevenly), and
 * the loss falls. */
static void check_equivalence_of(const char *what, const tdm_model_options *mo, int raw, float lr)
{
    tdm_dataset *ds = digits_as(64, 2, raw);
    trainer one, many;
    double a[STEPS], b[STEPS];
    trainer_open_model(&one, devs, 1, lr, mo, 0.0f);
    trainer_open_model(&many, devs, n_devs, lr, mo, 0.0f);
    CHECK(train_steps(&one, ds, STEPS, a) == STEPS);
    CHECK(train_steps(&many, ds, STEPS, b) == STEPS);
    double worst = worst_relative(b, a);
    fprintf(stderr,
            "%s: %zu replicas against 1: worst relative loss difference %g; loss %.4f -> "
            "%.4f\n",
            what, n_devs, worst, a[0], a[STEPS - 1]);
    CHECK(worst <= 1e-4);
    CHECK(a[STEPS - 1] < 0.85 * a[0]);
    CHECK_OK(tdm_strategy_check_mirrored(many.strategy));
    trainer_close(&one);
    trainer_close(&many);
    tdm_dataset_destroy(ds);
}

static void check_equivalence(void)
{
    tdm_model_options mo = cnn_options();
    check_equivalence_of("cnn", &mo, 0, 0.1f);
}

/* Mixed precision: with f16 operands in every product the losses follow the f32
 * model's closely but not bitwise. N replicas compute each example's forward pass as
 * one replica does (the first loss agrees to f32 rounding), but the weights they
 * update differ in the last f32 bit (sums in another order), and a weight that lies
 * next to the middle of two halves then rounds to the other one, 2^-11 away; training
 * amplifies that, so N replicas follow one replica as f16 follows f32 (measured on
 * PoCL: within 1e-7 for 15 steps, 5e-3 by step 23), not to f32's 1e-4. */
static void check_mixed_precision(void)
{
    tdm_dataset *ds = digits(64, 2);
    tdm_model_options mo = cnn_options();
    trainer f32, one, many;
    double a[STEPS], b[STEPS], c[STEPS];
    trainer_open_model(&f32, devs, n_devs, 0.1f, &mo, 32768.0f);
    mo.compute_dtype = TDM_F16;
    mo.mixed_products = TDM_MIXED_F16;
    trainer_open_model(&one, devs, 1, 0.1f, &mo, 32768.0f);
    trainer_open_model(&many, devs, n_devs, 0.1f, &mo, 32768.0f);
    CHECK(train_steps(&f32, ds, STEPS, a) == STEPS);
    CHECK(train_steps(&one, ds, STEPS, b) == STEPS);
    CHECK(train_steps(&many, ds, STEPS, c) == STEPS);
    double vs_f32 = worst_relative(c, a), vs_one = worst_relative(c, b);
    float scale = 0.0f;
    uint64_t skipped = 1;
    CHECK_OK(tdm_train_op_loss_scale(many.op, &scale, &skipped));
    fprintf(stderr,
            "cnn in f16: %zu replicas against 1: worst relative loss difference %g; against "
            "f32 %g; loss %.4f -> %.4f; %llu steps skipped\n",
            n_devs, vs_one, vs_f32, c[0], c[STEPS - 1], (unsigned long long)skipped);
    CHECK(fabs(c[0] - b[0]) <= 1e-6 * fabs(b[0]));
    CHECK(vs_one <= 3e-2);
    CHECK(vs_f32 > 0.0 && vs_f32 <= 3e-2);
    CHECK(c[STEPS - 1] < 0.85 * c[0]);
    CHECK(skipped == 0 && scale == 32768.0f);
    CHECK_OK(tdm_strategy_check_mirrored(many.strategy));
    trainer_close(&f32);
    trainer_close(&one);
    trainer_close(&many);
    tdm_dataset_destroy(ds);
}

/* The device memory f16 activations save on an MLP whose first layer's input is its
 * largest rounded operand, from its layers: each hidden layer's product and
 * activation, and dropout's output, in 2 bytes instead of 4 (the output layer's stay
 * f32; a product goes through the layer's f32 gradient buffer, free until the
 * backward pass). */
static size_t mlp_savings(const tdm_layer *layers, size_t count, size_t rows)
{
    size_t saved = 0;
    for (size_t l = 0; l + 1 < count; l++)
        saved += (2 + (layers[l].dropout > 0.0f)) * rows * layers[l].units * 2;
    return saved;
}

/* The CNN with f16 activations against f32 activations, both with f16 products: the
 * losses follow closely but not bitwise (relu commutes with rounding to half, tanh
 * and normalisation do not), and the buffers shrink. */
static void check_f16_activations_of(const char *what, const tdm_layer *layers, size_t count,
                                     tdm_dataset *ds)
{
    tdm_model_options mo = cnn_options();
    mo.layers = layers;
    mo.layer_count = count;
    mo.compute_dtype = TDM_F16;
    mo.mixed_products = TDM_MIXED_F16;
    trainer mixed, f16;
    double a[STEPS], b[STEPS];
    trainer_open_model(&mixed, devs, n_devs, 0.1f, &mo, 32768.0f);
    mo.activation_dtype = TDM_F16;
    trainer_open_model(&f16, devs, n_devs, 0.1f, &mo, 32768.0f);
    CHECK(train_steps(&mixed, ds, STEPS, a) == STEPS);
    CHECK(train_steps(&f16, ds, STEPS, b) == STEPS);
    double vs_mixed = worst_relative(b, a);
    size_t bytes_mixed = 0, bytes_f16 = 0;
    CHECK_OK(tdm_model_scratch_bytes(mixed.model, 0, &bytes_mixed));
    CHECK_OK(tdm_model_scratch_bytes(f16.model, 0, &bytes_f16));
    fprintf(stderr,
            "%s with f16 activations over %zu replicas: worst relative loss difference to "
            "f32 activations' %g; loss %.4f -> %.4f; buffers %zu bytes, %zu with f32 "
            "activations\n",
            what, n_devs, vs_mixed, b[0], b[STEPS - 1], bytes_f16, bytes_mixed);
    CHECK(vs_mixed > 0.0 && vs_mixed <= 3e-2);
    CHECK(b[STEPS - 1] < b[0]);
    CHECK(bytes_f16 < bytes_mixed);
    CHECK_OK(tdm_strategy_check_mirrored(f16.strategy));
    trainer_close(&mixed);
    trainer_close(&f16);
}

/* f16 activations: every layer's outputs but the output layer's stored as halves, on
 * the CNN (relu and tanh, max and average pooling, dropout) and on ones with layer and
 * batch normalisation (its statistics across the replicas), a shortcut from the f32
 * input and an embedding of the pixel values; an MLP with a residual layer holds
 * exactly the bytes the halves save. */
static void check_f16_activations(void)
{
    tdm_dataset *ds = digits(64, 2);
    check_f16_activations_of("cnn", cnn, CNN_LAYERS, ds);
    const tdm_layer with_ln[] = {TDM_CONV2D(6, 3, TDM_ACT_RELU), TDM_LAYER_NORM(),
                                 TDM_MAX_POOL2D(2), TDM_DENSE(16, TDM_ACT_RELU, 0.0f),
                                 TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    check_f16_activations_of("cnn with layer norm", with_ln, sizeof with_ln / sizeof with_ln[0],
                             ds);
    const tdm_layer with_bn[] = {TDM_CONV2D(6, 3, TDM_ACT_RELU), TDM_BATCH_NORM(),
                                 TDM_MAX_POOL2D(2), TDM_DENSE(16, TDM_ACT_RELU, 0.0f),
                                 TDM_BATCH_NORM(), TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    check_f16_activations_of("cnn with batch norm", with_bn, sizeof with_bn / sizeof with_bn[0],
                             ds);
    const tdm_layer with_shortcut[] = {TDM_CONV2D(1, 3, TDM_ACT_RELU), TDM_RESIDUAL(1),
                                       TDM_MAX_POOL2D(2), TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    check_f16_activations_of("cnn with a shortcut from its input", with_shortcut,
                             sizeof with_shortcut / sizeof with_shortcut[0], ds);
    const tdm_layer with_gap[] = {TDM_CONV2D(6, 3, TDM_ACT_RELU), TDM_GLOBAL_AVG_POOL2D(),
                                  TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    check_f16_activations_of("cnn with global average pooling", with_gap,
                             sizeof with_gap / sizeof with_gap[0], ds);
    tdm_dataset *ids = digits_as(64, 2, 1);
    const tdm_layer with_embedding[] = {TDM_EMBEDDING(17, 2), TDM_CONV2D(6, 3, TDM_ACT_RELU),
                                        TDM_MAX_POOL2D(2), TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    check_f16_activations_of("cnn with an embedding", with_embedding,
                             sizeof with_embedding / sizeof with_embedding[0], ids);
    tdm_dataset_destroy(ids);
    trainer mixed, f16;
    double a[STEPS], b[STEPS];
    size_t bytes_mixed = 0, bytes_f16 = 0;
    const tdm_layer mlp[] = {TDM_DENSE(24, TDM_ACT_TANH, 0.25f), TDM_DENSE(24, TDM_ACT_RELU, 0.0f),
                             TDM_RESIDUAL(1), TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options flat = TDM_MODEL_OPTIONS_INIT;
    flat.layers = mlp;
    flat.layer_count = sizeof mlp / sizeof mlp[0];
    flat.input_features = FEATURES;
    flat.compute_dtype = TDM_F16;
    flat.mixed_products = TDM_MIXED_F16;
    trainer_open_model(&mixed, devs, 1, 0.1f, &flat, 32768.0f);
    flat.activation_dtype = TDM_F16;
    trainer_open_model(&f16, devs, 1, 0.1f, &flat, 32768.0f);
    CHECK(train_steps(&mixed, ds, 3, a) == 3);
    CHECK(train_steps(&f16, ds, 3, b) == 3);
    CHECK_OK(tdm_model_scratch_bytes(mixed.model, 0, &bytes_mixed));
    CHECK_OK(tdm_model_scratch_bytes(f16.model, 0, &bytes_f16));
    const tdm_layer counted[] = {mlp[0], mlp[1], {.units = 24}, mlp[3]}; /* residual: 1 */
    CHECK(bytes_mixed - bytes_f16 == mlp_savings(counted, 4, 64) - 64 * 24 * 2);
    CHECK(fabs(b[0] - a[0]) <= 1e-2 * a[0] && b[2] < b[0]);
    trainer_close(&mixed);
    trainer_close(&f16);
    tdm_dataset_destroy(ds);
}

/* Gradients all-reduced in f16: every replica gets the same sums (the copies stay
 * mirrored) and the losses follow the f32 all-reduce's closely but not bitwise (each
 * gradient and partial sum keeps 11 bits); the loss itself stays f32. */
static void check_f16_all_reduce(void)
{
    tdm_dataset *ds = digits(64, 2);
    tdm_model_options mo = cnn_options();
    tdm_layer odd[CNN_LAYERS];
    memcpy(odd, cnn, sizeof cnn);
    odd[4].units = 15; /* an odd bucket, padded in f16: 15 x 10 + 10 + 15 gradients */
    mo.layers = odd;
    trainer f32, f16;
    double a[STEPS], b[STEPS];
    trainer_open_model(&f32, devs, n_devs, 0.1f, &mo, 32768.0f);
    trainer_open_reduced(&f16, devs, n_devs, 0.1f, &mo, 32768.0f, TDM_F16);
    CHECK(train_steps(&f32, ds, STEPS, a) == STEPS);
    CHECK(train_steps(&f16, ds, STEPS, b) == STEPS);
    double vs_f32 = worst_relative(b, a);
    float scale = 0.0f;
    uint64_t skipped = 1;
    CHECK_OK(tdm_train_op_loss_scale(f16.op, &scale, &skipped));
    fprintf(stderr,
            "cnn with an f16 all-reduce over %zu replicas: worst relative loss difference to "
            "f32's %g; loss %.4f -> %.4f; %llu steps skipped\n",
            n_devs, vs_f32, b[0], b[STEPS - 1], (unsigned long long)skipped);
    CHECK(b[0] == a[0]); /* the first loss comes before any update, in f32 */
    CHECK(vs_f32 > 0.0 && vs_f32 <= 3e-2);
    CHECK(b[STEPS - 1] < 0.85 * b[0]);
    CHECK(skipped == 0 && scale == 32768.0f);
    CHECK_OK(tdm_strategy_check_mirrored(f16.strategy));
    trainer_close(&f32);
    trainer_close(&f16);
    tdm_dataset_destroy(ds);
}

/* Steps skipped from a loss scale of 2^24, with trainer *t's: counted, each halving
 * the scale, fewer than half the steps; returns the count. */
static uint64_t skipped_from_2_24(trainer *t, tdm_dataset *ds, const char *what)
{
    double b[STEPS];
    CHECK(train_steps(t, ds, STEPS, b) == STEPS);
    float scale = 0.0f;
    uint64_t k = 0;
    CHECK_OK(tdm_train_op_loss_scale(t->op, &scale, &k));
    fprintf(stderr,
            "cnn from loss scale 2^24, %s: %llu steps skipped (scale %g); loss %.4f -> "
            "%.4f\n",
            what, (unsigned long long)k, (double)scale, b[0], b[STEPS - 1]);
    CHECK(k < STEPS / 2 && scale == ldexpf(0x1p24f, -(int)k));
    CHECK(b[STEPS - 1] < 0.85 * b[0]);
    return k;
}

/* An f16 overflow: from a loss scale of 2^24 the scaled gradients pass f16's largest
 * value (65504) and round to infinity, in the products of mixed precision or in an
 * f16 all-reduce, so the train op skips those steps, counts them and halves the
 * scale until they fit; in f32 the same scale never overflows. */
static void check_f16_overflow(void)
{
    tdm_dataset *ds = digits(64, 2);
    tdm_model_options mo = cnn_options();
    trainer f32, reduced, f16;
    trainer_open_model(&f32, devs, n_devs, 0.1f, &mo, 0x1p24f);
    trainer_open_reduced(&reduced, devs, n_devs, 0.1f, &mo, 0x1p24f, TDM_F16);
    mo.compute_dtype = TDM_F16;
    mo.mixed_products = TDM_MIXED_F16;
    trainer_open_model(&f16, devs, n_devs, 0.1f, &mo, 0x1p24f);
    CHECK(skipped_from_2_24(&f32, ds, "f32") == 0);
    CHECK(skipped_from_2_24(&reduced, ds, "f16 all-reduce") > 0);
    CHECK(skipped_from_2_24(&f16, ds, "f16 products") > 0);
    trainer_close(&f32);
    trainer_close(&reduced);
    trainer_close(&f16);
    tdm_dataset_destroy(ds);
}

/* The loss scale each step's loss function was given (replica 0's). */
typedef struct scales_seen {
    tdm_model *model;
    float scale[STEPS];
} scales_seen;

static tdm_status loss_noting_scale(const tdm_loss_args *a, void *user)
{
    scales_seen *seen = user;
    if (tdm_replica_local_id(a->rc) == 0 && a->step < STEPS)
        seen->scale[a->step] = a->loss_scale;
    return tdm_model_loss(a, seen->model);
}

/* t's train op again, with a loss function that notes the scale it is given. */
static void note_scales(trainer *t, scales_seen *seen, float loss_scale)
{
    tdm_train_op_destroy(t->op);
    *seen = (scales_seen){.model = t->model};
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = loss_noting_scale;
    to.loss_user = seen;
    to.optimizer = t->opt;
    to.seed = 3;
    to.loss_scale = loss_scale;
    CHECK_OK(tdm_train_op_create(t->strategy, &to, &t->op));
}

/* The loss scale idles where the gradients never pass through f16: with mixed
 * precision's products f32 the model says so (tdm_loss_args_f32_throughout), and from
 * the second step on its loss is not scaled nor its gradients checked; training
 * stays bit for bit the unscaled f32 model's. With f16 products every step is
 * scaled. */
static void check_idle_loss_scale(void)
{
    tdm_dataset *ds = digits(64, 2);
    tdm_model_options mo = cnn_options();
    trainer plain, f32, f16;
    scales_seen f32_seen, f16_seen;
    double a[STEPS], b[STEPS], c[STEPS];
    trainer_open_model(&plain, devs, n_devs, 0.1f, &mo, 0.0f);
    mo.compute_dtype = TDM_F16;
    mo.mixed_products = TDM_MIXED_F32;
    trainer_open_model(&f32, devs, n_devs, 0.1f, &mo, 0.0f);
    note_scales(&f32, &f32_seen, 32768.0f);
    mo.mixed_products = TDM_MIXED_F16;
    trainer_open_model(&f16, devs, n_devs, 0.1f, &mo, 0.0f);
    note_scales(&f16, &f16_seen, 32768.0f);
    CHECK(train_steps(&plain, ds, STEPS, a) == STEPS);
    CHECK(train_steps(&f32, ds, STEPS, b) == STEPS);
    CHECK(train_steps(&f16, ds, STEPS, c) == STEPS);
    CHECK(!memcmp(a, b, sizeof a));
    CHECK(f32_seen.scale[0] == 32768.0f && f16_seen.scale[0] == 32768.0f);
    for (size_t i = 1; i < STEPS; i++)
        CHECK(f32_seen.scale[i] == 1.0f && f16_seen.scale[i] == 32768.0f);
    float scale = 0.0f;
    uint64_t skipped = 1;
    CHECK_OK(tdm_train_op_loss_scale(f32.op, &scale, &skipped));
    CHECK(scale == 32768.0f && skipped == 0); /* kept while idle */
    trainer_close(&plain);
    trainer_close(&f32);
    trainer_close(&f16);
    tdm_dataset_destroy(ds);
}

/* The mean loss of the batch under the model's current weights. */
static double batch_loss(tdm_model *m, const tdm_dataset *batch)
{
    tdm_evaluation e;
    CHECK_OK(tdm_model_evaluate(m, batch, &e));
    return e.loss;
}

/* m saved and loaded onto s predicts the same bits, and the same counts. */
static void check_saved_predictions(tdm_model *m, tdm_strategy *s)
{
    float x[4 * FEATURES], want[4 * CLASSES], got[4 * CLASSES];
    for (size_t i = 0; i < 4 * FEATURES; i++)
        x[i] = (float)((i * 7) % 13) / 6.0f - 1.0f;
    CHECK_OK(tdm_model_predict(m, x, 4, want));
    char path[4096];
    scratch_root("tdm_cnn");
    scratch_path(path, "model.safetensors", 0);
    CHECK_OK(tdm_model_save(m, path));
    tdm_model *back = NULL;
    CHECK_OK(tdm_model_load(s, path, &back));
    CHECK_OK(tdm_model_predict(back, x, 4, got));
    CHECK(!memcmp(want, got, sizeof got));
    CHECK(tdm_model_parameter_count(back) == tdm_model_parameter_count(m));
    CHECK(tdm_model_state_count(back) == tdm_model_state_count(m));
    CHECK(tdm_model_input_count(back) == FEATURES && tdm_model_output_count(back) == CLASSES);
    tdm_model_destroy(back);
    scratch_remove();
}

/* The batch's loss with weight k of var moved by delta; weights is var's host copy
 * (bytes long), restored after. */
static double loss_moved(tdm_model *m, const tdm_dataset *batch, tdm_variable *var, float *weights,
                         size_t k, double delta, size_t bytes)
{
    float saved = weights[k];
    weights[k] = (float)(saved + delta);
    CHECK_OK(tdm_variable_assign_host(var, TDM_ASSIGN, weights, bytes));
    double loss = batch_loss(m, batch);
    weights[k] = saved;
    CHECK_OK(tdm_variable_assign_host(var, TDM_ASSIGN, weights, bytes));
    return loss;
}

/* Every variable's gradient after one SGD step of rate 1 on ROWS examples (of the
 * digits, raw or standardised) against central differences of the loss, for a model
 * of these layers mirrored over every device; then its saved file predicts the same
 * bits. */
static void check_gradients_of(const char *what, const tdm_layer *layers, size_t count, int raw)
{
    enum { ROWS = 24 };
    tdm_dataset *all = digits_as(ROWS, 1, raw);
    tdm_dataset_iterator *it = NULL;
    const tdm_batch *first = NULL;
    CHECK_OK(tdm_dataset_iterator_create(all, &it));
    CHECK_OK(tdm_dataset_iterator_next(it, &first));
    tdm_dataset *batch = NULL;
    CHECK_OK(
        tdm_dataset_from_arrays(first->features, first->labels, ROWS, FEATURES, CLASSES, &batch));
    CHECK_OK(tdm_dataset_batch(batch, ROWS, 0));
    trainer t;
    memset(&t, 0, sizeof t);
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, n_devs, NULL, &t.strategy));
    tdm_model_options mo = cnn_options();
    mo.layers = layers;
    mo.layer_count = count;
    CHECK_OK(tdm_model_create(t.strategy, &mo, &t.model));
    size_t n_vars = tdm_model_variable_count(t.model);
    float **before = calloc(n_vars, sizeof *before), **after = calloc(n_vars, sizeof *after);
    CHECK(before && after);
    for (size_t v = 0; v < n_vars; v++) {
        tdm_shape shape = tdm_variable_shape(tdm_model_variable(t.model, v));
        size_t n = tdm_shape_count(&shape);
        before[v] = malloc(n * sizeof(float));
        after[v] = malloc(n * sizeof(float));
        CHECK_OK(tdm_variable_read(tdm_model_variable(t.model, v), before[v], n * sizeof(float)));
    }
    double loss0 = batch_loss(t.model, batch);
    /* the step: SGD of rate 1 on the same batch */
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.kind = TDM_OPT_SGD;
    oo.learning_rate.initial = 1.0f;
    CHECK_OK(tdm_optimizer_create(t.strategy, &oo, &t.opt));
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = tdm_model_loss;
    to.loss_user = t.model;
    to.optimizer = t.opt;
    CHECK_OK(tdm_train_op_create(t.strategy, &to, &t.op));
    double step_loss = 0.0;
    CHECK(train_steps(&t, batch, 1, &step_loss) == 1);
    CHECK(fabs(step_loss - loss0) <= 1e-5 * fabs(loss0));
    /* every variable back to its weights before the step, then one weight at a time */
    for (size_t v = 0; v < n_vars; v++) {
        tdm_variable *var = tdm_model_variable(t.model, v);
        tdm_shape shape = tdm_variable_shape(var);
        size_t bytes = tdm_shape_count(&shape) * sizeof(float);
        CHECK_OK(tdm_variable_read(var, after[v], bytes));
        CHECK_OK(tdm_variable_assign_host(var, TDM_ASSIGN, before[v], bytes));
    }
    double worst = 0.0;
    size_t tested = 0, kinks = 0;
    for (size_t v = 0; v < n_vars; v++) {
        tdm_variable *var = tdm_model_variable(t.model, v);
        tdm_shape shape = tdm_variable_shape(var);
        size_t n = tdm_shape_count(&shape), bytes = n * sizeof(float);
        for (size_t k = 0; k < n; k += n / 5 + 1, tested++) {
            double grad = (double)before[v][k] - after[v][k], h = 2e-3;
            double up = loss_moved(t.model, batch, var, before[v], k, h, bytes);
            double down = loss_moved(t.model, batch, var, before[v], k, -h, bytes);
            double numeric = (up - down) / (2 * h), err = fabs(numeric - grad);
            double tolerance = 3e-2 * fabs(grad) + 2e-4;
            double right = (up - loss0) / h, left = (loss0 - down) / h;
            if (err > tolerance && fabs(right - left) > tolerance) {
                /* A kink at the weight (a ReLU at 0, a max pooling's tie): the
                 * derivatives from either side differ, and the gradient must be one of
                 * them or between. At most one weight in ten. */
                kinks++;
                fprintf(
                    stderr,
                    "  %s[%zu]: gradient %.6g at a kink: from the left %.6g, from the right %.6g\n",
                    tdm_variable_name(var), k, grad, left, right);
                err = grad < fmin(left, right)   ? fmin(left, right) - grad
                      : grad > fmax(left, right) ? grad - fmax(left, right)
                                                 : 0.0;
            } else if (err > tolerance) {
                fprintf(stderr, "  %s[%zu]: gradient %.6g, central difference %.6g\n",
                        tdm_variable_name(var), k, grad, numeric);
            }
            CHECK(err <= tolerance);
            worst = fmax(worst, err / (fabs(grad) + 1e-3));
        }
    }
    CHECK(kinks * 10 <= tested);
    fprintf(stderr,
            "%s: %zu gradients against central differences, worst error %.3g of "
            "|gradient| + 1e-3, %zu at a kink\n",
            what, tested, worst, kinks);
    for (size_t v = 0; v < n_vars; v++) {
        free(before[v]);
        free(after[v]);
    }
    free(before);
    free(after);
    check_saved_predictions(t.model, t.strategy);
    trainer_close(&t);
    tdm_dataset_iterator_destroy(it);
    tdm_dataset_destroy(batch);
    tdm_dataset_destroy(all);
}

/* The CNN without dropout, with layer norms over each position's channels and over a
 * dense layer's units, both after tanh (after relu a position whose channels are all
 * 0 has no variance, and a central difference across that kink means nothing), and
 * two shortcuts, one over a convolution, one over a layer norm and a dense layer. */
static void check_gradients(void)
{
    const tdm_layer layers[] = {cnn[0],           TDM_CONV2D(6, 3, TDM_ACT_TANH),
                                TDM_RESIDUAL(1),  cnn[1],
                                cnn[2],           TDM_LAYER_NORM(),
                                cnn[3],           TDM_DENSE(16, TDM_ACT_TANH, 0.0f),
                                TDM_LAYER_NORM(), TDM_DENSE(16, TDM_ACT_TANH, 0.0f),
                                TDM_RESIDUAL(2),  cnn[5]};
    check_gradients_of("cnn", layers, sizeof layers / sizeof layers[0], 0);
}

/* An embedding of the digits' pixel values (ids 0 to 16) as 3 channels each, under a
 * convolution: N replicas train as one, its table's gradient (the rows each id
 * took, summed) matches central differences, and a saved file keeps it. */
static void check_embedding(void)
{
    const tdm_layer layers[] = {TDM_EMBEDDING(17, 3), TDM_CONV2D(6, 3, TDM_ACT_TANH),
                                TDM_AVG_POOL2D(2), TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = cnn_options();
    mo.layers = layers;
    mo.layer_count = sizeof layers / sizeof layers[0];
    check_equivalence_of("embedding", &mo, 1, 0.5f); /* small initial rows learn slowly */
    check_gradients_of("embedding", layers, mo.layer_count, 1);
}

/* Global average pooling as the head of a CNN: N replicas train as one, its gradient
 * (each position's share of its channel's mean) matches central differences, a saved
 * file keeps it, and it takes no image after it or a flat input before it. */
static void check_global_pooling(void)
{
    /* smooth throughout (tanh, no max pooling), so that no step of the central
     * difference crosses a kink */
    const tdm_layer layers[] = {TDM_CONV2D(6, 3, TDM_ACT_TANH), TDM_CONV2D(8, 3, TDM_ACT_TANH),
                                TDM_GLOBAL_AVG_POOL2D(), TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    const tdm_layer head[] = {TDM_CONV2D(16, 3, TDM_ACT_RELU), TDM_MAX_POOL2D(2),
                              TDM_CONV2D(32, 3, TDM_ACT_RELU), TDM_GLOBAL_AVG_POOL2D(),
                              TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = cnn_options();
    mo.layers = head;
    mo.layer_count = sizeof head / sizeof head[0];
    check_equivalence_of("global average pooling", &mo, 0, 0.5f); /* means learn slowly */
    check_gradients_of("global average pooling", layers, sizeof layers / sizeof layers[0], 0);
    tdm_strategy *s = NULL;
    tdm_model *m = NULL;
    CHECK_OK(tdm_strategy_create_one_device(devs[0], NULL, &s));
    tdm_layer bad[] = {TDM_GLOBAL_AVG_POOL2D(), TDM_CONV2D(1, 3, TDM_ACT_RELU),
                       TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    mo.layers = bad;
    mo.layer_count = 3;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 1 (conv2d) needs an image: a global_avg_pool2d layer's output is flat");
    mo.input_height = mo.input_width = mo.input_channels = 0;
    mo.input_features = 64;
    mo.layer_count = 1;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 (global_avg_pool2d) needs an image: give input_height");
    CHECK(m == NULL);
    tdm_strategy_destroy(s);
}

/* A graph of layers (smooth throughout, tanh): a convolution and a 1x1 one of the
 * image concatenated, a shortcut added, a dense branch from the image multiplied with
 * the pooled channels and concatenated with them again. N replicas train as one,
 * every gradient matches central differences, a saved file keeps the graph. */
static const tdm_layer graph[] = {
    TDM_CONV2D(6, 3, TDM_ACT_TANH),
    {.kind = TDM_LAYER_CONV2D, .units = 4, .activation = TDM_ACT_TANH, .kernel_h = 1,
     .kernel_w = 1, .input_count = 1, .inputs = {TDM_MODEL_INPUT}},
    TDM_CONCATENATE(0, 1),
    TDM_CONV2D(6, 3, TDM_ACT_TANH),
    TDM_ADD(3, 0),
    TDM_GLOBAL_AVG_POOL2D(),
    {.kind = TDM_LAYER_DENSE, .units = 6, .activation = TDM_ACT_TANH, .input_count = 1,
     .inputs = {TDM_MODEL_INPUT}},
    TDM_MULTIPLY(5, 6),
    TDM_CONCATENATE(7, 6),
    TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f),
};
#define GRAPH_LAYERS (sizeof graph / sizeof graph[0])

/* The stacked CNN written as a graph, each layer naming the one before: the same
 * losses, bit for bit. */
static void check_graph_of_stack(void)
{
    tdm_layer chain[CNN_LAYERS];
    for (size_t l = 0; l < CNN_LAYERS; l++) {
        chain[l] = cnn[l];
        chain[l].input_count = 1;
        chain[l].inputs[0] = l ? (int)l - 1 : TDM_MODEL_INPUT;
    }
    tdm_model_options stacked = cnn_options(), named = cnn_options();
    named.layers = chain;
    tdm_dataset *ds = digits(64, 1);
    trainer a, b;
    double la[STEPS], lb[STEPS];
    trainer_open_model(&a, devs, n_devs, 0.1f, &stacked, 0.0f);
    trainer_open_model(&b, devs, n_devs, 0.1f, &named, 0.0f);
    CHECK(train_steps(&a, ds, 5, la) == 5);
    CHECK(train_steps(&b, ds, 5, lb) == 5);
    CHECK(memcmp(la, lb, 5 * sizeof la[0]) == 0);
    trainer_close(&a);
    trainer_close(&b);
    tdm_dataset_destroy(ds);
}

static void check_graph(void)
{
    tdm_model_options mo = cnn_options();
    mo.layers = graph;
    mo.layer_count = GRAPH_LAYERS;
    check_equivalence_of("graph", &mo, 0, 0.1f);
    check_gradients_of("graph", graph, GRAPH_LAYERS, 0);
    check_graph_of_stack();
}

/* Graphs that make no model, each refused naming the layer. */
static void check_graph_refusals(tdm_strategy *s)
{
    tdm_model *m = NULL;
    tdm_layer layers[GRAPH_LAYERS];
    memcpy(layers, graph, sizeof graph);
    tdm_model_options mo = cnn_options();
    mo.layers = layers;
    mo.layer_count = GRAPH_LAYERS;
    layers[4].inputs[1] = 4;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 4 (add) reads layer 4 as input 1: a layer reads an earlier layer (0 to "
                "3) or the model's input (-1), so the graph has no cycle");
    layers[4].inputs[1] = -7;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 4 (add) reads -7 as input 1, the model's input 6; the model has 1 (-1 to "
                "-1)");
    layers[4].inputs[1] = 1;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 4 (add) merges layer 3, 8 x 8 x 6, with layer 1, 8 x 8 x 4: its inputs "
                "have one shape");
    layers[4].inputs[1] = 0;
    layers[8].inputs[1] = 2;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 8 (concatenate) joins a 1 x 1 image (input 0) with a 8 x 8 one (input 1)");
    layers[8].inputs[1] = 7;
    layers[8].input_count = 1;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 8 (concatenate) merges 1 inputs; a merge takes 2 to 8");
    layers[8].input_count = 2;
    layers[9].input_count = 2;
    layers[9].inputs[0] = 8, layers[9].inputs[1] = 7;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 9 (dense) has 2 inputs; only a merge (add, concatenate, multiply) takes "
                "more than one");
    layers[9].input_count = 1;
    layers[9].inputs[0] = 7;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 8 (concatenate) is read by no later layer: the model's output is its "
                "last layer");
    memcpy(layers, graph, sizeof graph);
    layers[3] = (tdm_layer)TDM_RESIDUAL(1);
    layers[3].input_count = 1;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 3 (residual) names its inputs");
    memcpy(layers, graph, sizeof graph);
    layers[5].input_count = 1, layers[5].inputs[0] = 6;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 5 (global_avg_pool2d) reads layer 6 as input 0");
    memcpy(layers, graph, sizeof graph);
    mo.compute_dtype = mo.activation_dtype = TDM_F16;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_UNSUPPORTED,
                "layer 2 (concatenate) with activation_dtype f16: its kernels take f32");
    CHECK(m == NULL);
}

/* A trained CNN saved and loaded predicts the same bits, and its file names the layers. */
static void check_file(void)
{
    tdm_dataset *ds = digits(64, 1);
    trainer t;
    double losses[10];
    trainer_open(&t, devs, n_devs, 0.1f);
    CHECK(train_steps(&t, ds, 10, losses) == 10);
    CHECK(tdm_model_parameter_count(t.model) ==
          6 * 9 + 6 + 8 * 54 + 8 + 8 * 16 + 16 + 16 * 10 + 10);
    check_saved_predictions(t.model, t.strategy);
    trainer_close(&t);
    tdm_dataset_destroy(ds);
}

/* Batch normalisation across replicas (SyncBatchNormalization): 2 or 3 replicas
 * normalise with the global batch's statistics, so every step's loss matches one
 * replica's within 1e-4, including a step of one example where the other replicas
 * hold none; the moving statistics match too, and every replica's copy of them is
 * the same; a saved model predicts the same bits with them after loading. */
static void check_batch_norm(int mixed)
{
    enum { BN_STEPS = 10 };
    static const tdm_layer bn_layers[] = {
        TDM_CONV2D(6, 3, TDM_ACT_RELU),
        TDM_BATCH_NORM(),
        TDM_MAX_POOL2D(2),
        TDM_DENSE(16, TDM_ACT_RELU, 0.0f),
        TDM_BATCH_NORM(),
        TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f),
    };
    tdm_model_options mo = cnn_options();
    mo.layers = bn_layers;
    mo.layer_count = sizeof bn_layers / sizeof bn_layers[0];
    /* 1437 = 4 * 359 + 1: the fifth step holds one example */
    tdm_dataset *ds = digits(359, 2);
    trainer one, many;
    double a[BN_STEPS], b[BN_STEPS];
    trainer_open_model(&one, devs, 1, 0.1f, &mo, 0.0f);
    trainer_open_model(&many, devs, n_devs, 0.1f, &mo, 0.0f);
    CHECK(tdm_model_variable_count(many.model) == 10);
    CHECK(train_steps(&one, ds, BN_STEPS, a) == BN_STEPS);
    CHECK(train_steps(&many, ds, BN_STEPS, b) == BN_STEPS);
    double worst = 0.0, worst_state = 0.0;
    for (size_t i = 0; i < BN_STEPS; i++)
        worst = fmax(worst, fabs(a[i] - b[i]) / fabs(a[i]));
    const char *names[] = {"batch_norm1/moving_mean", "batch_norm1/moving_variance",
                           "batch_norm4/moving_mean", "batch_norm4/moving_variance"};
    CHECK(tdm_model_state_count(many.model) == 4 && tdm_model_state(many.model, 4) == NULL);
    for (size_t k = 0; k < 4 && tdm_model_state_count(many.model) == 4; k++) {
        float want[16], got[16], copy[16], first[16];
        tdm_variable *v1 = tdm_model_state(one.model, k), *vn = tdm_model_state(many.model, k);
        CHECK(!strcmp(tdm_variable_name(vn), names[k]));
        tdm_shape shape = tdm_variable_shape(vn);
        size_t n = tdm_shape_count(&shape);
        CHECK(n == (k < 2 ? 6u : 16u));
        CHECK_OK(tdm_variable_read(v1, want, n * sizeof(float)));
        CHECK_OK(tdm_variable_read(vn, got, n * sizeof(float)));
        for (size_t i = 0; i < n; i++)
            worst_state = fmax(worst_state,
                               fabs((double)want[i] - got[i]) / fmax(fabs((double)want[i]), 1e-3));
        for (size_t r = 0; r < n_devs; r++) { /* every replica wrote the same statistics */
            CHECK_OK(tdm_tensor_read(tdm_variable_copy(vn, r), copy, n * sizeof(float)));
            if (r == 0)
                memcpy(first, copy, n * sizeof(float));
            for (size_t i = 0; i < n; i++) /* within rounding where backends differ */
                CHECK(mixed ? fabs((double)copy[i] - first[i]) <= 1e-5 * fmax(fabs(first[i]), 1e-3)
                            : copy[i] == first[i]);
        }
    }
    fprintf(stderr,
            "batch norm: %zu replicas against 1: worst relative loss difference %g, "
            "moving statistics %g; loss %.4f -> %.4f\n",
            n_devs, worst, worst_state, a[0], a[BN_STEPS - 1]);
    CHECK(worst <= 1e-4);
    CHECK(worst_state <= 1e-4);
    CHECK(a[BN_STEPS - 1] < a[0]);
    /* a global batch smaller than the replicas: from the first step a replica holds
     * no example and still meets the others in every all-reduce */
    trainer small_one, small_many;
    tdm_dataset *tiny = digits(n_devs - 1, 1);
    double c[3], d[3];
    trainer_open_model(&small_one, devs, 1, 0.1f, &mo, 0.0f);
    trainer_open_model(&small_many, devs, n_devs, 0.1f, &mo, 0.0f);
    CHECK(train_steps(&small_one, tiny, 3, c) == 3);
    CHECK(train_steps(&small_many, tiny, 3, d) == 3);
    for (size_t i = 0; i < 3; i++)
        CHECK(fabs(c[i] - d[i]) <= 1e-4 * fabs(c[i]));
    trainer_close(&small_one);
    trainer_close(&small_many);
    tdm_dataset_destroy(tiny);
    /* inference uses the moving statistics, and a file keeps them */
    check_saved_predictions(many.model, one.strategy);
    trainer_close(&one);
    trainer_close(&many);
    tdm_dataset_destroy(ds);
}

/* The public operations on a case worked by hand, SAME's arithmetic, and the
 * arguments they refuse. */
static void check_ops(void)
{
    tdm_device *d = devs[n_devs - 1];
    tdm_tensor *x = NULL, *f = NULL, *y = NULL, *p = NULL, *dx = NULL;
    CHECK_OK(tdm_tensor_create(d, TDM_F32, &TDM_SHAPE(1, 3, 3, 1), &x));
    CHECK_OK(tdm_tensor_create(d, TDM_F32, &TDM_SHAPE(2, 2, 1, 2), &f));
    CHECK_OK(tdm_tensor_create(d, TDM_F32, &TDM_SHAPE(1, 2, 2, 2), &y));
    CHECK_OK(tdm_tensor_create(d, TDM_F32, &TDM_SHAPE(1, 2, 2, 1), &p));
    CHECK_OK(tdm_tensor_create(d, TDM_F32, &TDM_SHAPE(1, 3, 3, 1), &dx));
    const float xv[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, fv[8] = {1, 0, 1, 0, 1, 0, 1, 1};
    CHECK_OK(tdm_tensor_write(x, xv, sizeof xv));
    CHECK_OK(tdm_tensor_write(f, fv, sizeof fv));
    /* a 2x2 window, stride 1, no padding: filter 0 sums the window, filter 1 takes
     * its bottom right */
    tdm_window win = {.height = 2, .width = 2, .stride_h = 1, .stride_w = 1};
    float got[8];
    CHECK_OK(tdm_op_conv2d(y, x, f, &win));
    CHECK_OK(tdm_tensor_read(y, got, sizeof got));
    const float want[8] = {12, 5, 16, 6, 24, 8, 28, 9};
    CHECK(!memcmp(got, want, sizeof want));
    /* max pooling 2x2 stride 2 with SAME padding over 3x3: 2x2 windows, the last row
     * and column padded */
    tdm_window pool = {.height = 2, .width = 2, .stride_h = 2, .stride_w = 2};
    size_t oh = 0, ow = 0;
    tdm_window_same(&pool, 3, 3, &oh, &ow);
    CHECK(oh == 2 && ow == 2 && pool.pad_top == 0 && pool.pad_left == 0);
    CHECK_OK(tdm_op_pool2d(TDM_POOL_MAX, p, x, &pool));
    CHECK_OK(tdm_tensor_read(p, got, 4 * sizeof(float)));
    CHECK(got[0] == 5 && got[1] == 6 && got[2] == 8 && got[3] == 9);
    const float ones[4] = {1, 1, 1, 1};
    CHECK_OK(tdm_tensor_write(p, ones, sizeof ones));
    CHECK_OK(tdm_op_pool2d_grad(TDM_POOL_MAX, dx, p, x, &pool));
    float g[9];
    CHECK_OK(tdm_tensor_read(dx, g, sizeof g));
    CHECK(g[4] == 1 && g[5] == 1 && g[7] == 1 && g[8] == 1 && g[0] == 0 && g[3] == 0);
    tdm_window odd = {.height = 3, .width = 1, .stride_h = 2, .stride_w = 1};
    tdm_window_same(&odd, 4, 5, &oh, &ow);
    CHECK(oh == 2 && ow == 5 && odd.pad_top == 0 && odd.pad_left == 0);
    odd.stride_h = 1;
    tdm_window_same(&odd, 4, 5, &oh, &ow);
    CHECK(oh == 4 && odd.pad_top == 1);
    /* refusals */
    CHECK_FAILS(tdm_op_conv2d(p, x, f, &win), TDM_ERR_INVALID_ARGUMENT,
                "'y' is [1, 2, 2, 1]; with 'x' of batch 1 it must be [1, *, *, 2]");
    win.height = 3;
    CHECK_FAILS(tdm_op_conv2d(y, x, f, &win), TDM_ERR_INVALID_ARGUMENT,
                "the filter is [2, 2, 1, 2]; a 3 x 2 window over 1 channels needs");
    win.height = 2;
    win.stride_w = 0;
    CHECK_FAILS(tdm_op_conv2d(y, x, f, &win), TDM_ERR_INVALID_ARGUMENT, "each must be at least 1");
    win.stride_w = 1;
    win.pad_left = 2;
    CHECK_FAILS(tdm_op_conv2d_grad_input(x, y, f, &win), TDM_ERR_INVALID_ARGUMENT,
                "padding 0 above and 2 left of the image");
    win.pad_left = 0;
    CHECK_FAILS(tdm_op_conv2d_grad_filter(f, f, y, &win), TDM_ERR_INVALID_ARGUMENT,
                "'dy' is [1, 2, 2, 2]; with 'x' of batch 2");
    CHECK_FAILS(tdm_op_pool2d(TDM_POOL_MAX, p, f, NULL), TDM_ERR_INVALID_ARGUMENT,
                "argument 'win' is NULL");
    CHECK_FAILS(tdm_op_pool2d_grad(TDM_POOL_MAX, dx, p, NULL, &pool), TDM_ERR_INVALID_ARGUMENT,
                "argument 'x' is NULL");
    CHECK_FAILS(tdm_op_pool2d((tdm_pooling)7, p, x, &pool), TDM_ERR_INVALID_ARGUMENT,
                "unknown pooling 7");
    tdm_tensor *flat = NULL;
    CHECK_OK(tdm_tensor_create(d, TDM_F32, &TDM_SHAPE(9), &flat));
    CHECK_FAILS(tdm_op_pool2d(TDM_POOL_AVERAGE, p, flat, &pool), TDM_ERR_INVALID_ARGUMENT,
                "'x' has shape [9], expected rank 4");
    tdm_tensor_destroy(flat);
    tdm_tensor_destroy(dx);
    tdm_tensor_destroy(p);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(f);
    tdm_tensor_destroy(x);
}

/* Options that make no model, each refused with its reason. */
static void check_refusals(void)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_one_device(devs[0], NULL, &s));
    tdm_model *m = NULL;
    tdm_layer layers[3] = {TDM_CONV2D(4, 3, TDM_ACT_RELU), TDM_DENSE(3, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.layers = layers;
    mo.layer_count = 2;
    mo.input_features = 64;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 (conv2d) needs an image: give input_height");
    mo.input_height = mo.input_width = 8;
    mo.input_channels = 2;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "input_features (64) 0 or their product");
    mo.input_channels = 1;
    layers[0].padding = TDM_PADDING_VALID;
    layers[0].kernel_h = 9;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0: a window of 9 does not fit its input of 8 with VALID padding");
    layers[0] = (tdm_layer)TDM_DENSE(4, TDM_ACT_RELU, 0.0f);
    layers[1] = (tdm_layer)TDM_MAX_POOL2D(2);
    layers[2] = (tdm_layer)TDM_DENSE(3, TDM_ACT_LINEAR, 0.0f);
    mo.layer_count = 3;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 1 (max_pool2d) needs an image: a dense layer's output is flat");
    layers[0] = (tdm_layer)TDM_AVG_POOL2D(2);
    layers[0].units = 3;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 (avg_pool2d) takes no units");
    layers[0].units = 0;
    layers[0].kind = (tdm_layer_kind)99;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 has an unknown kind 99");
    layers[0] = (tdm_layer)TDM_RESIDUAL(1);
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 (residual) has skip 1; a shortcut starts from 1 to the layer's index "
                "layers back");
    layers[0] = (tdm_layer)TDM_AVG_POOL2D(2);
    layers[0].skip = 1;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 (avg_pool2d) has skip 1; only a residual layer skips");
    layers[0] = (tdm_layer)TDM_CONV2D(4, 3, TDM_ACT_RELU);
    layers[1] = (tdm_layer)TDM_RESIDUAL(1);
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 1 (residual) adds the input of layer 0, 8 x 8 x 1, to its own, 8 x 8 x "
                "4: a shortcut joins equal shapes");
    layers[1] = (tdm_layer)TDM_EMBEDDING(10, 2);
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 1 (embedding) has vocab 10 and units 2; an embedding is the first layer");
    layers[0] = (tdm_layer)TDM_EMBEDDING((size_t)1 << 24 | 1, 2);
    layers[1] = (tdm_layer)TDM_MAX_POOL2D(2);
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "with a vocabulary of 1 to 2^24 ids");
    layers[0] = (tdm_layer)TDM_AVG_POOL2D(2);
    layers[0].vocab = 3;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 (avg_pool2d) has vocab 3 and units 0; only an embedding has a "
                "vocabulary");
    layers[0] = (tdm_layer)TDM_AVG_POOL2D(2);
    mo.compute_dtype = TDM_I32;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "compute_dtype is i32; models compute in f32 or f16");
    mo.compute_dtype = TDM_F32;
    mo.activation_dtype = TDM_F16;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "activation_dtype f16 needs compute_dtype f16");
    mo.compute_dtype = TDM_F16;
    mo.activation_dtype = TDM_I32;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "activation_dtype is i32; activations are stored in f32 or f16");
    mo.activation_dtype = TDM_F16;
    layers[0] = (tdm_layer)TDM_CONV2D(1, 3, TDM_ACT_RELU);
    layers[1] = (tdm_layer)TDM_MAX_POOL2D(2);
    mo.layer_count = 2;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_UNSUPPORTED,
                "layer 1 (max_pool2d) is the output layer: with activation_dtype f16 the output "
                "layer is dense or conv2d");
    CHECK(m == NULL);
    check_graph_refusals(s);
    tdm_strategy_destroy(s);
}

void test_case_model_cnn(const test_run *run)
{
    n_devs = test_scenario_of(run, &ctx, devs);
    digits_path = run->argv[1];
    check_equivalence();
    check_gradients();
    check_embedding();
    check_global_pooling();
    check_graph();
    check_file();
    check_batch_norm(!strcmp(run->scenario, "mixed"));
    check_mixed_precision();
    check_f16_activations();
    check_f16_all_reduce();
    check_f16_overflow();
    check_idle_loss_scale();
    check_ops();
    check_refusals();
}
