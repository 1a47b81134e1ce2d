/* How a model's layers compute: its convolutions by the rule (implicit on Vulkan, lowered on
 * OpenCL, direct on the reference backend), forced direct, lowered, implicit (lowered on
 * OpenCL, which lacks its kernels) or Winograd (as auto where the window is not 3x3 of
 * stride 1), or measured per layer on each replica's device at its first step. Forced choices train
 * alike to f32 rounding; a measured model trains bit for bit as one forced to what it chose, so the
 * measurement leaves nothing behind (nor the losing way's im2col matrix, which
 * tdm_model_scratch_bytes sees); options that cannot work are refused. Mixed
 * precision's products likewise: f16 or f32 forced (f32 training bit for bit as the
 * f32 model), or measured per layer and device at the first step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "train_fixture.h"

#define SIDE 8
#define FEATURES (SIDE * SIDE)
#define CLASSES 4
#define EXAMPLES 96
#define BATCH 32
#define STEPS 6
#define MAX_WEIGHTS 4096

static tdm_context *ctx;
static tdm_device *devs[3];
static size_t n_devs;

/* conv 4 filters 3x3 SAME, max pool 2, dense 4: one convolution, so a measured model
 * makes one choice per device. */
static const tdm_layer layers[] = {
    TDM_CONV2D(4, 3, TDM_ACT_RELU),
    TDM_MAX_POOL2D(2),
    TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f),
};
#define LAYERS (sizeof layers / sizeof layers[0])

static tdm_model_options options(tdm_conv_algorithm a)
{
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.layers = layers;
    mo.layer_count = LAYERS;
    mo.input_height = mo.input_width = SIDE;
    mo.input_channels = 1;
    mo.seed = 9;
    mo.conv_algorithm = a;
    return mo;
}

/* Each class a bright quadrant over noise, in batches of `batch`. */
static tdm_dataset *images(size_t batch)
{
    static float x[EXAMPLES * FEATURES];
    static int32_t y[EXAMPLES];
    uint32_t state = 12345u;
    for (size_t e = 0; e < EXAMPLES; e++) {
        y[e] = (int32_t)(e % CLASSES);
        for (size_t i = 0; i < FEATURES; i++) {
            state = state * 1664525u + 1013904223u;
            size_t quadrant = (i / SIDE >= SIDE / 2) * 2 + (i % SIDE >= SIDE / 2);
            x[e * FEATURES + i] =
                (float)(state >> 8) * 0x1p-24f + (quadrant == (size_t)y[e] ? 1.0f : 0.0f);
        }
    }
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_arrays(x, y, EXAMPLES, FEATURES, CLASSES, &ds));
    CHECK_OK(tdm_dataset_batch(ds, batch, 0));
    CHECK_OK(tdm_dataset_repeat(ds, 4));
    return ds;
}

typedef struct conv_run {
    tdm_strategy *strategy;
    tdm_model *model;
    tdm_optimizer *opt;
    tdm_train_op *op;
    double losses[STEPS];
    float weights[MAX_WEIGHTS];
    size_t weight_count;
} conv_run;

static void run_open_model(conv_run *r, tdm_device *const *d, size_t n, const tdm_model_options *mo)
{
    memset(r, 0, sizeof *r);
    CHECK_OK(n == 1 ? tdm_strategy_create_one_device(d[0], NULL, &r->strategy)
                    : tdm_strategy_create_mirrored(ctx, d, n, NULL, &r->strategy));
    CHECK_OK(tdm_model_create(r->strategy, mo, &r->model));
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.kind = TDM_OPT_SGD;
    oo.learning_rate.initial = 0.1f;
    CHECK_OK(tdm_optimizer_create(r->strategy, &oo, &r->opt));
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = tdm_model_loss;
    to.loss_user = r->model;
    to.optimizer = r->opt;
    CHECK_OK(tdm_train_op_create(r->strategy, &to, &r->op));
}

static void run_open(conv_run *r, tdm_device *const *d, size_t n, tdm_conv_algorithm a)
{
    tdm_model_options mo = options(a);
    run_open_model(r, d, n, &mo);
}

/* STEPS steps, then the weights (the first copies). */
static void run_train(conv_run *r)
{
    tdm_dataset *ds = images(BATCH);
    CHECK(fixture_train_steps(r->strategy, r->op, ds, STEPS, r->losses) == STEPS);
    tdm_dataset_destroy(ds);
    r->weight_count = 0;
    for (size_t i = 0; i < tdm_model_variable_count(r->model); i++) {
        tdm_variable *v = tdm_model_variable(r->model, i);
        tdm_shape shape = tdm_variable_shape(v);
        size_t count = tdm_shape_count(&shape), bytes = count * sizeof(float);
        CHECK(r->weight_count + count <= MAX_WEIGHTS);
        if (r->weight_count + count > MAX_WEIGHTS)
            break;
        CHECK_OK(tdm_variable_read(v, r->weights + r->weight_count, bytes));
        r->weight_count += count;
    }
}

static size_t scratch_bytes(const conv_run *r)
{
    size_t bytes = 1;
    CHECK_OK(tdm_model_scratch_bytes(r->model, 0, &bytes));
    return bytes;
}

static void run_close(conv_run *r)
{
    tdm_train_op_destroy(r->op);
    tdm_optimizer_destroy(r->opt);
    tdm_model_destroy(r->model);
    tdm_strategy_destroy(r->strategy);
}

static tdm_mixed_products products(const conv_run *r, size_t replica, size_t layer)
{
    tdm_mixed_products p = TDM_MIXED_MEASURED;
    CHECK_OK(tdm_model_mixed_products_used(r->model, replica, layer, &p));
    return p;
}

static tdm_conv_algorithm used(const conv_run *r, size_t replica)
{
    tdm_conv_algorithm a = TDM_CONV_AUTO;
    CHECK_OK(tdm_model_conv_algorithm_used(r->model, replica, 0, &a));
    return a;
}

static tdm_backend_kind backend_of(tdm_device *dev)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(dev, &d));
    return d.backend;
}

/* Whether OpenCL's CPU devices (PoCL's, here) run the implicit kernels: on oneDNN,
 * where the build has it (TDM_TEST_ONEDNN, set by CMake) and TDM_CL_CONV does not ask
 * for lowered. */
static int opencl_has_implicit(void)
{
#ifdef TDM_TEST_ONEDNN
    const char *choice = getenv("TDM_CL_CONV");
    return !choice || strcmp(choice, "lowered") != 0;
#else
    return 0;
#endif
}

/* What a model forced to implicit computes on dev: implicit where its kernels are
 * (Vulkan, the reference backend, OpenCL on oneDNN), else lowered. */
static tdm_conv_algorithm implicit_on(tdm_device *dev)
{
    return backend_of(dev) == TDM_BACKEND_OPENCL && !opencl_has_implicit() ? TDM_CONV_LOWERED
                                                                           : TDM_CONV_IMPLICIT;
}

/* What auto computes on dev: direct on the reference backend, implicit on a CPU
 * device that has it (lavapipe, PoCL on oneDNN), else lowered, as on GPUs (lavapipe
 * as one too). */
static tdm_conv_algorithm auto_on(tdm_device *dev)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(dev, &d));
    if (d.backend == TDM_BACKEND_REFERENCE)
        return TDM_CONV_DIRECT;
    return d.type == TDM_DEVICE_CPU ? implicit_on(dev) : TDM_CONV_LOWERED;
}

/* Winograd asked of a 5x5 window computes as auto would. */
static void check_winograd_misfit(void)
{
    static const tdm_layer wide[] = {TDM_CONV2D(4, 5, TDM_ACT_RELU), TDM_MAX_POOL2D(2),
                                     TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    for (size_t i = 0; i < n_devs; i++) {
        tdm_conv_algorithm asked[2] = {TDM_CONV_WINOGRAD, TDM_CONV_AUTO}, got[2];
        for (int k = 0; k < 2; k++) {
            tdm_model_options mo = options(asked[k]);
            mo.layers = wide;
            tdm_strategy *s = NULL;
            tdm_model *m = NULL;
            CHECK_OK(tdm_strategy_create_one_device(devs[i], NULL, &s));
            CHECK_OK(tdm_model_create(s, &mo, &m));
            CHECK_OK(tdm_model_conv_algorithm_used(m, 0, 0, &got[k]));
            tdm_model_destroy(m);
            tdm_strategy_destroy(s);
        }
        CHECK(got[0] == got[1] && got[0] != TDM_CONV_WINOGRAD);
    }
}

/* What each option gives on every device, before any step. */
static void check_rule(void)
{
    for (size_t i = 0; i < n_devs; i++) {
        conv_run r;
        run_open(&r, devs + i, 1, TDM_CONV_AUTO);
        CHECK(used(&r, 0) == auto_on(devs[i]));
        run_close(&r);
        run_open(&r, devs + i, 1, TDM_CONV_MEASURED);
        CHECK(used(&r, 0) == TDM_CONV_MEASURED);
        run_close(&r);
    }
    conv_run r;
    run_open(&r, devs, n_devs, TDM_CONV_DIRECT);
    for (size_t i = 0; i < n_devs; i++)
        CHECK(used(&r, i) == TDM_CONV_DIRECT);
    run_close(&r);
    run_open(&r, devs, n_devs, TDM_CONV_IMPLICIT);
    for (size_t i = 0; i < n_devs; i++)
        CHECK(used(&r, i) == implicit_on(devs[i]));
    run_close(&r);
    run_open(&r, devs, n_devs, TDM_CONV_WINOGRAD);
    for (size_t i = 0; i < n_devs; i++)
        CHECK(used(&r, i) == TDM_CONV_WINOGRAD);
    run_close(&r);
    check_winograd_misfit();
    tdm_model_options mo = options(TDM_CONV_AUTO);
    mo.compute_dtype = TDM_F16;
    mo.mixed_products = TDM_MIXED_F16;
    run_open_model(&r, devs, 1, &mo);
    CHECK(used(&r, 0) == TDM_CONV_LOWERED); /* f16 operands are GEMM's */
    CHECK(products(&r, 0, 0) == TDM_MIXED_F16 && products(&r, 0, 2) == TDM_MIXED_F16);
    run_close(&r);
    mo.mixed_products = TDM_MIXED_MEASURED; /* the default: both wait for the first step */
    run_open_model(&r, devs, 1, &mo);
    CHECK(used(&r, 0) == TDM_CONV_MEASURED);
    CHECK(products(&r, 0, 0) == TDM_MIXED_MEASURED && products(&r, 0, 2) == TDM_MIXED_MEASURED);
    run_close(&r);
    run_open(&r, devs, 1, TDM_CONV_AUTO); /* f32 models' products are f32 */
    CHECK(products(&r, 0, 0) == TDM_MIXED_F32 && products(&r, 0, 2) == TDM_MIXED_F32);
    run_close(&r);
}

/* The largest |got - want| / |want| of the losses and of the weights. */
static double worst_relative(const conv_run *got, const conv_run *want)
{
    double worst = 0.0;
    for (size_t i = 0; i < STEPS; i++)
        worst = fmax(worst, fabs(got->losses[i] - want->losses[i]) / fabs(want->losses[i]));
    for (size_t i = 0; i < want->weight_count; i++) {
        double scale = fmax(fabs((double)want->weights[i]), 1e-3);
        worst = fmax(worst, fabs((double)got->weights[i] - want->weights[i]) / scale);
    }
    return worst;
}

/* Two convolutions, so that the second's input gradient runs Winograd's too. */
static void check_winograd_input_gradient(tdm_device *dev, size_t i)
{
    static const tdm_layer two[] = {TDM_CONV2D(4, 3, TDM_ACT_RELU), TDM_CONV2D(4, 3, TDM_ACT_RELU),
                                    TDM_MAX_POOL2D(2), TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    conv_run runs[2];
    const tdm_conv_algorithm ways[2] = {TDM_CONV_DIRECT, TDM_CONV_WINOGRAD};
    for (int k = 0; k < 2; k++) {
        tdm_model_options mo = options(ways[k]);
        mo.layers = two;
        mo.layer_count = sizeof two / sizeof two[0];
        run_open_model(&runs[k], &dev, 1, &mo);
        run_train(&runs[k]);
    }
    double worst = worst_relative(&runs[1], &runs[0]);
    fprintf(stderr, "device %zu: two convolutions, winograd against direct: %g\n", i, worst);
    CHECK(worst <= 2e-5);
    run_close(&runs[1]);
    run_close(&runs[0]);
}

/* Winograd trains as direct does, to its transforms' rounding; it keeps an im2col
 * matrix for its filter gradient only where the device lacks the implicit kernels. */
static void check_winograd_agrees(tdm_device *dev, size_t i, const conv_run *direct,
                                  const conv_run *lowered)
{
    conv_run winograd;
    run_open(&winograd, &dev, 1, TDM_CONV_WINOGRAD);
    run_train(&winograd);
    int has = implicit_on(dev) == TDM_CONV_IMPLICIT;
    CHECK(used(&winograd, 0) == TDM_CONV_WINOGRAD);
    /* its transformed tiles come from the device's pool for a pass, outside these */
    CHECK(scratch_bytes(&winograd) == scratch_bytes(has ? direct : lowered));
    double worst = worst_relative(&winograd, direct);
    fprintf(stderr, "device %zu: winograd against direct: worst relative difference %g\n", i,
            worst);
    CHECK(worst <= 2e-5);
    run_close(&winograd);
    check_winograd_input_gradient(dev, i);
}

/* Direct, lowered and implicit train alike on every device (they differ in the order
 * of their sums only), and they learn; implicit keeps no im2col matrix. */
static void check_forced_agree(void)
{
    for (size_t i = 0; i < n_devs; i++) {
        conv_run direct, lowered;
        run_open(&direct, devs + i, 1, TDM_CONV_DIRECT);
        run_open(&lowered, devs + i, 1, TDM_CONV_LOWERED);
        CHECK(scratch_bytes(&direct) == 0);
        run_train(&direct);
        run_train(&lowered);
        /* lowered, the layer keeps its im2col matrix: a row of 8 x 8 windows of 3 x 3 */
        CHECK(scratch_bytes(&lowered) - scratch_bytes(&direct) == BATCH * 64 * 9 * sizeof(float));
        double worst = worst_relative(&lowered, &direct);
        fprintf(stderr, "device %zu: lowered against direct: worst relative difference %g\n", i,
                worst);
        CHECK(worst <= 2e-5);
        CHECK(direct.losses[STEPS - 1] < 0.8 * direct.losses[0]);
        conv_run implicit;
        run_open(&implicit, devs + i, 1, TDM_CONV_IMPLICIT);
        run_train(&implicit);
        int has = implicit_on(devs[i]) == TDM_CONV_IMPLICIT;
        CHECK(scratch_bytes(&implicit) == scratch_bytes(has ? &direct : &lowered));
        worst = worst_relative(&implicit, &direct);
        fprintf(stderr, "device %zu: implicit (%s) against direct: worst relative difference %g\n",
                i, tdm_conv_algorithm_name(used(&implicit, 0)), worst);
        CHECK(worst <= 2e-5);
        run_close(&implicit);
        check_winograd_agrees(devs[i], i, &direct, &lowered);
        run_close(&direct);
        run_close(&lowered);
    }
}

/* A measured model on each device chooses at its first step, then trains bit for bit
 * as a model forced to that choice; mirrored over every device, each replica
 * chooses and the copies stay equal. */
static void check_measured(void)
{
    for (size_t i = 0; i < n_devs; i++) {
        conv_run measured, forced;
        run_open(&measured, devs + i, 1, TDM_CONV_MEASURED);
        run_train(&measured);
        tdm_conv_algorithm chose = used(&measured, 0);
        CHECK(chose == TDM_CONV_DIRECT || chose == TDM_CONV_LOWERED || chose == TDM_CONV_WINOGRAD ||
              (chose == TDM_CONV_IMPLICIT && implicit_on(devs[i]) == TDM_CONV_IMPLICIT));
        fprintf(stderr, "device %zu: measured %s\n", i, tdm_conv_algorithm_name(chose));
        run_open(&forced, devs + i, 1, chose);
        run_train(&forced);
        CHECK(!memcmp(measured.losses, forced.losses, sizeof measured.losses));
        CHECK(scratch_bytes(&measured) == scratch_bytes(&forced)); /* the loser's buffer freed */
        /* A larger batch grows the buffers; the choice stays. */
        size_t before = scratch_bytes(&measured);
        tdm_dataset *larger = images(2 * BATCH);
        double losses[2];
        CHECK(fixture_train_steps(measured.strategy, measured.op, larger, 2, losses) == 2);
        CHECK(used(&measured, 0) == chose && scratch_bytes(&measured) > before);
        tdm_dataset_destroy(larger);
        CHECK(measured.weight_count == forced.weight_count &&
              !memcmp(measured.weights, forced.weights, measured.weight_count * sizeof(float)));
        run_close(&measured);
        run_close(&forced);
    }
    conv_run all;
    run_open(&all, devs, n_devs, TDM_CONV_MEASURED);
    run_train(&all);
    for (size_t i = 0; i < n_devs; i++)
        CHECK(used(&all, i) == TDM_CONV_DIRECT || used(&all, i) == TDM_CONV_LOWERED ||
              used(&all, i) == TDM_CONV_WINOGRAD || used(&all, i) == implicit_on(devs[i]));
    CHECK_OK(tdm_strategy_check_mirrored(all.strategy));
    CHECK(all.losses[STEPS - 1] < 0.8 * all.losses[0]);
    run_close(&all);
}

/* Mixed precision forced to f32 products computes its convolutions as f32 does and
 * trains bit for bit as the f32 model, with no f16 scratch; forced to f16 products it
 * rounds (its losses differ, within f16's rounding). */
static void check_mixed_forced(void)
{
    for (size_t i = 0; i < n_devs; i++) {
        conv_run f32, p32, p16;
        tdm_model_options mo = options(TDM_CONV_AUTO);
        run_open_model(&f32, devs + i, 1, &mo);
        mo.compute_dtype = TDM_F16;
        mo.mixed_products = TDM_MIXED_F32;
        run_open_model(&p32, devs + i, 1, &mo);
        mo.mixed_products = TDM_MIXED_F16;
        run_open_model(&p16, devs + i, 1, &mo);
        CHECK(used(&p32, 0) == used(&f32, 0) && used(&p16, 0) == TDM_CONV_LOWERED);
        run_train(&f32);
        run_train(&p32);
        run_train(&p16);
        CHECK(!memcmp(f32.losses, p32.losses, sizeof f32.losses));
        CHECK(f32.weight_count == p32.weight_count &&
              !memcmp(f32.weights, p32.weights, f32.weight_count * sizeof(float)));
        CHECK(scratch_bytes(&p32) == scratch_bytes(&f32));
        double rounding = worst_relative(&p16, &f32);
        fprintf(stderr, "device %zu: f16 products against f32: worst relative difference %g\n", i,
                rounding);
        CHECK(rounding > 0.0 && rounding <= 3e-2);
        run_close(&f32);
        run_close(&p32);
        run_close(&p16);
    }
}

/* Mixed precision's products measured: each layer's choice waits for the first step,
 * then is f16 or f32 on each device, a convolution lowered where its operands are
 * f16 and computing as in f32 where they are f32; a model whose layers all chose alike
 * trains bit for bit as one forced to that choice, with the same buffers (the f16
 * scratch gone where nothing uses it); mirrored over every device the copies stay
 * equal. */
static void check_mixed_measured(void)
{
    tdm_model_options mo = options(TDM_CONV_AUTO);
    mo.compute_dtype = TDM_F16;
    for (size_t i = 0; i < n_devs; i++) {
        conv_run measured, forced;
        run_open_model(&measured, devs + i, 1, &mo);
        run_train(&measured);
        tdm_mixed_products conv = products(&measured, 0, 0), dense = products(&measured, 0, 2);
        CHECK(conv == TDM_MIXED_F16 || conv == TDM_MIXED_F32);
        CHECK(dense == TDM_MIXED_F16 || dense == TDM_MIXED_F32);
        CHECK(used(&measured, 0) == (conv == TDM_MIXED_F16 ? TDM_CONV_LOWERED : auto_on(devs[i])));
        fprintf(stderr, "device %zu: measured conv0 %s (%s), dense2 %s\n", i,
                tdm_mixed_products_name(conv), tdm_conv_algorithm_name(used(&measured, 0)),
                tdm_mixed_products_name(dense));
        if (conv == dense) {
            tdm_model_options same = mo;
            same.mixed_products = conv;
            run_open_model(&forced, devs + i, 1, &same);
            run_train(&forced);
            CHECK(!memcmp(measured.losses, forced.losses, sizeof measured.losses));
            CHECK(measured.weight_count == forced.weight_count &&
                  !memcmp(measured.weights, forced.weights, measured.weight_count * sizeof(float)));
            CHECK(scratch_bytes(&measured) == scratch_bytes(&forced));
            run_close(&forced);
        }
        run_close(&measured);
    }
    conv_run all;
    run_open_model(&all, devs, n_devs, &mo);
    run_train(&all);
    for (size_t i = 0; i < n_devs; i++)
        CHECK(products(&all, i, 0) != TDM_MIXED_MEASURED &&
              products(&all, i, 2) != TDM_MIXED_MEASURED);
    CHECK_OK(tdm_strategy_check_mirrored(all.strategy));
    CHECK(all.losses[STEPS - 1] < 0.8 * all.losses[0]);
    run_close(&all);
}

/* Mixed precision's products: asked of an f32 model, out of range, or of a layer
 * without products. */
static void check_mixed_refusals(void)
{
    tdm_strategy *s = NULL;
    tdm_model *m = NULL;
    CHECK_OK(tdm_strategy_create_one_device(devs[0], NULL, &s));
    tdm_model_options mo = options(TDM_CONV_AUTO);
    mo.mixed_products = TDM_MIXED_F16;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "mixed_products f16 is for compute_dtype f16");
    mo.compute_dtype = TDM_F16;
    mo.mixed_products = (tdm_mixed_products)7;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT, "unknown mixed_products 7");
    mo.mixed_products = TDM_MIXED_MEASURED;
    CHECK_OK(tdm_model_create(s, &mo, &m));
    tdm_mixed_products p;
    CHECK_FAILS(tdm_model_mixed_products_used(m, 0, 1, &p), TDM_ERR_INVALID_ARGUMENT,
                "layer 1 of 3: give a local replica and a dense or conv2d layer");
    CHECK_FAILS(tdm_model_mixed_products_used(m, 1, 0, &p), TDM_ERR_INVALID_ARGUMENT,
                "replica 1 of 1");
    tdm_model_destroy(m);
    tdm_strategy_destroy(s);
    for (int i = TDM_MIXED_MEASURED; i <= TDM_MIXED_F32; i++) {
        tdm_mixed_products back = TDM_MIXED_MEASURED;
        CHECK_OK(tdm_mixed_products_parse(tdm_mixed_products_name((tdm_mixed_products)i), &back));
        CHECK((int)back == i);
    }
    CHECK_FAILS(tdm_mixed_products_parse("bf16", &p), TDM_ERR_NOT_FOUND,
                "no choice of products 'bf16'");
    CHECK(!strcmp(tdm_mixed_products_name((tdm_mixed_products)3), "unknown"));
}

static void check_refusals(void)
{
    tdm_strategy *s = NULL;
    tdm_model *m = NULL;
    CHECK_OK(tdm_strategy_create_one_device(devs[0], NULL, &s));
    tdm_model_options mo = options(TDM_CONV_DIRECT);
    mo.compute_dtype = TDM_F16;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "conv_algorithm direct with compute_dtype f16");
    mo = options(TDM_CONV_IMPLICIT);
    mo.compute_dtype = TDM_F16;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "conv_algorithm implicit with compute_dtype f16");
    mo = options(TDM_CONV_WINOGRAD);
    mo.compute_dtype = TDM_F16;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "conv_algorithm winograd with compute_dtype f16");
    mo = options((tdm_conv_algorithm)7);
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT, "unknown conv_algorithm 7");
    mo = options(TDM_CONV_AUTO);
    mo.reserved[0] = 1;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "options.reserved is not 0: use TDM_MODEL_OPTIONS_INIT");
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.reserved[0] = 1;
    tdm_train_op *op = NULL;
    CHECK_FAILS(tdm_train_op_create(s, &to, &op), TDM_ERR_INVALID_ARGUMENT,
                "options.reserved is not 0: use TDM_TRAIN_OP_OPTIONS_INIT");
    mo = options(TDM_CONV_AUTO);
    CHECK_OK(tdm_model_create(s, &mo, &m));
    tdm_conv_algorithm a;
    CHECK_FAILS(tdm_model_conv_algorithm_used(m, 0, 1, &a), TDM_ERR_INVALID_ARGUMENT,
                "layer 1 of 3: give a local replica and a conv2d layer");
    CHECK_FAILS(tdm_model_conv_algorithm_used(m, 1, 0, &a), TDM_ERR_INVALID_ARGUMENT,
                "replica 1 of 1");
    size_t bytes;
    CHECK_FAILS(tdm_model_scratch_bytes(m, 1, &bytes), TDM_ERR_INVALID_ARGUMENT,
                "replica 1 of 1 local replicas");
    tdm_model_destroy(m);
    tdm_strategy_destroy(s);
    for (int i = TDM_CONV_AUTO; i <= TDM_CONV_WINOGRAD; i++) {
        tdm_conv_algorithm back = TDM_CONV_AUTO;
        CHECK_OK(tdm_conv_algorithm_parse(tdm_conv_algorithm_name((tdm_conv_algorithm)i), &back));
        CHECK((int)back == i);
    }
    CHECK_FAILS(tdm_conv_algorithm_parse("gemm", &a), TDM_ERR_NOT_FOUND,
                "no convolution algorithm 'gemm'");
    CHECK(!strcmp(tdm_conv_algorithm_name((tdm_conv_algorithm)9), "unknown"));
    check_mixed_refusals();
}

void test_case_conv_choice(const test_run *run)
{
    n_devs = test_scenario_of(run, &ctx, devs);
    check_rule();
    check_forced_agree();
    check_measured();
    check_mixed_forced();
    check_mixed_measured();
    check_refusals();
}
