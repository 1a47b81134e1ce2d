/* tandem train: option parsing, with the defaults that train the bundled digits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "tandem/tandem.h"
#include "train_config.h"
#include "train_options.h"


#define MAX_UNITS 65536
#define MAX_BATCH (1u << 20)
#define MAX_EPOCHS 1000000
#define MAX_LABEL_COLUMN 2147483646 /* tdm_csv_options.label_column is an int */
#define MAX_SPLIT 64                /* tdm_device_split's limit */
/* A stray label of 1000000 would otherwise make a model of a million classes. */
#define DEFAULT_MAX_CLASSES 65536
#define MAX_CLASSES 2147483647 /* labels are int32 */

/* The library's reason, past its function's name. */
static int library_refused(char *err, size_t err_size)
{
    const char *why = tdm_last_error(), *after = strstr(why, ": ");
    snprintf(err, err_size, "%s", after ? after + 2 : why);
    return -1;
}

static int parse_layers(const char *value, void *target, char *err, size_t err_size)
{
    train_options *o = target;
    o->layers_given = 1;
    o->graph = 0;
    if (tdm_layers_parse(value, o->hidden, MAX_LAYERS, &o->hidden_count) == TDM_OK)
        return 0;
    return library_refused(err, err_size);
}

#define MAX_MODEL_FILE (64 * 1024)

/* The file's graph text: the whole model, read now so that a bad line stops the run
 * before any data is read. */
static int parse_model_file(const char *value, void *target, char *err, size_t err_size)
{
    train_options *o = target;
    FILE *f = fopen(value, "rb");
    char *text = malloc(MAX_MODEL_FILE + 1);
    size_t n = f && text ? fread(text, 1, MAX_MODEL_FILE + 1, f) : 0;
    int failed = !f || !text || ferror(f);
    if (f)
        fclose(f);
    if (failed || n > MAX_MODEL_FILE) {
        snprintf(err, err_size, "%s: %s", value,
                 !f ? "cannot be opened" : n > MAX_MODEL_FILE ? "more than 64 KiB" : "unreadable");
        free(text);
        return -1;
    }
    text[n] = '\0';
    o->model_file = value;
    o->graph = 1;
    tdm_status s = tdm_graph_parse(text, o->hidden, MAX_LAYERS, &o->hidden_count, &o->graph_inputs);
    free(text);
    if (s == TDM_OK)
        return 0;
    int r = library_refused(err, err_size);
    char reason[512];
    snprintf(reason, sizeof reason, "%s", err);
    snprintf(err, err_size, "%s: %s", value, reason);
    return r;
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

int train_parse_label_columns(const char *value, void *target, char *err, size_t err_size)
{
    for (const char *p = value;; p++) {
        size_t len = strcspn(p, ",");
        if (!len || strchr("+- \t", p[0]) || (p[len] == ',' && !p[len + 1])) {
            snprintf(err, err_size,
                     "'%.40s' is not a list of column indices or names, comma-separated (0,3, "
                     "say)",
                     value);
            return -1;
        }
        p += len;
        if (!*p)
            break;
    }
    *(const char **)target = value;
    return 0;
}

int train_loss_takes_floats(tdm_loss_kind loss)
{
    return loss != TDM_LOSS_SOFTMAX_CROSS_ENTROPY;
}

static int parse_loss(const char *value, void *target, char *err, size_t err_size)
{
    if (tdm_loss_kind_parse(value, target) != TDM_OK)
        return cli_fail_choice(value, "loss", tdm_loss_kind_aliases(), err, err_size);
    return 0;
}

/* FROM:TO, global steps with FROM <= TO */
static int parse_trace_steps(const char *value, void *target, char *err, size_t err_size)
{
    train_options *o = target;
    uint64_t *steps = o->trace_steps;
    const char *colon = strchr(value, ':');
    char from[24];
    if (!colon || (size_t)(colon - value) >= sizeof from) {
        snprintf(err, err_size, "'%.40s' is not FROM:TO (1:20, say)", value);
        return -1;
    }
    snprintf(from, sizeof from, "%.*s", (int)(colon - value), value);
    if (cli_parse_whole(from, 0, UINT64_MAX, &steps[0], err, err_size) != 0)
        return -1;
    o->trace_steps_given = 1;
    return cli_parse_whole(colon + 1, steps[0], UINT64_MAX, &steps[1], err, err_size);
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

int train_parse_mixed_products(const char *value, void *target, char *err, size_t err_size)
{
    tdm_mixed_products p;
    if (tdm_mixed_products_parse(value, &p) != TDM_OK)
        return cli_fail_choice(value, "choice of products", tdm_mixed_products_names(), err,
                               err_size);
    *(tdm_mixed_products *)target = p;
    return 0;
}

const char *train_mixed_precision_text(tdm_mixed_products products, int f16_activations)
{
    if (f16_activations || products == TDM_MIXED_F16)
        return "; mixed precision (f16 products, f32 sums)";
    return products == TDM_MIXED_F32
               ? "; mixed precision (f32 products, loss scaling)"
               : "; mixed precision (f16 products, f32 sums, where they measure at least as "
                 "fast as f32)";
}

static const char *const lr_decay_names[] = {"none", "cosine", NULL};
/* The strategies a run chooses: every kind but the default, which is the first. */
static const char *const *strategy_choices(void)
{
    _Static_assert(TDM_STRATEGY_DEFAULT == 0, "the default strategy is the first kind");
    return tdm_strategy_kind_names() + 1;
}

static int parse_lr_decay(const char *value, void *target, char *err, size_t err_size)
{
    int i = cli_parse_choice(value, "learning-rate decay", lr_decay_names, err, err_size);
    if (i < 0)
        return -1;
    *(const char **)target = lr_decay_names[i];
    return 0;
}

static int parse_strategy(const char *value, void *target, char *err, size_t err_size)
{
    int i = cli_parse_choice(value, "strategy", strategy_choices(), err, err_size);
    if (i < 0)
        return -1;
    *(tdm_strategy_kind *)target = (tdm_strategy_kind)(i + 1);
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
    o->max_classes = DEFAULT_MAX_CLASSES;
    o->epochs = 10;
    o->trace_steps[0] = 1;
    o->trace_steps[1] = 20;
    o->test_fraction = 0.2;
    o->strategy = TDM_STRATEGY_MIRRORED;
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

#define STRING(n, field, a, h)                                                                     \
    {                                                                                              \
        CLI_ENTRY(n, NULL, CLI_STRING, &o->field), .arg = a, .help = h                             \
    }
#define FLAG(n, field, v, h)                                                                       \
    {                                                                                              \
        CLI_ENTRY(n, NULL, CLI_FLAG, &o->field), .flag_value = v, .help = h                        \
    }
#define CUSTOM(n, fn, t, a, h)                                                                     \
    {                                                                                              \
        CLI_ENTRY(n, NULL, CLI_CUSTOM, t), .parse = fn, .arg = a, .help = h                        \
    }
#define WHOLE(n, k, field, lowest, highest, a, h)                                                  \
    {                                                                                              \
        CLI_ENTRY(n, NULL, k, &o->field), .min = lowest, .max = highest, .arg = a, .help = h       \
    }
#define REAL(n, k, field, low, high, excluded, a, h)                                               \
    {                                                                                              \
        CLI_ENTRY(n, NULL, k, &o->field), .lo = low, .hi = high, .open = excluded, .arg = a,       \
                                          .help = h                                                \
    }

static const cli_command train_command = {
    .name = "train",
    .about = "Trains a network of dense, convolution, pooling and normalisation layers "
             "data-parallel over the chosen devices and reports test accuracy per epoch. "
             "Defaults: a multi-layer perceptron on the bundled digits dataset, the default "
             "devices (see --devices) with the mirrored strategy, 20% of the data held out.",
};

/* Reads argv against the table; with help, writes the help instead (CLI_HELP). */
static cli_result read_table(int argc, char **argv, train_options *o, char *err, size_t err_size,
                             FILE *help)
{
    char layers_help[2560];
    snprintf(layers_help, sizeof layers_help,
             "hidden layers, comma-separated (default 128,128), e.g. "
             "conv32k3,bn,pool2,conv64k3,conv64k3,res1,pool2,128. A convolution or pooling "
             "window may end in s<stride> (s2: stride 2) and valid (no padding), as in "
             "conv64k3s2valid; an embedding's features are not standardised. The kinds:");
    tdm_layers_help(layers_help + strlen(layers_help), sizeof layers_help - strlen(layers_help));
    const cli_option table[] = {
        STRING("--data", data, "FILE",
               TRAIN_HELP_DATA " (default: the bundled digits, 1797 8x8 images of 10 classes)"),
        STRING("--text", text, "FILE",
               "train a language model on FILE's bytes (any encoding, plain or gzip; - for the "
               "bundled text, the first 700 KB of tiny shakespeare): windows of --context + 1 "
               "bytes, each position's label the next byte; the last tenth held out, its loss "
               "per byte and bits per byte reported each epoch. Without --layers, "
               "gpt-tiny, " TRAIN_TEXT_LAYERS " (a transformer of 4 blocks, 0.9M parameters at "
               "the default context); the output layer gives each position 256 "
               "byte values. In place of --data"),
        WHOLE("--context", CLI_SIZE, context, 1, 1u << 20, "N",
              "--text: the bytes a window gives the model (default 128)"),
        WHOLE("--stride", CLI_SIZE, stride, 1, 1u << 30, "S",
              "--text: a window every S bytes (default: the context, so that each byte is "
              "one label once)"),
        STRING("--labels", labels, "FILE", TRAIN_HELP_LABELS),
        CUSTOM("--label-column", train_parse_label_column, &o->label_column, "C",
               TRAIN_HELP_LABEL_COLUMN " (default: the last column)"),
        CUSTOM("--label-columns", train_parse_label_columns, &o->label_columns, "LIST",
               TRAIN_HELP_LABEL_COLUMNS),
        {CLI_ENTRY("--loss", NULL, CLI_CUSTOM, &o->loss), .parse = parse_loss, .arg = "NAME",
         .help = "what the model learns (default sparse_categorical_crossentropy: a class "
                 "index per example): mse, mae or huber for float targets (a regression), "
                 "binary_crossentropy for yes/no targets (one output each: binary or "
                 "multi-label), categorical_crossentropy for one-hot or soft label columns. "
                 "Every loss but the first reads its labels as floats",
         .choices = tdm_loss_kind_aliases()},
        REAL("--huber-delta", CLI_FLOAT, huber_delta, 0, 1e30, CLI_ABOVE_LO, "D",
             "--loss huber: squared within D of the target, absolute beyond (default 1)"),
        FLAG("--header", header, 1, TRAIN_HELP_HEADER),
        WHOLE("--skip-rows", CLI_SIZE, skip_rows, 0, TRAIN_MAX_SKIP_ROWS, "N",
              TRAIN_HELP_SKIP_ROWS " (scikit-learn's exports start with a line of counts)"),
        WHOLE("--max-classes", CLI_SIZE, max_classes, 2, MAX_CLASSES, "N",
              "refuse a label of N or more, naming its file, line and value: one stray label "
              "would make a model of that many classes (default 65536)"),
        STRING("--test-data", test_data, "FILE",
               "the test split's own file, read like --data (default: hold out "
               "--test-fraction of the data)"),
        STRING("--test-labels", test_labels, "FILE", "IDX labels for IDX images in --test-data"),
        FLAG("--no-standardize", standardize, 0,
             "keep features as they are (default: standardise them with the training split's "
             "mean and deviation)"),
        CUSTOM("--layers", parse_layers, o, "LIST", layers_help),
        CUSTOM("--model-file", parse_model_file, o, "FILE",
               "the whole model as a graph text, one layer a line (docs/MODELS.md): "
               "NAME = ITEM(INPUTS) [ACTIVATION] [dropout=RATE], e.g. 'b = conv16k1(input) "
               "relu', 'c = concatenate(a, b)'; the last line is the output layer. In place "
               "of --layers, --activation and --dropout"),
        CUSTOM("--input-shape", parse_input_shape, o->input_shape, "HxWxC",
               "the image the features form (default: square images of one channel, for "
               "convolution and pooling)"),
        {CLI_ENTRY("--activation", NULL, CLI_CUSTOM, &o->activation), .parse = parse_activation,
         .arg = "NAME", .help = "the hidden layers' activation (default relu)",
         .choices = tdm_activation_names()},
        REAL("--dropout", CLI_FLOAT, dropout, 0, 1, CLI_BELOW_HI, "RATE",
             "dropout after each hidden layer (default 0)"),
        {CLI_ENTRY("--optimizer", NULL, CLI_CUSTOM, &o->optimizer), .parse = parse_optimizer,
         .arg = "NAME", .help = "the update rule (default adam)",
         .choices = tdm_optimizer_kind_names()},
        REAL("--lr", CLI_FLOAT, lr, 0, 1000, CLI_ABOVE_LO, "RATE",
             "learning rate (default 0.001; 0.1 for sgd and momentum)"),
        {CLI_ENTRY("--lr-decay", NULL, CLI_CUSTOM, &o->lr_decay), .parse = parse_lr_decay,
         .arg = "NAME",
         .help = "none (default: the rate stays --lr), or cosine: from --lr down to 0 over the "
                 "run's steps, along half a cosine (Keras's CosineDecay)",
         .choices = lr_decay_names},
        WHOLE("--batch", CLI_SIZE, batch, 1, MAX_BATCH, "N",
              "global batch size over all replicas (default 64)"),
        REAL("--loss-scale", CLI_FLOAT, loss_scale, 1, 1e38, 0, "S",
             "dynamic loss scaling from scale S (32768 is TensorFlow's default): a step whose "
             "gradients overflow is skipped and halves the scale, 2000 good steps double it"),
        FLAG("--mixed-precision", mixed_precision, 1,
             "the dense and convolution layers' matrix products take f16 operands and sum in "
             "f32; weights stay f32. Implies --loss-scale 32768 unless given"),
        FLAG("--f16-all-reduce", f16_all_reduce, 1,
             "sum the gradients across replicas in f16: half the bytes to move. Implies "
             "--loss-scale 32768 unless given"),
        FLAG("--shard-optimizer", shard_optimizer, 1,
             "shard the optimizer's state across the replicas (ZeRO stage 1): gradients "
             "reduce-scattered, each replica updates and keeps slots for 1/N of every "
             "variable, weights all-gathered; the same model bits, 1/N of the slot memory"),
        FLAG("--f16-activations", f16_activations, 1,
             "keep the activations between layers in f16: half their memory (the output "
             "layer's stay f32). Implies --mixed-precision"),
        {CLI_ENTRY("--conv", NULL, CLI_CUSTOM, &o->conv), .parse = train_parse_conv, .arg = "HOW",
         .help = TRAIN_HELP_CONV, .choices = tdm_conv_algorithm_names()},
        {CLI_ENTRY("--mixed-products", NULL, CLI_CUSTOM, &o->mixed_products),
         .parse = train_parse_mixed_products, .arg = "HOW", .help = TRAIN_HELP_MIXED_PRODUCTS,
         .choices = tdm_mixed_products_names()},
        WHOLE("--epochs", CLI_UNSIGNED, epochs, 1, MAX_EPOCHS, "N", "(default 10)"),
        REAL("--test-fraction", CLI_DOUBLE, test_fraction, 0, 1, CLI_ABOVE_LO | CLI_BELOW_HI, "F",
             "held out for testing without --test-data (default 0.2)"),
        CUSTOM("--devices", cli_parse_list, &o->devices, "LIST",
               "comma-separated device ids or indices from 'tandem devices', or backends "
               "(reference, opencl, vulkan: each of its devices). Default: each piece of "
               "hardware once, through its better driver; the GPUs if there are any, else one "
               "CPU driver's devices (PoCL before lavapipe)"),
        WHOLE("--split", CLI_UNSIGNED, split, 1, MAX_SPLIT, "N",
              "split each device into N logical ones, a replica each"),
        {CLI_ENTRY("--strategy", NULL, CLI_CUSTOM, &o->strategy), .parse = parse_strategy,
         .arg = "NAME",
         .help = "mirrored (default), one-device (the one device named by --devices, or the "
                 "first default one), or multi-worker: every process of 'mpirun -np N tandem "
                 "train ...' trains on its --devices, the global batch split over them all; "
                 "only the first process (the chief) prints, checkpoints and writes files; "
                 "parameter-server: replicas on --devices, each variable kept and updated on "
                 "one of --ps-devices",
         .choices = strategy_choices()},
        CUSTOM("--ps-devices", cli_parse_list, &o->ps_devices, "LIST",
               "the parameter devices of --strategy parameter-server, as for --devices "
               "(default: the first training device)"),
        WHOLE("--ps-processes", CLI_SIZE, ps_processes, 1, 4096, "N",
              "with --strategy parameter-server under mpirun: the last N processes keep and "
              "update the variables (on their first --devices device), the others train on "
              "their shard of the data and exchange gradients and values with them, without "
              "waiting for each other; with --checkpoint-dir the chief writes the servers' "
              "state too"),
        FLAG("--tolerate-lost-workers", tolerate_lost_workers, 1,
             "with --ps-processes: a worker other than the chief that sends the servers "
             "nothing within TDM_COLLECTIVE_TIMEOUT is dropped, and the others train on "
             "without its shard of the data; by default the job stops, every process "
             "naming the lost rank"),
        CUSTOM("--eval-devices", cli_parse_list, &o->eval_devices, "LIST",
               "evaluate after each epoch on these devices, under a strategy of their own "
               "(default: under training's, on its first device)"),
        WHOLE("--seed", CLI_U64, seed, 0, UINT64_MAX, "N",
              "weights, shuffling and dropout (default 1)"),
        FLAG("--balance", balance, 1,
             "give faster devices a larger share of each batch, measured as training runs "
             "(the update stays that of the global batch)"),
        FLAG("--deterministic", deterministic, 1,
             "verify after every step that every copy of every variable is bitwise "
             "identical; no prefetch thread; parameter servers apply the workers' pushes "
             "in turn, so that a job repeats bit for bit"),
        STRING("--checkpoint-dir", checkpoint_dir, "DIR", "checkpoint at the end of every epoch"),
        FLAG("--resume", resume, 1,
             "continue from the newest checkpoint in DIR; damaged newer ones are reported "
             "and kept aside as *.damaged"),
        {CLI_ENTRY("--allow-config-change", NULL, CLI_CUSTOM, &o->allow_config_change),
         .parse = train_config_parse_allowed, .arg = "ITEMS",
         .help = "let --resume change these (comma-separated); otherwise a checkpoint of "
                 "another setup is refused",
         .choices = train_config_items},
        STRING("--metrics", metrics, "FILE", "per-epoch metrics, CSV (or JSON for FILE.json)"),
        STRING("--tensorboard", tensorboard, "DIR",
               "TensorBoard event files, as Keras' TensorBoard callback writes them: DIR/train "
               "(epoch_loss, epoch_learning_rate) and DIR/validation (epoch_loss, "
               "epoch_accuracy or a regression's epoch_mae, epoch_rmse, epoch_r2), each "
               "epoch at its index from 0; multi-worker: the chief's"),
        WHOLE("--tensorboard-every", CLI_U64, tensorboard_every, 1, UINT64_MAX, "N",
              "with --tensorboard: also batch_loss, every N global steps"),
        STRING("--trace", trace, "FILE",
               "a timeline of --trace-steps' steps: Chrome trace event JSON, which "
               "ui.perfetto.dev and chrome://tracing open (multi-worker: each process writes "
               "FILE with .rank<R> before its extension)"),
        CUSTOM("--trace-steps", parse_trace_steps, o, "FROM:TO",
               "the global steps --trace shows, both included (default 1:20)"),
        STRING("--plot", plot, "FILE.png", "loss and accuracy curves"),
        STRING("--save", save, "FILE",
               "the trained model, its architecture and standardisation (a safetensors file: "
               "see 'tandem predict')"),
        FLAG("--progress", progress, 1, "force the progress bar on"),
        FLAG("--no-progress", progress, 0, "force the progress bar off"),
    };
    size_t count = sizeof table / sizeof table[0];
    if (!help)
        return cli_parse(table, count, argc, argv, err, err_size);
    cli_usage(help, &train_command, table, count);
    return CLI_HELP;
}

void train_options_usage(FILE *out)
{
    train_options o;
    train_options_defaults(&o);
    read_table(0, NULL, &o, NULL, 0, out);
}

/* Rules between options, once all are read. */
/* --text's rules: the text is the data, its labels the next bytes. */
static int check_text(const train_options *o, char *err, size_t err_size)
{
    if (!o->text && (o->context || o->stride))
        snprintf(err, err_size, "--%s is for --text", o->context ? "context" : "stride");
    else if (o->text && (o->data || o->labels || o->test_data || o->test_labels ||
                         o->label_column || o->label_columns || o->header || o->skip_rows))
        snprintf(err, err_size,
                 "--text is the data: --data, --labels, --test-data, --test-labels, "
                 "--label-column(s), --header and --skip-rows are for CSV and IDX files");
    else if (o->text && o->loss != TDM_LOSS_SOFTMAX_CROSS_ENTROPY)
        snprintf(err, err_size,
                 "--text trains with sparse_categorical_crossentropy, a next byte per position: "
                 "--loss %s does not apply",
                 tdm_loss_kind_alias(o->loss));
    else
        return 0;
    return -1;
}

static int check_combination(const train_options *o, char *err, size_t err_size)
{
    if (check_text(o, err, err_size))
        return -1;
    if (o->model_file && o->layers_given)
        snprintf(err, err_size,
                 "--model-file and --layers exclude each other: the file holds the whole model");
    else if (o->model_file && (o->dropout != 0.0f || strcmp(o->activation, "relu") != 0))
        snprintf(err, err_size,
                 "--activation and --dropout are for --layers: a --model-file line gives its "
                 "layer's own (e.g. 'h = dense64(x) tanh dropout=0.2')");
    else if ((o->ps_devices.count || o->ps_processes) && o->strategy != TDM_STRATEGY_PARAMETER_SERVER)
        snprintf(err, err_size, "--%s is for --strategy parameter-server",
                 o->ps_devices.count ? "ps-devices" : "ps-processes");
    else if (o->tolerate_lost_workers && !o->ps_processes)
        snprintf(err, err_size, "--tolerate-lost-workers is for --ps-processes");
    else if (o->ps_devices.count && o->ps_processes)
        snprintf(err, err_size,
                 "--ps-devices (parameter devices in one process) and --ps-processes "
                 "(parameter-server processes) exclude each other");
    else if (o->ps_processes && strcmp(o->lr_decay, "none"))
        snprintf(err, err_size,
                 "--lr-decay: a job with --ps-processes updates as its workers' gradients "
                 "arrive, so the steps the rate decays over are not known in advance");
    else if ((o->mixed_precision || o->f16_activations) &&
             (o->conv == TDM_CONV_DIRECT || o->conv == TDM_CONV_IMPLICIT ||
              o->conv == TDM_CONV_WINOGRAD))
        snprintf(err, err_size,
                 "--conv %s: --mixed-precision's f16 operands are a matrix product's, so "
                 "its convolutions go through im2col and GEMM",
                 tdm_conv_algorithm_name(o->conv));
    else if (o->mixed_products != TDM_MIXED_MEASURED && !o->mixed_precision && !o->f16_activations)
        snprintf(err, err_size, "--mixed-products %s is for --mixed-precision",
                 tdm_mixed_products_name(o->mixed_products));
    else if (o->mixed_products == TDM_MIXED_F32 && o->f16_activations)
        snprintf(err, err_size,
                 "--mixed-products f32 with --f16-activations: the stored f16 activations are "
                 "the products' operands");
    else if (o->trace_steps_given && !o->trace)
        snprintf(err, err_size, "--trace-steps is for --trace");
    else if (o->tensorboard_every && !o->tensorboard)
        snprintf(err, err_size, "--tensorboard-every is for --tensorboard");
    else if (o->resume && !o->checkpoint_dir)
        snprintf(err, err_size, "--resume needs --checkpoint-dir");
    else if (o->allow_config_change && !o->resume)
        snprintf(err, err_size, "--allow-config-change is for --resume");
    else if (o->label_column && !o->header &&
             o->label_column[strspn(o->label_column, "0123456789")] != '\0')
        snprintf(err, err_size, "--label-column %.40s: a column name needs --header",
                 o->label_column);
    else if (o->labels && (o->label_column || o->label_columns || o->header || o->skip_rows))
        snprintf(err, err_size,
                 "--labels reads IDX files: --label-column(s), --header and --skip-rows are "
                 "for CSV");
    else if (o->label_columns && !o->header &&
             o->label_columns[strspn(o->label_columns, "0123456789,")] != '\0')
        snprintf(err, err_size, "--label-columns %.40s: column names need --header",
                 o->label_columns);
    else if (o->label_column && o->label_columns)
        snprintf(err, err_size,
                 "--label-column and --label-columns: give every label column in the list");
    else if (o->labels && train_loss_takes_floats(o->loss))
        snprintf(err, err_size,
                 "--loss %s reads float targets, and --labels' IDX labels are class indices: "
                 "use sparse_categorical_crossentropy, or CSV",
                 tdm_loss_kind_alias(o->loss));
    else if (o->huber_delta > 0.0f && o->loss != TDM_LOSS_HUBER)
        snprintf(err, err_size, "--huber-delta is for --loss huber");
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
    if (o->text) {
        o->context = o->context ? o->context : TRAIN_CONTEXT;
        o->stride = o->stride ? o->stride : o->context;
        o->standardize = 0; /* byte ids */
        if (!o->layers_given && !o->model_file)
            (void)tdm_layers_parse(TRAIN_TEXT_LAYERS, o->hidden, MAX_LAYERS, &o->hidden_count);
    }
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
    cli_result r = read_table(argc, argv, o, err, err_size, NULL);
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
    case CLI_HELP:
        train_options_usage(stdout);
        *exit_status = 0;
        return 1;
    case CLI_ERROR: break;
    }
    fprintf(stderr, "tandem train: %s\n", err);
    *exit_status = 2;
    return 1;
}
