/* Convolutional models: the digits as 8 x 8 images through convolution, max and
 * average pooling and dense layers. N replicas train like one replica on the global
 * batch; the model's gradients (conv2d filters and biases, pooling's routing, the
 * flattening dense layer) match central differences of its loss; a saved model
 * predicts the same bits after loading; options that make no model are refused. */
#include "model_cnn_fixture.h"

/* The N == 1 rule for a model of these options: every step's loss within 1e-4 of one
 * replica's on the same global batch (the 23rd a partial batch, split unevenly), and
 * the loss falls. */
void mc_check_equivalence_of(const char *what, const tdm_model_options *mo, int raw, float lr)
{
    tdm_dataset *ds = fixture_digits_train(mc_digits_path, 64, 2, raw);
    trainer one, many;
    double a[STEPS], b[STEPS];
    mc_trainer_open_model(&one, mc_devs, 1, lr, mo, 0.0f);
    mc_trainer_open_model(&many, mc_devs, mc_n_devs, lr, mo, 0.0f);
    CHECK(mc_train_steps(&one, ds, STEPS, a) == STEPS);
    CHECK(mc_train_steps(&many, ds, STEPS, b) == STEPS);
    double worst = mc_worst_relative(b, a);
    fprintf(stderr,
            "%s: %zu replicas against 1: worst relative loss difference %g; loss %.4f -> "
            "%.4f\n",
            what, mc_n_devs, worst, a[0], a[STEPS - 1]);
    CHECK(worst <= 1e-4);
    CHECK(a[STEPS - 1] < 0.85 * a[0]);
    CHECK_OK(tdm_strategy_check_mirrored(many.strategy));
    trainer_close(&one);
    trainer_close(&many);
    tdm_dataset_destroy(ds);
}

static void check_equivalence(void)
{
    tdm_model_options mo = mc_cnn_options();
    mc_check_equivalence_of("cnn", &mo, 0, 0.1f);
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
    tdm_dataset *ds = fixture_digits_train(mc_digits_path, 64, 2, 0);
    tdm_model_options mo = mc_cnn_options();
    trainer f32, one, many;
    double a[STEPS], b[STEPS], c[STEPS];
    mc_trainer_open_model(&f32, mc_devs, mc_n_devs, 0.1f, &mo, 32768.0f);
    mo.compute_dtype = TDM_F16;
    mo.mixed_products = TDM_MIXED_F16;
    mc_trainer_open_model(&one, mc_devs, 1, 0.1f, &mo, 32768.0f);
    mc_trainer_open_model(&many, mc_devs, mc_n_devs, 0.1f, &mo, 32768.0f);
    CHECK(mc_train_steps(&f32, ds, STEPS, a) == STEPS);
    CHECK(mc_train_steps(&one, ds, STEPS, b) == STEPS);
    CHECK(mc_train_steps(&many, ds, STEPS, c) == STEPS);
    double vs_f32 = mc_worst_relative(c, a), vs_one = mc_worst_relative(c, b);
    float scale = 0.0f;
    uint64_t skipped = 1;
    CHECK_OK(tdm_train_op_loss_scale(many.op, &scale, &skipped));
    fprintf(stderr,
            "cnn in f16: %zu replicas against 1: worst relative loss difference %g; against "
            "f32 %g; loss %.4f -> %.4f; %llu steps skipped\n",
            mc_n_devs, vs_one, vs_f32, c[0], c[STEPS - 1], (unsigned long long)skipped);
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
 * largest rounded operand, from its layers: each hidden layer's product (but for
 * relu and linear, which keep it in the activation's memory) and activation, and
 * dropout's output, in 2 bytes instead of 4 (the output layer's stay f32; a product
 * goes through the layer's f32 gradient buffer, free until the backward pass). */
static size_t mlp_savings(const tdm_layer *layers, size_t count, size_t rows)
{
    size_t saved = 0;
    for (size_t l = 0; l + 1 < count; l++) {
        const tdm_activation act = layers[l].activation;
        const size_t buffers = (act == TDM_ACT_RELU || act == TDM_ACT_LINEAR ? 1 : 2) +
                               (layers[l].dropout > 0.0f);
        saved += buffers * rows * layers[l].units * 2;
    }
    return saved;
}

/* The CNN with f16 activations against f32 activations, both with f16 products: the
 * losses follow closely but not bitwise (relu commutes with rounding to half, tanh
 * and normalisation do not), and the buffers shrink. */
static void check_f16_activations_of(const char *what, const tdm_layer *layers, size_t count,
                                     tdm_dataset *ds)
{
    tdm_model_options mo = mc_cnn_options();
    mo.layers = layers;
    mo.layer_count = count;
    mo.compute_dtype = TDM_F16;
    mo.mixed_products = TDM_MIXED_F16;
    trainer mixed, f16;
    double a[STEPS], b[STEPS];
    mc_trainer_open_model(&mixed, mc_devs, mc_n_devs, 0.1f, &mo, 32768.0f);
    mo.activation_dtype = TDM_F16;
    mc_trainer_open_model(&f16, mc_devs, mc_n_devs, 0.1f, &mo, 32768.0f);
    CHECK(mc_train_steps(&mixed, ds, STEPS, a) == STEPS);
    CHECK(mc_train_steps(&f16, ds, STEPS, b) == STEPS);
    double vs_mixed = mc_worst_relative(b, a);
    size_t bytes_mixed = 0, bytes_f16 = 0;
    CHECK_OK(tdm_model_scratch_bytes(mixed.model, 0, &bytes_mixed));
    CHECK_OK(tdm_model_scratch_bytes(f16.model, 0, &bytes_f16));
    fprintf(stderr,
            "%s with f16 activations over %zu replicas: worst relative loss difference to "
            "f32 activations' %g; loss %.4f -> %.4f; buffers %zu bytes, %zu with f32 "
            "activations\n",
            what, mc_n_devs, vs_mixed, b[0], b[STEPS - 1], bytes_f16, bytes_mixed);
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
    tdm_dataset *ds = fixture_digits_train(mc_digits_path, 64, 2, 0);
    check_f16_activations_of("cnn", mc_cnn, CNN_LAYERS, ds);
    const tdm_layer with_ln[] = {TDM_CONV2D(6, 3, TDM_ACT_RELU), TDM_LAYER_NORM(),
                                 TDM_MAX_POOL2D(2), TDM_DENSE(16, TDM_ACT_RELU, 0.0f),
                                 TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    check_f16_activations_of("cnn with layer norm", with_ln, sizeof with_ln / sizeof with_ln[0],
                             ds);
    const tdm_layer with_bn[] = {TDM_CONV2D(6, 3, TDM_ACT_RELU),
                                 TDM_BATCH_NORM(),
                                 TDM_MAX_POOL2D(2),
                                 TDM_DENSE(16, TDM_ACT_RELU, 0.0f),
                                 TDM_BATCH_NORM(),
                                 TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
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
    tdm_dataset *ids = fixture_digits_train(mc_digits_path, 64, 2, 1);
    const tdm_layer with_embedding[] = {TDM_EMBEDDING(17, 2), TDM_CONV2D(6, 3, TDM_ACT_RELU),
                                        TDM_MAX_POOL2D(2),
                                        TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
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
    mc_trainer_open_model(&mixed, mc_devs, 1, 0.1f, &flat, 32768.0f);
    flat.activation_dtype = TDM_F16;
    mc_trainer_open_model(&f16, mc_devs, 1, 0.1f, &flat, 32768.0f);
    CHECK(mc_train_steps(&mixed, ds, 3, a) == 3);
    CHECK(mc_train_steps(&f16, ds, 3, b) == 3);
    CHECK_OK(tdm_model_scratch_bytes(mixed.model, 0, &bytes_mixed));
    CHECK_OK(tdm_model_scratch_bytes(f16.model, 0, &bytes_f16));
    /* the residual layer: its sum alone, one buffer as a linear layer's */
    const tdm_layer counted[] = {mlp[0], mlp[1], {.units = 24, .activation = TDM_ACT_LINEAR},
                                 mlp[3]};
    CHECK(bytes_mixed - bytes_f16 == mlp_savings(counted, 4, 64));
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
    tdm_dataset *ds = fixture_digits_train(mc_digits_path, 64, 2, 0);
    tdm_model_options mo = mc_cnn_options();
    tdm_layer odd[CNN_LAYERS];
    memcpy(odd, mc_cnn, sizeof mc_cnn);
    odd[4].units = 15; /* an odd bucket, padded in f16: 15 x 10 + 10 + 15 gradients */
    mo.layers = odd;
    trainer f32, f16;
    double a[STEPS], b[STEPS];
    mc_trainer_open_model(&f32, mc_devs, mc_n_devs, 0.1f, &mo, 32768.0f);
    mc_trainer_open_reduced(&f16, mc_devs, mc_n_devs, 0.1f, &mo, 32768.0f, TDM_F16);
    CHECK(mc_train_steps(&f32, ds, STEPS, a) == STEPS);
    CHECK(mc_train_steps(&f16, ds, STEPS, b) == STEPS);
    double vs_f32 = mc_worst_relative(b, a);
    float scale = 0.0f;
    uint64_t skipped = 1;
    CHECK_OK(tdm_train_op_loss_scale(f16.op, &scale, &skipped));
    fprintf(stderr,
            "cnn with an f16 all-reduce over %zu replicas: worst relative loss difference to "
            "f32's %g; loss %.4f -> %.4f; %llu steps skipped\n",
            mc_n_devs, vs_f32, b[0], b[STEPS - 1], (unsigned long long)skipped);
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
    CHECK(mc_train_steps(t, ds, STEPS, b) == STEPS);
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
    tdm_dataset *ds = fixture_digits_train(mc_digits_path, 64, 2, 0);
    tdm_model_options mo = mc_cnn_options();
    trainer f32, reduced, f16;
    mc_trainer_open_model(&f32, mc_devs, mc_n_devs, 0.1f, &mo, 0x1p24f);
    mc_trainer_open_reduced(&reduced, mc_devs, mc_n_devs, 0.1f, &mo, 0x1p24f, TDM_F16);
    mo.compute_dtype = TDM_F16;
    mo.mixed_products = TDM_MIXED_F16;
    mc_trainer_open_model(&f16, mc_devs, mc_n_devs, 0.1f, &mo, 0x1p24f);
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
    tdm_dataset *ds = fixture_digits_train(mc_digits_path, 64, 2, 0);
    tdm_model_options mo = mc_cnn_options();
    trainer plain, f32, f16;
    scales_seen f32_seen, f16_seen;
    double a[STEPS], b[STEPS], c[STEPS];
    mc_trainer_open_model(&plain, mc_devs, mc_n_devs, 0.1f, &mo, 0.0f);
    mo.compute_dtype = TDM_F16;
    mo.mixed_products = TDM_MIXED_F32;
    mc_trainer_open_model(&f32, mc_devs, mc_n_devs, 0.1f, &mo, 0.0f);
    note_scales(&f32, &f32_seen, 32768.0f);
    mo.mixed_products = TDM_MIXED_F16;
    mc_trainer_open_model(&f16, mc_devs, mc_n_devs, 0.1f, &mo, 0.0f);
    note_scales(&f16, &f16_seen, 32768.0f);
    CHECK(mc_train_steps(&plain, ds, STEPS, a) == STEPS);
    CHECK(mc_train_steps(&f32, ds, STEPS, b) == STEPS);
    CHECK(mc_train_steps(&f16, ds, STEPS, c) == STEPS);
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
void test_case_model_cnn(const test_run *run)
{
    mc_n_devs = test_scenario_of(run, &mc_ctx, mc_devs);
    mc_digits_path = run->argv[1];
    check_equivalence();
    mc_check_gradients();
    mc_check_embedding();
    mc_check_global_pooling();
    mc_check_graph();
    mc_check_file();
    mc_check_batch_norm(!strcmp(run->scenario, "mixed"));
    check_mixed_precision();
    check_f16_activations();
    check_f16_all_reduce();
    check_f16_overflow();
    check_idle_loss_scale();
    mc_check_ops();
    mc_check_refusals();
}
