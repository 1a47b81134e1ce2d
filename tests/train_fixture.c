/* The small training run of train_fixture.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "train_fixture.h"

/* Features from a fixed pattern, labels from the features, so the run can learn. */
static tdm_status make_data(const fixture_options *o, tdm_dataset **out)
{
    static float x[FIXTURE_EXAMPLES * FIXTURE_FEATURES];
    static int32_t y[FIXTURE_EXAMPLES];
    for (size_t i = 0; i < FIXTURE_EXAMPLES; i++) {
        y[i] = (int32_t)(i % FIXTURE_CLASSES);
        for (size_t j = 0; j < FIXTURE_FEATURES; j++)
            x[i * FIXTURE_FEATURES + j] =
                (float)((i * 7 + j * 3) % 17) / 17.0f + (j == (size_t)y[i] ? 1.0f : 0.0f);
    }
    tdm_status s =
        tdm_dataset_from_arrays(x, y, FIXTURE_EXAMPLES, FIXTURE_FEATURES, FIXTURE_CLASSES, out);
    if (s == TDM_OK)
        s = tdm_dataset_shuffle(*out, 5);
    if (s == TDM_OK)
        s = tdm_dataset_batch(*out, o->batch, 0);
    if (s == TDM_OK)
        s = tdm_dataset_repeat(*out, o->epochs);
    return s;
}

static tdm_status make_model(fixture *f, const fixture_options *o)
{
    tdm_layer layers[] = {TDM_DENSE(o->hidden, TDM_ACT_RELU, 0.1f),
                          TDM_DENSE(FIXTURE_CLASSES, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.input_features = FIXTURE_FEATURES;
    mo.layers = layers;
    mo.layer_count = 2;
    mo.seed = 11;
    tdm_status s = tdm_model_create(f->strategy, &mo, &f->model);
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.kind = TDM_OPT_ADAM;
    if (s == TDM_OK)
        s = tdm_optimizer_create(f->strategy, &oo, &f->opt);
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = tdm_model_loss;
    to.loss_user = f->model;
    to.optimizer = f->opt;
    to.seed = 3;
    return s == TDM_OK ? tdm_train_op_create(f->strategy, &to, &f->op) : s;
}

tdm_status fixture_open(fixture *f, tdm_context *ctx, tdm_device *const *devs, size_t n,
                        const fixture_options *o)
{
    memset(f, 0, sizeof *f);
    tdm_status s = n == 1 ? tdm_strategy_create_one_device(devs[0], NULL, &f->strategy)
                          : tdm_strategy_create_mirrored(ctx, devs, n, NULL, &f->strategy);
    if (s == TDM_OK)
        s = make_model(f, o);
    if (s == TDM_OK)
        s = make_data(o, &f->data);
    tdm_single_loss_step_options so = TDM_SINGLE_LOSS_STEP_OPTIONS_INIT;
    so.train_op = f->op;
    so.dataset = f->data;
    so.distribute.prefetch = 0;
    if (s == TDM_OK)
        s = tdm_single_loss_step_create(&so, &f->step);
    tdm_monitor_options mo = o->monitor;
    mo.checkpoint_dir = o->checkpoint_dir;
    mo.checkpoint_every = o->checkpoint_every;
    if (s == TDM_OK)
        s = tdm_monitor_create(f->step, &mo, &f->monitor);
    return s;
}

void fixture_close(fixture *f)
{
    tdm_monitor_destroy(f->monitor);
    tdm_step_destroy(f->step);
    tdm_dataset_destroy(f->data);
    tdm_train_op_destroy(f->op);
    tdm_optimizer_destroy(f->opt);
    tdm_model_destroy(f->model);
    tdm_strategy_destroy(f->strategy);
    memset(f, 0, sizeof *f);
}

static int copies_identical(const tdm_variable *var)
{
    tdm_shape shape = tdm_variable_shape(var);
    size_t bytes = tdm_shape_count(&shape) * sizeof(float), n = tdm_variable_copy_count(var);
    unsigned char *first = malloc(bytes + 1), *other = malloc(bytes + 1);
    int same = first && other && tdm_tensor_read(tdm_variable_copy(var, 0), first, bytes) == TDM_OK;
    for (size_t i = 1; same && i < n; i++)
        same = tdm_tensor_read(tdm_variable_copy(var, i), other, bytes) == TDM_OK &&
               memcmp(first, other, bytes) == 0;
    free(first);
    free(other);
    return same;
}

int fixture_copies_identical(const fixture *f)
{
    const char *names[8];
    size_t slots = tdm_optimizer_slot_names(f->opt, names, 8);
    for (size_t v = 0; v < tdm_model_variable_count(f->model); v++) {
        tdm_variable *var = tdm_model_variable(f->model, v);
        if (!copies_identical(var))
            return 0;
        for (size_t k = 0; k < slots; k++) {
            tdm_variable *slot = NULL; /* none before the first step */
            if (tdm_optimizer_get_slot(f->opt, var, names[k], &slot) == TDM_OK && slot &&
                !copies_identical(slot))
                return 0;
        }
    }
    return 1;
}

size_t fixture_weights(const fixture *f, float *out, size_t cap)
{
    size_t used = 0;
    for (size_t v = 0; v < tdm_model_variable_count(f->model); v++) {
        tdm_variable *var = tdm_model_variable(f->model, v);
        tdm_shape shape = tdm_variable_shape(var);
        size_t count = tdm_shape_count(&shape);
        if (used + count > cap ||
            tdm_variable_read(var, out + used, count * sizeof(float)) != TDM_OK)
            break;
        used += count;
    }
    return used;
}

size_t fixture_train_steps(tdm_strategy *s, tdm_train_op *op, const tdm_dataset *ds, size_t steps,
                           double *losses)
{
    tdm_distributed_dataset *dist = NULL;
    tdm_distributed_iterator *it = NULL;
    CHECK_OK(tdm_distribute_dataset(s, ds, NULL, &dist));
    CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    size_t done = 0;
    const tdm_distributed_batch *b = NULL;
    while (done < steps && it && tdm_distributed_iterator_next(it, &b) == TDM_OK &&
           b->global_batch_size) {
        tdm_status st = tdm_train_op_run(op, b, &losses[done]);
        CHECK_OK(st);
        if (st != TDM_OK)
            break;
        done++;
    }
    tdm_distributed_iterator_destroy(it);
    tdm_distributed_dataset_destroy(dist);
    return done;
}

void trainer_open_on(trainer *t, tdm_context *ctx, tdm_device *const *devs, size_t n,
                     const tdm_model_options *mo, tdm_optimizer_kind kind, float learning_rate)
{
    memset(t, 0, sizeof *t);
    CHECK_OK(n == 1 ? tdm_strategy_create_one_device(devs[0], NULL, &t->strategy)
                    : tdm_strategy_create_mirrored(ctx, devs, n, NULL, &t->strategy));
    CHECK_OK(tdm_model_create(t->strategy, mo, &t->model));
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.kind = kind;
    oo.learning_rate.initial = learning_rate;
    CHECK_OK(tdm_optimizer_create(t->strategy, &oo, &t->opt));
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = tdm_model_loss;
    to.loss_user = t->model;
    to.optimizer = t->opt;
    CHECK_OK(tdm_train_op_create(t->strategy, &to, &t->op));
}

double fixture_worst_relative(const double *got, const double *want, size_t n)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++)
        worst = fmax(worst, fabs(got[i] - want[i]) / fmax(fabs(want[i]), 1e-3));
    return worst;
}

float fixture_draw(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (float)((double)(*state >> 11) * 0x1p-52 - 1.0);
}

void trainer_close(trainer *t)
{
    tdm_train_op_destroy(t->op);
    tdm_optimizer_destroy(t->opt);
    tdm_model_destroy(t->model);
    tdm_strategy_destroy(t->strategy);
}

tdm_dataset *fixture_digits_train(const char *path, size_t batch, int64_t epochs, int raw)
{
    tdm_dataset *ds = NULL, *train = NULL, *test = NULL;
    CHECK_OK(tdm_dataset_from_csv(path, NULL, &ds));
    CHECK_OK(tdm_dataset_split(ds, 0.8, &train, &test));
    const int pixels = tdm_dataset_feature_count(train) == 64; /* the digits' 8 x 8 */
    CHECK(pixels);
    if (!raw && pixels) {
        float mean[64], std[64];
        CHECK_OK(tdm_dataset_feature_stats(train, mean, std));
        CHECK_OK(tdm_dataset_standardize(train, mean, std));
    }
    CHECK_OK(tdm_dataset_shuffle(train, 7));
    CHECK_OK(tdm_dataset_batch(train, batch, 0));
    CHECK_OK(tdm_dataset_repeat(train, epochs));
    tdm_dataset_destroy(ds);
    tdm_dataset_destroy(test);
    return train;
}
