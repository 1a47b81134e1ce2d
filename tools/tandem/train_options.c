/* tandem train: option parsing, with the defaults that train the bundled digits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "tandem/tandem.h"
#include "train_config.h"
#include "train_options.h"

#include "layer_spec.h"

static int usage(FILE *out, int status)
{
    fprintf(out,
            "usage: tandem train [OPTIONS]\n\n"
            "Trains a network of dense, convolution, pooling and normalisation layers\n"
            "data-parallel over the chosen devices and reports test accuracy per epoch.\n"
            "Defaults: a multi-layer perceptron on the bundled digits dataset, the default\n"
            "devices (see --devices) with the mirrored strategy, 20%% of the data held\n"
            "out.\n\n"
            "  --data FILE          CSV (label in the last column unless --label-column),\n"
            "                       or IDX images with --labels (default: the bundled\n"
            "                       digits, 1797 8x8 images of 10 classes)\n"
            "  --labels FILE        IDX labels for IDX images in --data\n"
            "  --label-column C     CSV label column: 0-based index, or a name with --header\n"
            "  --header             the CSV's first line names its columns\n"
            "  --skip-rows N        CSV lines to pass over before the header or the data\n"
            "                       (scikit-learn's exports start with a line of counts)\n"
            "  --test-data FILE     the test split's own file, read like --data (default:\n"
            "                       hold out --test-fraction of the data)\n"
            "  --test-labels FILE   IDX labels for IDX images in --test-data\n"
            "  --no-standardize     keep features as they are (default: standardise them\n"
            "                       with the training split's mean and deviation)\n"
            "  --layers 128,128     hidden layers (default 128,128): units of a dense layer,\n"
            "                       conv32k3 (32 filters of 3x3), pool2 (max), avgpool2;\n"
            "                       s2 after a window strides 2, valid pads nothing; bn\n"
            "                       (batch normalisation, statistics of the global batch\n"
            "                       over every replica), ln (layer normalisation), res2\n"
            "                       (adds the input of the 2 layers before it to their\n"
            "                       output) (e.g. --layers conv32k3,bn,pool2,conv64k3,\n"
            "                       conv64k3,res1,pool2,128); emb256x8, first only, takes\n"
            "                       each feature as an id below 256 and looks it up as 8\n"
            "                       values (the features are then not standardised)\n"
            "  --input-shape HxWxC  the image the features form (default: square images of\n"
            "                       one channel, for convolution and pooling)\n"
            "  --activation NAME    relu (default), tanh, sigmoid, gelu, linear\n"
            "  --dropout RATE       dropout after each hidden layer (default 0)\n"
            "  --optimizer NAME     sgd, momentum, nesterov, adagrad, rmsprop, adam (default),\n"
            "                       adamw\n"
            "  --lr RATE            learning rate (default 0.001; 0.1 for sgd and momentum)\n"
            "  --lr-decay NAME      none (default: the rate stays --lr), or cosine: from\n"
            "                       --lr down to 0 over the run's steps, along half a\n"
            "                       cosine (Keras's CosineDecay)\n"
            "  --batch N            global batch size over all replicas (default 64)\n"
            "  --loss-scale S       dynamic loss scaling from scale S (32768 is TensorFlow's\n"
            "                       default): a step whose gradients overflow is skipped\n"
            "                       and halves the scale, 2000 good steps double it\n"
            "  --mixed-precision    the dense and convolution layers' matrix products take\n"
            "                       f16 operands and sum in f32; weights stay f32. Implies\n"
            "                       --loss-scale 32768 unless given\n"
            "  --f16-all-reduce     sum the gradients across replicas in f16: half the\n"
            "                       bytes to move. Implies --loss-scale 32768 unless given\n"
            "  --f16-activations    keep the activations between layers in f16: half their\n"
            "                       memory (the output layer's stay f32).\n"
            "                       Implies --mixed-precision\n"
            "  --conv HOW           how convolutions compute: auto (default: through GEMM\n"
            "                       on OpenCL and Vulkan, direct on the reference\n"
            "                       backend), direct, lowered (im2col and GEMM), or\n"
            "                       measured: both timed per layer on each device at the\n"
            "                       first step, the faster kept (a rerun may choose\n"
            "                       otherwise where they are close)\n"
            "  --epochs N           (default 10)\n"
            "  --test-fraction F    held out for testing without --test-data (default 0.2)\n"
            "  --devices LIST       comma-separated device ids or indices from 'tandem\n"
            "                       devices', or backends (reference, opencl, vulkan: each\n"
            "                       of its devices). Default: each piece of hardware once,\n"
            "                       through its better driver; the GPUs if there are any,\n"
            "                       else one CPU driver's devices (PoCL before lavapipe)\n"
            "  --split N            split each device into N logical ones, a replica each\n"
            "  --strategy NAME      mirrored (default), one-device (the one device named\n"
            "                       by --devices, or the first default one), or\n"
            "                       multi-worker: every process of 'mpirun -np N tandem\n"
            "                       train ...' trains on its --devices, the global batch\n"
            "                       split over them all; only the first process (the\n"
            "                       chief) prints, checkpoints and writes files;\n"
            "                       parameter-server: replicas on --devices, each\n"
            "                       variable kept and updated on one of --ps-devices\n"
            "  --ps-devices LIST    the parameter devices of --strategy parameter-server,\n"
            "                       as for --devices (default: the first training device)\n"
            "  --ps-processes N     with --strategy parameter-server under mpirun: the last\n"
            "                       N processes keep and update the variables (on their\n"
            "                       first --devices device), the others train on their\n"
            "                       shard of the data and exchange gradients and values\n"
            "                       with them, without waiting for each other\n"
            "  --eval-devices LIST  evaluate after each epoch on these devices, under a\n"
            "                       strategy of their own (default: under training's, on\n"
            "                       its first device)\n"
            "  --seed N             weights, shuffling and dropout (default 1)\n"
            "  --balance            give faster devices a larger share of each batch,\n"
            "                       measured as training runs (the update stays that of\n"
            "                       the global batch)\n"
            "  --deterministic      verify after every step that every copy of every\n"
            "                       variable is bitwise identical; no prefetch thread\n"
            "  --checkpoint-dir DIR checkpoint at the end of every epoch\n"
            "  --resume             continue from the newest checkpoint in DIR; damaged\n"
            "                       newer ones are reported and kept aside as *.damaged\n"
            "  --allow-config-change ITEMS  let --resume change these (comma-separated):\n"
            "                       " TRAIN_CONFIG_ITEMS ", or all;\n"
            "                       otherwise a checkpoint of another setup is refused\n"
            "  --metrics FILE       per-epoch metrics, CSV (or JSON for FILE.json)\n"
            "  --plot FILE.png      loss and accuracy curves\n"
            "  --save FILE          the trained model, its architecture and standardisation\n"
            "                       (a safetensors file: see 'tandem predict')\n"
            "  --progress / --no-progress   force the progress bar on or off\n");
    return status;
}

#define MAX_UNITS 65536
#define MAX_BATCH (1u << 20)
#define MAX_EPOCHS 1000000
#define MAX_LABEL_COLUMN 2147483646 /* tdm_csv_options.label_column is an int */
#define MAX_SPLIT 64                /* tdm_device_split's limit */

static int parse_layers(const char *value, void *target, char *err, size_t err_size)
{
    train_options *o = target;
    return layer_spec_parse(value, o->hidden, MAX_LAYERS, &o->hidden_count, err, err_size);
}

/* HxWxC, each from 1 to 65536 */
static int parse_input_shape(const char *value, void *target, char *err, size_t err_size)
{
    size_t *shape = target;
    const char *p = value;
    for (int k = 0; k < 3; k++) {
        char *end;
        unsigned long long v = *p >= '0' && *p <= '9' ? strtoull(p, &end, 10) : 0;
        if (!v || v > 65536 || *end != (k < 2 ? 'x' : '\0')) {
            snprintf(err, err_size,
                     "'%.40s' is not HEIGHTxWIDTHxCHANNELS (28x28x1, say), each 1 to 65536", value);
            return -1;
        }
        shape[k] = (size_t)v;
        p = end + 1;
    }
    return 0;
}

int train_parse_label_column(const char *value, void *target, char *err, size_t err_size)
{
    uint64_t index;
    int digits = value[strspn(value, "0123456789")] == '\0';
    /* A sign or a space would make data_source.c read a number, not a name. */
    if (!*value || strchr("+- \t", value[0])) {
        snprintf(err, err_size, "'%.40s' is neither a column index from 0 to %d nor a column name",
                 value, MAX_LABEL_COLUMN);
        return -1;
    }
    if (digits && cli_parse_whole(value, 0, MAX_LABEL_COLUMN, &index, err, err_size) != 0)
        return -1;
    *(const char **)target = value;
    return 0;
}

static int parse_activation(const char *value, void *target, char *err, size_t err_size)
{
    tdm_activation act;
    if (tdm_activation_parse(value, &act) != TDM_OK) {
        return cli_fail_choice(value, "activation", tdm_activation_names(), err, err_size);
    }
    *(const char **)target = value;
    return 0;
}

static int parse_optimizer(const char *value, void *target, char *err, size_t err_size)
{
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    if (tdm_optimizer_kind_parse(value, &oo) != TDM_OK) {
        return cli_fail_choice(value, "optimizer", tdm_optimizer_kind_names(), err, err_size);
    }
    *(const char **)target = value;
    return 0;
}

int train_parse_conv(const char *value, void *target, char *err, size_t err_size)
{
    tdm_conv_algorithm a;
    if (tdm_conv_algorithm_parse(value, &a) != TDM_OK) {
        return cli_fail_choice(value, "convolution algorithm", tdm_conv_algorithm_names(), err,
                               err_size);
    }
    *(tdm_conv_algorithm *)target = a;
    return 0;
}

static int parse_lr_decay(const char *value, void *target, char *err, size_t err_size)
{
    static const char *const names[] = {"none", "cosine", NULL};
    int i = cli_parse_choice(value, "learning-rate decay", names, err, err_size);
    if (i < 0)
        return -1;
    *(const char **)target = names[i];
    return 0;
}

static int parse_strategy(const char *value, void *target, char *err, size_t err_size)
{
    static const char *const names[] = {"mirrored", "one-device", "multi-worker",
                                        "parameter-server", NULL};
    int i = cli_parse_choice(value, "strategy", names, err, err_size);
    if (i < 0)
        return -1;
    *(const char **)target = names[i];
    return 0;
}

void train_options_defaults(train_options *o)
{
    memset(o, 0, sizeof *o);
    o->standardize = 1;
    o->hidden[0] = o->hidden[1] = (tdm_layer)TDM_DENSE(128, TDM_ACT_RELU, 0.0f);
    o->hidden_count = 2;
    o->activation = "relu";
    o->optimizer = "adam";
    o->lr_decay = "none";
    o->batch = 64;
    o->epochs = 10;
    o->test_fraction = 0.2;
    o->strategy = "mirrored";
    o->seed = 1;
    o->devices.what = "device id";
    o->devices.max = MAX_SELECTED;
    o->split = 1;
    o->ps_devices.what = "device id";
    o->ps_devices.max = MAX_SELECTED;
    o->eval_devices.what = "device id";
    o->eval_devices.max = MAX_SELECTED;
    o->progress = -1;
}

#define STRING(n, field)                                                                           \
    {                                                                                              \
        CLI_ENTRY(n, NULL, CLI_STRING, &o->field)                                                  \
    }
#define FLAG(n, field, v)                                                                          \
    {                                                                                              \
        CLI_ENTRY(n, NULL, CLI_FLAG, &o->field), .flag_value = v                                   \
    }
#define CUSTOM(n, fn, t)                                                                           \
    {                                                                                              \
        CLI_ENTRY(n, NULL, CLI_CUSTOM, t), .parse = fn                                             \
    }
#define WHOLE(n, k, field, lowest, highest)                                                        \
    {                                                                                              \
        CLI_ENTRY(n, NULL, k, &o->field), .min = lowest, .max = highest                            \
    }
#define REAL(n, k, field, low, high, excluded)                                                     \
    {                                                                                              \
        CLI_ENTRY(n, NULL, k, &o->field), .lo = low, .hi = high, .open = excluded                  \
    }

static cli_result read_table(int argc, char **argv, train_options *o, char *err, size_t err_size)
{
    const cli_option table[] = {
        STRING("--data", data),
        STRING("--labels", labels),
        CUSTOM("--label-column", train_parse_label_column, &o->label_column),
        FLAG("--header", header, 1),
        WHOLE("--skip-rows", CLI_SIZE, skip_rows, 0, TRAIN_MAX_SKIP_ROWS),
        STRING("--test-data", test_data),
        STRING("--test-labels", test_labels),
        FLAG("--no-standardize", standardize, 0),
        CUSTOM("--layers", parse_layers, o),
        CUSTOM("--input-shape", parse_input_shape, o->input_shape),
        CUSTOM("--activation", parse_activation, &o->activation),
        REAL("--dropout", CLI_FLOAT, dropout, 0, 1, CLI_BELOW_HI),
        CUSTOM("--optimizer", parse_optimizer, &o->optimizer),
        REAL("--lr", CLI_FLOAT, lr, 0, 1000, CLI_ABOVE_LO),
        CUSTOM("--lr-decay", parse_lr_decay, &o->lr_decay),
        REAL("--loss-scale", CLI_FLOAT, loss_scale, 1, 1e38, 0),
        FLAG("--mixed-precision", mixed_precision, 1),
        FLAG("--f16-all-reduce", f16_all_reduce, 1),
        FLAG("--f16-activations", f16_activations, 1),
        CUSTOM("--conv", train_parse_conv, &o->conv),
        WHOLE("--batch", CLI_SIZE, batch, 1, MAX_BATCH),
        WHOLE("--epochs", CLI_UNSIGNED, epochs, 1, MAX_EPOCHS),
        REAL("--test-fraction", CLI_DOUBLE, test_fraction, 0, 1, CLI_ABOVE_LO | CLI_BELOW_HI),
        CUSTOM("--devices", cli_parse_list, &o->devices),
        WHOLE("--split", CLI_UNSIGNED, split, 1, MAX_SPLIT),
        CUSTOM("--strategy", parse_strategy, &o->strategy),
        CUSTOM("--ps-devices", cli_parse_list, &o->ps_devices),
        CUSTOM("--eval-devices", cli_parse_list, &o->eval_devices),
        WHOLE("--ps-processes", CLI_SIZE, ps_processes, 1, 4096),
        WHOLE("--seed", CLI_U64, seed, 0, UINT64_MAX),
        FLAG("--balance", balance, 1),
        FLAG("--deterministic", deterministic, 1),
        STRING("--checkpoint-dir", checkpoint_dir),
        FLAG("--resume", resume, 1),
        CUSTOM("--allow-config-change", train_config_parse_allowed, &o->allow_config_change),
        STRING("--metrics", metrics),
        STRING("--plot", plot),
        STRING("--save", save),
        FLAG("--progress", progress, 1),
        FLAG("--no-progress", progress, 0),
    };
    return cli_parse(table, sizeof table / sizeof table[0], argc, argv, err, err_size);
}

/* Rules between options, once all are read. */
static int check_combination(const train_options *o, char *err, size_t err_size)
{
    if ((o->ps_devices.count || o->ps_processes) && strcmp(o->strategy, "parameter-server"))
        snprintf(err, err_size, "--%s is for --strategy parameter-server",
                 o->ps_devices.count ? "ps-devices" : "ps-processes");
    else if (o->ps_devices.count && o->ps_processes)
        snprintf(err, err_size,
                 "--ps-devices (parameter devices in one process) and --ps-processes "
                 "(parameter-server processes) exclude each other");
    else if (o->ps_processes && o->checkpoint_dir)
        snprintf(err, err_size,
                 "--checkpoint-dir: a job with --ps-processes keeps the optimizer's state on "
                 "its servers, which checkpoints do not reach yet");
    else if (o->ps_processes && strcmp(o->lr_decay, "none"))
        snprintf(err, err_size,
                 "--lr-decay: a job with --ps-processes updates as its workers' gradients "
                 "arrive, so the steps the rate decays over are not known in advance");
    else if ((o->mixed_precision || o->f16_activations) && o->conv == TDM_CONV_DIRECT)
        snprintf(err, err_size,
                 "--conv direct: --mixed-precision's f16 operands are a matrix product's, so "
                 "its convolutions go through GEMM");
    else if (o->resume && !o->checkpoint_dir)
        snprintf(err, err_size, "--resume needs --checkpoint-dir");
    else if (o->allow_config_change && !o->resume)
        snprintf(err, err_size, "--allow-config-change is for --resume");
    else if (o->label_column && !o->header &&
             o->label_column[strspn(o->label_column, "0123456789")] != '\0')
        snprintf(err, err_size, "--label-column %.40s: a column name needs --header",
                 o->label_column);
    else if (o->labels && (o->label_column || o->header || o->skip_rows))
        snprintf(err, err_size,
                 "--labels reads IDX files: --label-column, --header and --skip-rows are for "
                 "CSV");
    else if ((o->test_labels && !o->test_data) || (o->test_data && !o->labels != !o->test_labels))
        snprintf(err, err_size,
                 "--test-data and --test-labels go with --data and --labels: IDX "
                 "images and labels for both, or CSV for both");
    else
        return 0;
    return -1;
}

void train_options_imply(train_options *o)
{
    /* an embedding's input values are ids, not measurements to standardise */
    if (o->hidden_count && o->hidden[0].kind == TDM_LAYER_EMBEDDING)
        o->standardize = 0;
    /* f16 activations are the products' f16 operands as they are stored */
    if (o->f16_activations)
        o->mixed_precision = 1;
    /* without a loss scale, gradients below f16's smallest values would vanish */
    if ((o->mixed_precision || o->f16_all_reduce) && !o->loss_scale)
        o->loss_scale = 32768.0f;
}

cli_result train_options_read(int argc, char **argv, train_options *o, char *err, size_t err_size)
{
    train_options_defaults(o);
    cli_result r = read_table(argc, argv, o, err, err_size);
    if (r == CLI_OK && check_combination(o, err, err_size) != 0)
        r = CLI_ERROR;
    train_options_imply(o);
    return r;
}

int train_options_parse(int argc, char **argv, train_options *o, int *exit_status)
{
    char err[512];
    switch (train_options_read(argc, argv, o, err, sizeof err)) {
    case CLI_OK: return 0;
    case CLI_HELP: *exit_status = usage(stdout, 0); return 1;
    case CLI_ERROR: break;
    }
    fprintf(stderr, "tandem train: %s\n", err);
    *exit_status = 2;
    return 1;
}
