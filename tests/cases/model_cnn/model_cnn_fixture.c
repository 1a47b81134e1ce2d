/* The model_cnn case's shared set-up and checks (the case: model_cnn.c). */
#include "model_cnn_fixture.h"

tdm_context *mc_ctx;
tdm_device *mc_devs[3];
size_t mc_n_devs;
const char *mc_digits_path;

const tdm_layer mc_cnn[] = {
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

tdm_model_options mc_cnn_options(void)
{
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.layers = mc_cnn;
    mo.layer_count = CNN_LAYERS;
    mo.input_height = mo.input_width = 8;
    mo.input_channels = 1;
    mo.seed = 5;
    return mo;
}

/* loss_scale > 0: dynamic loss scaling from that scale; gradients all-reduced as
 * all_reduce (f32 or f16; f16 in buckets of 1 KiB, several per step). */
void mc_trainer_open_reduced(trainer *t, tdm_device *const *d, size_t n, float lr,
                             const tdm_model_options *mo, float loss_scale, tdm_dtype all_reduce)
{
    memset(t, 0, sizeof *t);
    CHECK_OK(n == 1 ? tdm_strategy_create_one_device(d[0], NULL, &t->strategy)
                    : tdm_strategy_create_mirrored(mc_ctx, d, n, NULL, &t->strategy));
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

void mc_trainer_open_model(trainer *t, tdm_device *const *d, size_t n, float lr,
                           const tdm_model_options *mo, float loss_scale)
{
    mc_trainer_open_reduced(t, d, n, lr, mo, loss_scale, TDM_F32);
}

void mc_trainer_open(trainer *t, tdm_device *const *d, size_t n, float lr)
{
    tdm_model_options mo = mc_cnn_options();
    mc_trainer_open_model(t, d, n, lr, &mo, 0.0f);
    CHECK(tdm_model_variable_count(t->model) == 8);
}

size_t mc_train_steps(trainer *t, tdm_dataset *ds, size_t steps, double *losses)
{
    return fixture_train_steps(t->strategy, t->op, ds, steps, losses);
}

/* The largest |got - want| / |want| over the steps' losses. */
double mc_worst_relative(const double *got, const double *want)
{
    double worst = 0.0;
    for (size_t i = 0; i < STEPS; i++)
        worst = fmax(worst, fabs(got[i] - want[i]) / fabs(want[i]));
    return worst;
}
