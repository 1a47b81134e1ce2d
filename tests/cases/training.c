/* tdm_training_create: a run described whole (strategy kind over devices, model
 * options, optimizer, dataset) trains the same losses, bit for bit, as the same run
 * assembled by hand; a run built in stages (a trainer, then a fit's step and monitor
 * over its train op) leaves the given parts to the caller; descriptions that make no
 * run are refused naming the part, with nothing left built. */
#include <string.h>

#include "harness.h"
#include "train_fixture.h"

#define FEATURES 6
#define EXAMPLES 96
#define BATCH 16
#define STEPS 12

static tdm_context *ctx;
static tdm_device *devs[3];
static size_t n_devs;

static const tdm_layer layers[] = {TDM_DENSE(12, TDM_ACT_TANH, 0.0f),
                                   TDM_DENSE(2, TDM_ACT_LINEAR, 0.0f)};

static tdm_model_options model_options(void)
{
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.input_features = FEATURES;
    mo.layers = layers;
    mo.layer_count = 2;
    mo.loss = TDM_LOSS_MEAN_SQUARED_ERROR;
    mo.seed = 9;
    return mo;
}

static tdm_dataset *data(void)
{
    static float x[EXAMPLES * FEATURES], y[EXAMPLES * 2];
    uint64_t state = 77;
    for (size_t i = 0; i < EXAMPLES; i++) {
        for (size_t j = 0; j < FEATURES; j++)
            x[i * FEATURES + j] = fixture_draw(&state);
        y[2 * i] = x[i * FEATURES] - x[i * FEATURES + 1];
        y[2 * i + 1] = x[i * FEATURES + 2] * x[i * FEATURES + 3];
    }
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_targets(x, y, EXAMPLES, FEATURES, 2, &ds));
    CHECK_OK(tdm_dataset_batch(ds, BATCH, 0));
    CHECK_OK(tdm_dataset_repeat(ds, TDM_REPEAT_FOREVER));
    return ds;
}

typedef struct losses {
    double value[STEPS];
    size_t count;
} losses;

static int record(const tdm_step_result *r, void *user)
{
    losses *l = user;
    if (l->count < STEPS)
        l->value[l->count++] = r->loss;
    return 0;
}

/* Described whole against assembled by hand: the same losses, bit for bit. */
static void check_whole_run(void)
{
    tdm_dataset *ds = data();
    tdm_model_options mo = model_options();
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.kind = TDM_OPT_SGD;
    oo.learning_rate.initial = 0.1f;
    losses got = {0};
    tdm_monitor_options mon = TDM_MONITOR_OPTIONS_INIT;
    mon.progress = record;
    mon.progress_user = &got;
    tdm_training_description d = TDM_TRAINING_DESCRIPTION_INIT;
    d.context = ctx;
    d.devices = devs;
    d.device_count = n_devs;
    d.model_options = &mo;
    d.optimizer = &oo;
    d.dataset = ds;
    d.monitor_options = &mon;
    tdm_training *run = NULL;
    CHECK_OK(tdm_training_create(&d, &run));
    tdm_strategy *s = tdm_training_strategy(run);
    CHECK(tdm_strategy_kind_of(s) == TDM_STRATEGY_MIRRORED &&
          tdm_strategy_num_replicas(s) == n_devs);
    CHECK(tdm_model_strategy(tdm_training_model(run)) == s);
    CHECK(tdm_train_op_optimizer(tdm_training_train_op(run)) == tdm_training_optimizer(run));
    CHECK(tdm_training_step(run) && tdm_training_monitor(run));
    uint64_t done = 0;
    CHECK_OK(tdm_monitor_run_steps(tdm_training_monitor(run), STEPS, &done));
    CHECK(done == STEPS && got.count == STEPS);

    trainer t;
    trainer_open_on(&t, ctx, devs, n_devs, &mo, TDM_OPT_SGD, 0.1f);
    double want[STEPS];
    CHECK(fixture_train_steps(t.strategy, t.op, ds, STEPS, want) == STEPS);
    CHECK(memcmp(want, got.value, sizeof want) == 0);
    CHECK(got.value[STEPS - 1] < got.value[0]);
    trainer_close(&t);
    tdm_training_destroy(run);
    tdm_dataset_destroy(ds);
}

/* Keras' stages: a trainer of a given strategy and model, then a fit's step and
 * monitor over its train op; destroying the fit leaves the trainer working, and the
 * trainer leaves the strategy and model. */
static void check_stages(void)
{
    tdm_dataset *ds = data();
    tdm_model_options mo = model_options();
    tdm_strategy *s = NULL;
    tdm_model *m = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, n_devs, NULL, &s));
    CHECK_OK(tdm_model_create(s, &mo, &m));
    tdm_training_description d = TDM_TRAINING_DESCRIPTION_INIT;
    d.strategy = s;
    d.model = m;
    tdm_training *trainer_run = NULL, *fit = NULL;
    CHECK_OK(tdm_training_create(&d, &trainer_run)); /* the optimizer's defaults */
    CHECK(!strcmp(tdm_optimizer_name(tdm_training_optimizer(trainer_run)), "SGD"));
    CHECK(tdm_training_step(trainer_run) == NULL && tdm_training_monitor(trainer_run) == NULL);
    tdm_training_description f = TDM_TRAINING_DESCRIPTION_INIT;
    f.train_op = tdm_training_train_op(trainer_run);
    f.dataset = ds;
    for (int round = 0; round < 2; round++) { /* two fits over one train op */
        CHECK_OK(tdm_training_create(&f, &fit));
        CHECK(tdm_training_strategy(fit) == s && tdm_training_model(fit) == NULL);
        CHECK(tdm_training_train_op(fit) == f.train_op);
        uint64_t done = 0;
        CHECK_OK(tdm_monitor_run_steps(tdm_training_monitor(fit), 3, &done));
        CHECK(done == 3);
        tdm_training_destroy(fit);
    }
    CHECK(tdm_train_op_global_step(f.train_op) == 6);
    tdm_training_destroy(trainer_run);
    CHECK(tdm_model_variable_count(m) == 4); /* the model stays the caller's */
    tdm_model_destroy(m);
    tdm_strategy_destroy(s);
    tdm_dataset_destroy(ds);
}

/* Descriptions that make no run, each refused naming the part. */
static void check_refused(void)
{
    tdm_model_options mo = model_options();
    tdm_training *run = NULL;
    tdm_training_description d = TDM_TRAINING_DESCRIPTION_INIT;
    d.context = ctx;
    CHECK_FAILS(tdm_training_create(&d, &run), TDM_ERR_INVALID_ARGUMENT,
                "no model: give one (model), describe one (model_options) or give the train op");
    d.model_options = &mo;
    d.strategy_kind = TDM_STRATEGY_ONE_DEVICE;
    CHECK_FAILS(tdm_training_create(&d, &run), TDM_ERR_INVALID_ARGUMENT,
                "strategy: the one-device strategy takes a device");
    d.strategy_kind = TDM_STRATEGY_DEFAULT;
    CHECK_FAILS(tdm_training_create(&d, &run), TDM_ERR_INVALID_ARGUMENT,
                "strategy: strategy_kind 0: describe one-device, mirrored");
    d.strategy_kind = TDM_STRATEGY_MIRRORED;
    d.context = NULL;
    CHECK_FAILS(tdm_training_create(&d, &run), TDM_ERR_INVALID_ARGUMENT,
                "strategy: a mirrored strategy takes a context");
    d.context = ctx;
    tdm_model_options bad = mo;
    bad.layer_count = 0;
    d.model_options = &bad;
    CHECK_FAILS(tdm_training_create(&d, &run), TDM_ERR_INVALID_ARGUMENT,
                "tdm_training_create: model: tdm_model_create");
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.learning_rate.initial = -1.0f;
    d.model_options = &mo;
    d.optimizer = &oo;
    CHECK_FAILS(tdm_training_create(&d, &run), TDM_ERR_INVALID_ARGUMENT,
                "tdm_training_create: optimizer:");
    tdm_strategy *s = NULL, *other = NULL;
    tdm_model *m = NULL;
    CHECK_OK(tdm_strategy_create_one_device(devs[0], NULL, &s));
    CHECK_OK(tdm_strategy_create_one_device(devs[n_devs - 1], NULL, &other));
    CHECK_OK(tdm_model_create(s, &mo, &m));
    tdm_training_description g = TDM_TRAINING_DESCRIPTION_INIT;
    g.strategy = other;
    g.model = m;
    CHECK_FAILS(tdm_training_create(&g, &run), TDM_ERR_INVALID_ARGUMENT,
                "the model's variables live on another strategy");
    g.model_options = &mo;
    CHECK_FAILS(tdm_training_create(&g, &run), TDM_ERR_INVALID_ARGUMENT,
                "both a model and model_options");
    g.size = 8;
    CHECK_FAILS(tdm_training_create(&g, &run), TDM_ERR_INVALID_ARGUMENT,
                "description.size is 8");
    CHECK(run == NULL);
    tdm_training_destroy(NULL);
    tdm_model_destroy(m);
    tdm_strategy_destroy(s);
    tdm_strategy_destroy(other);
}

void test_case_training(const test_run *run)
{
    n_devs = test_scenario_of(run, &ctx, devs);
    check_whole_run();
    check_stages();
    check_refused();
}
