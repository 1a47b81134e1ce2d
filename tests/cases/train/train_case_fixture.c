/* The train case's shared set-up and checks (the case: train.c). */
#include "train_case_fixture.h"

tdm_context *tr_ctx;
tdm_device *tr_devs[3];
size_t tr_n_devs;
const char *tr_digits_path;

void tr_trainer_open_config(trainer *t, tdm_device *const *d, size_t n, tdm_optimizer_kind kind,
                            size_t outputs, trainer_config config)
{
    memset(t, 0, sizeof *t);
    tdm_strategy_options so = TDM_STRATEGY_OPTIONS_INIT;
    so.check_mirrored = config.ps_count > 0;
    CHECK_OK(config.ps_count ? tdm_strategy_create_parameter_server(
                                   tr_ctx, d, n, config.ps, config.ps_count, &so, &t->strategy)
             : n == 1 ? tdm_strategy_create_one_device(d[0], NULL, &t->strategy)
                      : tdm_strategy_create_mirrored(tr_ctx, d, n, NULL, &t->strategy));
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

void tr_trainer_open(trainer *t, tdm_device *const *d, size_t n, tdm_optimizer_kind kind,
                     size_t outputs)
{
    tr_trainer_open_config(t, d, n, kind, outputs, (trainer_config){0});
}

size_t tr_train_steps(trainer *t, tdm_dataset *ds, size_t steps, double *losses)
{
    return fixture_train_steps(t->strategy, t->op, ds, steps, losses);
}
