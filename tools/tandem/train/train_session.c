/* tandem train: building the strategy, model, optimizer, train op, step and monitor. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "platform/tdm_files.h"
#include "class_names.h"
#include "train_fingerprint.h"
#include "train_texts.h"
#include "train_session.h"

static int fail(const char *what)
{
    fprintf(stderr, "tandem train: %s: %s\n", what, tdm_last_error());
    return -1;
}

/* Replicas on the training devices, variables on --ps-devices (default: the first
 * training device). */
static int make_parameter_server(train_session *ts, tdm_device *const *workers, size_t count,
                                 const tdm_strategy_options *so)
{
    if (ts->opts->ps_processes)
        return tdm_strategy_create_parameter_server_job(
                   ts->ctx, workers, count, ts->opts->ps_processes, so, &ts->strategy) == TDM_OK
                   ? 0
                   : fail("strategy");
    tdm_device *ps[MAX_SELECTED];
    size_t ps_count = 1;
    ps[0] = workers[0];
    if (ts->opts->ps_devices.count &&
        cli_find_devices(ts->ctx, &ts->opts->ps_devices, ps, &ps_count) != 0)
        return -1;
    if (tdm_strategy_create_parameter_server(ts->ctx, workers, count, ps, ps_count, so,
                                             &ts->strategy) != TDM_OK)
        return fail("strategy");
    return 0;
}

static int make_strategy(train_session *ts)
{
    const train_options *o = ts->opts;
    tdm_device *devices[MAX_SELECTED];
    size_t count = 0;
    if (cli_training_devices(ts->ctx, &o->devices, o->split, devices, &count) != 0)
        return -1;
    if (o->strategy == TDM_STRATEGY_ONE_DEVICE && o->devices.count && count > 1) {
        fprintf(stderr,
                "tandem train: --strategy one-device trains on one device, but --devices selects "
                "%zu: name one, or use --strategy mirrored\n",
                count);
        return -1;
    }
    tdm_strategy_options so = TDM_STRATEGY_OPTIONS_INIT;
    so.check_mirrored = o->deterministic;
    so.ordered_pushes = o->deterministic;
    so.tolerate_lost_workers = o->tolerate_lost_workers;
    tdm_status s;
    switch (o->strategy) {
    case TDM_STRATEGY_ONE_DEVICE:
        s = tdm_strategy_create_one_device(devices[0], &so, &ts->strategy);
        break;
    case TDM_STRATEGY_MULTI_WORKER:
        s = tdm_strategy_create_multi_worker(ts->ctx, devices, count, &so, &ts->strategy);
        break;
    case TDM_STRATEGY_PARAMETER_SERVER: return make_parameter_server(ts, devices, count, &so);
    default: /* the options take no other */
        s = tdm_strategy_create_mirrored(ts->ctx, devices, count, &so, &ts->strategy);
        break;
    }
    return s == TDM_OK ? 0 : fail("strategy");
}

/* In a multi-worker job the chief alone speaks and writes metrics, the plot and the
 * model (and, through the monitor, the checkpoints); the other workers train the same
 * steps and report only failures, on stderr. */
static int take_role(train_session *ts)
{
    if (tdm_strategy_is_chief(ts->strategy))
        return 0;
    ts->worker_opts = *ts->opts;
    ts->worker_opts.metrics = ts->worker_opts.plot = ts->worker_opts.save = NULL;
    ts->worker_opts.tensorboard = NULL;
    ts->worker_opts.tensorboard_every = 0;
    ts->opts = &ts->worker_opts;
    if (freopen("/dev/null", "w", stdout))
        return 0;
    fprintf(stderr, "tandem train: worker %zu cannot silence its output\n",
            tdm_strategy_worker_index(ts->strategy));
    return -1;
}

/* The classes' names where a skipped first line names them, as scikit-learn's
 * count line does, one per output: the model file keeps them for predict. */
static void name_classes(train_session *ts)
{
    const train_options *o = ts->opts;
    if (!o->data || o->labels || o->skip_rows == 0)
        return;
    class_names *names = malloc(sizeof *names);
    if (!names)
        return; /* the names are a courtesy: the model stands without them */
    class_names_read(o->data, names);
    /* Names of another count are not the classes' (a data set's name, say). */
    if (names->count && names->count == tdm_model_output_count(ts->model) &&
        tdm_model_set_class_names(ts->model, names->name, names->count) != TDM_OK)
        fprintf(stderr, "tandem train: line 1's class names are not kept: %s\n", tdm_last_error());
    free(names);
}

/* The image the features form: --input-shape, or a square of one channel. */
static int input_image(const train_session *ts, tdm_model_options *mo)
{
    const train_options *o = ts->opts;
    size_t side = 1, features = ts->data.features;
    while ((side + 1) * (side + 1) <= features)
        side++;
    size_t h = o->input_shape[0], w = o->input_shape[1], c = o->input_shape[2];
    if (!h) { /* a text's window is an image of one row */
        h = o->text ? 1 : side;
        w = o->text ? features : side;
        c = 1;
    }
    if (h * w * c != features) {
        fprintf(stderr, "tandem train: the data has %zu features, which %s\n", features,
                o->input_shape[0] ? "is not the count --input-shape gives"
                                  : "form no square image for convolution and pooling: give "
                                    "--input-shape HxWxC");
        return -1;
    }
    mo->input_height = h;
    mo->input_width = w;
    mo->input_channels = c;
    return 0;
}

/* A language model gives each of the window's positions its 256 byte values. */
static int check_text_output(const train_session *ts)
{
    size_t outputs = tdm_model_output_count(ts->model), positions = ts->data.features;
    if (outputs == positions * TRAIN_TEXT_CLASSES)
        return 0;
    fprintf(stderr,
            "tandem train: --text: the model gives %zu outputs per window, not %zu positions x "
            "%d byte values (%zu): its layers must keep the window's positions, an image of one "
            "row (1x1 convolutions, no pooling)%s\n",
            outputs, positions, TRAIN_TEXT_CLASSES, positions * TRAIN_TEXT_CLASSES,
            ts->opts->graph ? ", its last a 1x1 convolution of 256 (conv256k1)" : "");
    return -1;
}

static int make_model(train_session *ts)
{
    const train_options *o = ts->opts;
    tdm_layer layers[MAX_LAYERS + 1];
    tdm_activation act;
    if (tdm_activation_parse(o->activation, &act) != TDM_OK)
        return fail("--activation");
    /* --layers: activation after every layer that takes one, dropout after every dense
     * one, then the output layer; --model-file's layers as they are */
    for (size_t l = 0; l < o->hidden_count; l++) {
        layers[l] = o->hidden[l];
        if (!o->graph && (tdm_layer_kind_traits(layers[l].kind) & TDM_LAYER_TAKES_ACTIVATION))
            layers[l].activation = act;
        if (!o->graph && layers[l].kind == TDM_LAYER_DENSE)
            layers[l].dropout = o->dropout;
    }
    layers[o->hidden_count] =
        o->text ? (tdm_layer)TDM_CONV2D(TRAIN_TEXT_CLASSES, 1, TDM_ACT_LINEAR)
                : (tdm_layer)TDM_DENSE(ts->data.outputs, TDM_ACT_LINEAR, 0.0f);
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.loss = o->loss;
    mo.huber_delta = o->huber_delta;
    mo.input_features = ts->data.features;
    mo.layers = layers;
    mo.layer_count = o->hidden_count + !o->graph;
    mo.seed = o->seed;
    mo.compute_dtype = o->mixed_precision ? TDM_F16 : TDM_F32;
    mo.activation_dtype = o->f16_activations ? TDM_F16 : TDM_F32;
    mo.conv_algorithm = o->conv;
    mo.mixed_products = o->mixed_products;
    mo.inputs = o->graph_inputs.count;
    memcpy(mo.input_widths, o->graph_inputs.widths, sizeof mo.input_widths);
    if ((o->text || o->input_shape[0] || tdm_layers_need_image(o->hidden, o->hidden_count)) &&
        input_image(ts, &mo) != 0)
        return -1;
    if (tdm_model_create(ts->strategy, &mo, &ts->model) != TDM_OK)
        return fail(o->graph ? "--model-file" : "model");
    if (o->text && check_text_output(ts) != 0)
        return -1;
    if (!o->text && o->graph && tdm_model_output_count(ts->model) != ts->data.outputs) {
        fprintf(stderr,
                "tandem train: --model-file %s: its last layer has %zu outputs; the data has "
                "%zu (classes, or label columns)\n",
                o->model_file, tdm_model_output_count(ts->model), ts->data.outputs);
        return -1;
    }
    /* Predictions from a saved model start from the data as the file has it. */
    if (tdm_model_set_standardization(ts->model, ts->data.mean, ts->data.std) != TDM_OK)
        return fail("model");
    name_classes(ts);
    return 0;
}

/* DistributeConfig: evaluation on --eval-devices (one device, or mirrored over
 * several), else under the training strategy. */
static int make_evaluator(train_session *ts)
{
    tdm_distribute_config config = TDM_DISTRIBUTE_CONFIG_INIT;
    config.train_distribute = ts->strategy;
    if (ts->opts->eval_devices.count) {
        tdm_device *devices[MAX_SELECTED];
        size_t count = 0;
        if (cli_find_devices(ts->ctx, &ts->opts->eval_devices, devices, &count) != 0)
            return -1;
        tdm_status s =
            count == 1
                ? tdm_strategy_create_one_device(devices[0], NULL, &ts->eval_strategy)
                : tdm_strategy_create_mirrored(ts->ctx, devices, count, NULL, &ts->eval_strategy);
        if (s != TDM_OK)
            return fail("--eval-devices");
        config.eval_distribute = ts->eval_strategy;
    }
    return tdm_evaluator_create(ts->model, &config, &ts->evaluator) == TDM_OK ? 0
                                                                              : fail("evaluation");
}

/* A parameter-server process's optimizer, which it serves the workers' updates with. */
static int make_optimizer(train_session *ts)
{
    tdm_optimizer_options oo;
    if (train_optimizer_options(ts->opts, ts->data.steps_per_epoch, &oo) != TDM_OK)
        return fail("--optimizer");
    return tdm_optimizer_create(ts->strategy, &oo, &ts->optimizer) == TDM_OK ? 0
                                                                             : fail("optimizer");
}

/* The optimizer, train op, step and monitor, assembled by the library from the
 * options, over the model and the training split. */
static int make_training(train_session *ts)
{
    const train_options *o = ts->opts;
    tdm_optimizer_options oo;
    if (train_optimizer_options(o, ts->data.steps_per_epoch, &oo) != TDM_OK)
        return fail("--optimizer");
    /* the batch's training buffers, before the first step would make them (the
     * parameters, gradients and slots already on the devices) */
    size_t batch = o->batch < ts->data.train_examples ? o->batch : ts->data.train_examples;
    if (batch && tdm_model_check_batch(ts->model, batch) != TDM_OK)
        return fail("batch");
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.seed = o->seed;
    to.balance = o->balance;
    to.loss_scale = o->loss_scale;
    to.all_reduce_dtype = o->f16_all_reduce ? TDM_F16 : TDM_F32;
    to.shard_optimizer = o->shard_optimizer;
    tdm_single_loss_step_options so = TDM_SINGLE_LOSS_STEP_OPTIONS_INIT;
    so.distribute.prefetch = !o->deterministic;
    tdm_monitor_options mo;
    train_monitor_options(ts, &mo);
    tdm_training_description d = TDM_TRAINING_DESCRIPTION_INIT;
    d.strategy = ts->strategy;
    d.model = ts->model;
    d.optimizer = &oo;
    d.train_op_options = &to;
    d.dataset = ts->data.train;
    d.step_options = &so;
    d.monitor_options = &mo;
    if (tdm_training_create(&d, &ts->training) != TDM_OK) {
        /* "tdm_training_create: monitor: ...": the part, then the library's reason */
        const char *why = tdm_last_error(), *prefix = "tdm_training_create: ";
        fprintf(stderr, "tandem train: %s\n",
                strncmp(why, prefix, strlen(prefix)) ? why : why + strlen(prefix));
        return -1;
    }
    ts->optimizer = tdm_training_optimizer(ts->training);
    ts->op = tdm_training_train_op(ts->training);
    ts->step = tdm_training_step(ts->training);
    ts->monitor = tdm_training_monitor(ts->training);
    return train_monitor_resume(ts);
}

/* The files the run will write, checked before it starts. */
static int check_outputs(const train_options *o)
{
    const char *const paths[] = {o->metrics, o->plot, o->save, o->trace};
    const char *const names[] = {"--metrics", "--plot", "--save", "--trace"};
    const tdm_output_kind kinds[] = {TDM_OUTPUT_STREAM, TDM_OUTPUT_WHOLE, TDM_OUTPUT_WHOLE,
                                     TDM_OUTPUT_STREAM};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char err[512];
        if (paths[i] && atomic_file_check(paths[i], kinds[i], err, sizeof err) != 0) {
            fprintf(stderr, "tandem train: %s: %s\n", names[i], err);
            return -1;
        }
    }
    if (o->tensorboard && !tdm_dir_creatable(o->tensorboard)) {
        fprintf(stderr, "tandem train: --tensorboard: cannot make the folder %s\n", o->tensorboard);
        return -1;
    }
    return 0;
}

/* The outputs that stream into FIFOs, held from before the run to its end (this
 * process's: a worker of a job writes none). */
static int hold_fifos(train_session *ts)
{
    return fifo_hold(&ts->fifos, "tandem train", "--metrics", ts->opts->metrics) ||
           fifo_hold(&ts->fifos, "tandem train", "--trace", ts->opts->trace);
}

/* A parameter-server job's worker trains on its shard of the data. */
static int load_data(train_session *ts)
{
    size_t servers = tdm_strategy_num_parameter_servers(ts->strategy);
    size_t shards = servers ? tdm_strategy_num_workers(ts->strategy) : 1;
    size_t shard = servers && !tdm_strategy_is_parameter_server(ts->strategy)
                       ? tdm_strategy_worker_index(ts->strategy)
                       : 0;
    return train_data_load(ts->opts, shards, shard, &ts->data);
}

int train_session_open(const train_options *o, train_session *ts)
{
    memset(ts, 0, sizeof *ts);
    ts->opts = o;
    ts->history = calloc(o->epochs ? o->epochs : 1, sizeof *ts->history);
    int status = !ts->history || check_outputs(o) || !(ts->ctx = cli_context()) ||
                 make_strategy(ts) || take_role(ts) || hold_fifos(ts) || load_data(ts);
    /* before the model, whose first values are the job's first collective */
    if (!status)
        status = train_fingerprint_check(ts->opts, &ts->data, ts->strategy);
    if (!status && (make_model(ts) || make_evaluator(ts) ||
                    (tdm_strategy_is_parameter_server(ts->strategy) ? make_optimizer(ts)
                                                                    : make_training(ts))))
        status = 1;
    if (status)
        train_session_close(ts);
    return status;
}

void train_session_close(train_session *ts)
{
    if (ts->training)
        tdm_training_destroy(ts->training);
    else /* a parameter server's */
        tdm_optimizer_destroy(ts->optimizer);
    tdm_evaluator_destroy(ts->evaluator);
    tdm_strategy_destroy(ts->eval_strategy);
    tdm_model_destroy(ts->model);
    tdm_strategy_destroy(ts->strategy);
    tdm_context_destroy(ts->ctx);
    train_data_free(&ts->data);
    fifo_release(&ts->fifos);
    train_tensorboard_close(ts);
    free(ts->history);
    memset(ts, 0, sizeof *ts);
}

/* Appends to text (of size bytes) as snprintf would, never past its end. */
static void append(char *text, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *text, size_t size, const char *fmt, ...)
{
    size_t used = strlen(text);
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + used, size - used, fmt, ap);
    va_end(ap);
}

/* The kind of the model's layer l: a hidden layer's, or the output layer's after
 * them, dense or --text's 1x1 convolution (--model-file's layers are all the model's). */
static tdm_layer_kind kind_of(const train_options *o, size_t l)
{
    return l < o->hidden_count ? o->hidden[l].kind
           : o->text           ? TDM_LAYER_CONV2D
                               : TDM_LAYER_DENSE;
}

void train_describe_choices(const train_session *ts, size_t r, char *text, size_t size)
{
    text[0] = '\0';
    size_t count = ts->opts->hidden_count + !ts->opts->graph;
    const char *sep = ", convolutions";
    for (size_t l = 0; l < count; l++) {
        tdm_conv_algorithm a;
        if (kind_of(ts->opts, l) != TDM_LAYER_CONV2D ||
            tdm_model_conv_algorithm_used(ts->model, r, l, &a) != TDM_OK)
            continue;
        if (a == TDM_CONV_MEASURED) {
            append(text, size, "%s measured at the first step", sep);
            break;
        }
        append(text, size, "%s conv%zu %s", sep, l, tdm_conv_algorithm_name(a));
        sep = ",";
    }
    if (!ts->opts->mixed_precision)
        return;
    sep = "; products";
    for (size_t l = 0; l < count; l++) {
        tdm_mixed_products p;
        if (tdm_model_mixed_products_used(ts->model, r, l, &p) != TDM_OK)
            continue;
        if (p == TDM_MIXED_MEASURED) {
            append(text, size, "%s measured at the first step", sep);
            return;
        }
        append(text, size, "%s %s%zu %s", sep,
               kind_of(ts->opts, l) == TDM_LAYER_CONV2D ? "conv" : "dense", l,
               tdm_mixed_products_name(p));
        sep = ",";
    }
}

void train_print_choices(const train_session *ts, size_t r)
{
    char text[1024];
    train_describe_choices(ts, r, text, sizeof text);
    fputs(text, stdout);
}
