/* The train case, its second part (train.c runs it): refused calls, the monitor's
 * resume, evaluation on a strategy and predictions after a load. */
#include "train_case_fixture.h"

void tr_check_errors(void)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(tr_ctx, tr_devs, tr_n_devs, NULL, &s));
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(s, &oo, &opt));
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    tdm_train_op *op = NULL;
    to.optimizer = opt;
    CHECK_FAILS(tdm_train_op_create(s, &to, &op), TDM_ERR_INVALID_ARGUMENT, "loss function");
    to.loss_fn = tr_linear_loss_fn;
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
void tr_check_trace_errors(void)
{
    trainer t;
    tr_trainer_open(&t, tr_devs, tr_n_devs, TDM_OPT_SGD, 10);
    CHECK_FAILS(tdm_train_op_trace(t.op, "t.json", 5, 2), TDM_ERR_INVALID_ARGUMENT, "5 to 2");
    CHECK_FAILS(tdm_train_op_trace_write(t.op), TDM_ERR_INVALID_STATE, "not tracing");
    tdm_dataset *ds = fixture_digits_train(tr_digits_path, 64, 1, 0);
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
    tr_trainer_open_config(&r->t, tr_devs, tr_n_devs, TDM_OPT_ADAM, 10, config);
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
void tr_check_monitor_resume(trainer_config config)
{
    char dir[SCRATCH_PATH];
    CHECK(scratch_temp_dir(dir, "tandem-train") == 0);
    tdm_dataset *ds = fixture_digits_train(tr_digits_path, 64, 2, 0); /* 2 epochs of 23 steps */
    train_run a, b;
    uint64_t done = 0;
    run_open(&a, ds, NULL, config);
    CHECK_OK(tdm_monitor_run_steps(a.monitor, 0, &done));
    CHECK(done == 46 && tdm_monitor_input_exhausted(a.monitor));
    static float want[4096], got[4096];
    size_t n = tr_read_weights(&a.t, want, 4096);
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
    CHECK(tr_read_weights(&b.t, got, 4096) == n && memcmp(want, got, n * sizeof(float)) == 0);
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
void tr_check_eval_strategy(int mixed)
{
    tdm_dataset *all = NULL, *train = NULL, *test = NULL;
    CHECK_OK(tdm_dataset_from_csv(tr_digits_path, NULL, &all));
    CHECK_OK(tdm_dataset_split(all, 0.8, &train, &test));
    CHECK_OK(tdm_dataset_batch(test, 100, 0));
    CHECK_OK(tdm_dataset_batch(train, 64, 0));
    CHECK_OK(tdm_dataset_repeat(train, 2));
    trainer t;
    tr_trainer_open(&t, tr_devs, tr_n_devs, TDM_OPT_ADAM, 10);
    tdm_strategy *eval = NULL;
    CHECK_OK(tdm_strategy_create_one_device(tr_devs[tr_n_devs - 1], NULL, &eval));
    tdm_distribute_config config = TDM_DISTRIBUTE_CONFIG_INIT;
    config.train_distribute = t.strategy;
    config.eval_distribute = eval;
    tdm_evaluator *e = NULL;
    CHECK_OK(tdm_evaluator_create(t.model, &config, &e));
    CHECK(e && tdm_evaluator_model(e) != t.model);
    double losses[40];
    for (int round = 0; round < 2 && e; round++) {
        CHECK(tr_train_steps(&t, train, 20, losses) == 20);
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

void tr_check_predict_after_load(void)
{
    tdm_dataset *all = NULL, *train = NULL, *test = NULL;
    CHECK_OK(tdm_dataset_from_csv(tr_digits_path, NULL, &all));
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
    tr_trainer_open(&t, tr_devs, tr_n_devs, TDM_OPT_ADAM, 10);
    double losses[23];
    CHECK(tr_train_steps(&t, train, 23, losses) == 23);
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
    CHECK_OK(tdm_strategy_create_one_device(tr_devs[0], NULL, &strategies[0]));
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
