/* tdm_training: a run's strategy, model, optimizer, train op, step and monitor, each
 * given or built from its description, in the order each needs the ones before. */
#include <stdlib.h>

#include "base/error.h"
#include "tandem/training.h"

#define FUNC "tdm_training_create"

struct tdm_training {
    tdm_strategy *strategy;
    tdm_model *model;
    tdm_optimizer *optimizer;
    tdm_train_op *train_op;
    tdm_step *step;
    tdm_monitor *monitor;
    /* the parts built here, destroyed with the run */
    int own_strategy, own_model, own_train_op;
};

/* The part's failure, its message prefixed with what was being built. */
static tdm_status failed(tdm_status s, const char *part)
{
    return tdm_fail(s, FUNC ": %s: %s", part, tdm_last_error());
}

static tdm_status make_strategy(const tdm_training_description *d, tdm_strategy **out)
{
    tdm_device *const *devices = d->device_count ? d->devices : NULL;
    const tdm_strategy_options *so = d->strategy_options;
    if (d->strategy_kind == TDM_STRATEGY_ONE_DEVICE)
        return d->device_count ? tdm_strategy_create_one_device(d->devices[0], so, out)
                               : tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                                          "the one-device strategy takes a device: give devices");
    if (!d->context)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "a %s strategy takes a context",
                        tdm_strategy_kind_name(d->strategy_kind));
    switch (d->strategy_kind) {
    case TDM_STRATEGY_MIRRORED:
        return tdm_strategy_create_mirrored(d->context, devices, d->device_count, so, out);
    case TDM_STRATEGY_MULTI_WORKER:
        return tdm_strategy_create_multi_worker(d->context, devices, d->device_count, so, out);
    case TDM_STRATEGY_PARAMETER_SERVER:
        return d->ps_processes
                   ? tdm_strategy_create_parameter_server_job(d->context, d->devices,
                                                              d->device_count, d->ps_processes,
                                                              so, out)
                   : tdm_strategy_create_parameter_server(d->context, d->devices,
                                                          d->device_count, d->ps_devices,
                                                          d->ps_device_count, so, out);
    default:
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "strategy_kind %d: describe one-device, mirrored, multi-worker or "
                        "parameter-server, or give the strategy",
                        (int)d->strategy_kind);
    }
}

/* The train op over every variable and moving statistic of the model, its loss the
 * model's. */
static tdm_status make_train_op(const tdm_training_description *d, tdm_training *t)
{
    tdm_optimizer_options defaults = TDM_OPTIMIZER_OPTIONS_INIT;
    tdm_status s = tdm_optimizer_create(t->strategy, d->optimizer ? d->optimizer : &defaults,
                                        &t->optimizer);
    if (s != TDM_OK)
        return failed(s, "optimizer");
    size_t vars = tdm_model_variable_count(t->model), states = tdm_model_state_count(t->model);
    tdm_variable **list = calloc(vars + states + 1, sizeof *list);
    if (!list)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, FUNC ": out of host memory");
    for (size_t i = 0; i < vars; i++)
        list[i] = tdm_model_variable(t->model, i);
    for (size_t k = 0; k < states; k++)
        list[vars + k] = tdm_model_state(t->model, k);
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    if (d->train_op_options)
        to = *d->train_op_options;
    to.var_list = list;
    to.var_count = vars;
    to.state_list = list + vars;
    to.state_count = states;
    to.loss_fn = tdm_model_loss;
    to.loss_user = t->model;
    to.optimizer = t->optimizer;
    s = tdm_train_op_create(t->strategy, &to, &t->train_op);
    free(list);
    t->own_train_op = s == TDM_OK;
    return s == TDM_OK ? s : failed(s, "train op");
}

/* The single-loss step over the dataset, and its monitor. */
static tdm_status make_steps(const tdm_training_description *d, tdm_training *t)
{
    tdm_single_loss_step_options so = TDM_SINGLE_LOSS_STEP_OPTIONS_INIT;
    if (d->step_options)
        so = *d->step_options;
    so.train_op = t->train_op;
    so.dataset = d->dataset;
    so.dataset_fn = NULL;
    tdm_status s = tdm_single_loss_step_create(&so, &t->step);
    if (s != TDM_OK)
        return failed(s, "step");
    tdm_monitor_options mo = TDM_MONITOR_OPTIONS_INIT;
    s = tdm_monitor_create(t->step, d->monitor_options ? d->monitor_options : &mo, &t->monitor);
    return s == TDM_OK ? s : failed(s, "monitor");
}

/* The given parts fit together: a model, or a train op alone; each on the strategy. */
static tdm_status check_given(const tdm_training_description *d)
{
    if (d->size != sizeof *d)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        FUNC ": description.size is %zu, expected %zu: use "
                        "TDM_TRAINING_DESCRIPTION_INIT",
                        d->size, sizeof *d);
    if (!d->model && !d->model_options && !d->train_op)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        FUNC ": no model: give one (model), describe one (model_options) or "
                        "give the train op");
    if (d->model && d->model_options)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        FUNC ": both a model and model_options: give one or describe one");
    if (d->strategy && d->model && tdm_model_strategy(d->model) != d->strategy)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        FUNC ": the model's variables live on another strategy than the one "
                        "given");
    if (d->train_op && (d->strategy || d->model) &&
        tdm_train_op_strategy(d->train_op) !=
            (d->strategy ? d->strategy : tdm_model_strategy(d->model)))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        FUNC ": the train op runs on another strategy than the one given");
    return TDM_OK;
}

static tdm_status build(const tdm_training_description *d, tdm_training *t)
{
    t->strategy = d->strategy ? d->strategy
                  : d->model  ? tdm_model_strategy(d->model)
                  : d->train_op ? tdm_train_op_strategy(d->train_op)
                              : NULL;
    tdm_status s = TDM_OK;
    if (!t->strategy) {
        s = make_strategy(d, &t->strategy);
        t->own_strategy = s == TDM_OK;
        if (s != TDM_OK)
            return failed(s, "strategy");
    }
    t->model = d->model;
    if (d->model_options) {
        s = tdm_model_create(t->strategy, d->model_options, &t->model);
        t->own_model = s == TDM_OK;
        if (s != TDM_OK)
            return failed(s, "model");
    }
    t->train_op = d->train_op;
    if (t->train_op)
        t->optimizer = tdm_train_op_optimizer(t->train_op);
    else if ((s = make_train_op(d, t)) != TDM_OK)
        return s;
    return d->dataset ? make_steps(d, t) : TDM_OK;
}

tdm_status tdm_training_create(const tdm_training_description *d, tdm_training **out)
{
    TDM_CHECK_ARG(out, FUNC);
    *out = NULL;
    TDM_CHECK_ARG(d, FUNC);
    tdm_status s = check_given(d);
    if (s != TDM_OK)
        return s;
    tdm_training *t = calloc(1, sizeof *t);
    if (!t)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, FUNC ": out of host memory");
    s = build(d, t);
    if (s != TDM_OK) {
        tdm_training_destroy(t);
        return s;
    }
    *out = t;
    return TDM_OK;
}

void tdm_training_destroy(tdm_training *t)
{
    if (!t)
        return;
    tdm_monitor_destroy(t->monitor);
    tdm_step_destroy(t->step);
    if (t->own_train_op) {
        tdm_train_op_destroy(t->train_op);
        tdm_optimizer_destroy(t->optimizer);
    } else if (!t->train_op) { /* an optimizer whose train op failed */
        tdm_optimizer_destroy(t->optimizer);
    }
    if (t->own_model)
        tdm_model_destroy(t->model);
    if (t->own_strategy)
        tdm_strategy_destroy(t->strategy);
    free(t);
}

tdm_strategy *tdm_training_strategy(const tdm_training *t)
{
    return t ? t->strategy : NULL;
}

tdm_model *tdm_training_model(const tdm_training *t)
{
    return t ? t->model : NULL;
}

tdm_optimizer *tdm_training_optimizer(const tdm_training *t)
{
    return t ? t->optimizer : NULL;
}

tdm_train_op *tdm_training_train_op(const tdm_training *t)
{
    return t ? t->train_op : NULL;
}

tdm_step *tdm_training_step(const tdm_training *t)
{
    return t ? t->step : NULL;
}

tdm_monitor *tdm_training_monitor(const tdm_training *t)
{
    return t ? t->monitor : NULL;
}
