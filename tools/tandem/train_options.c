/* tandem train: option parsing, with the defaults that train the bundled digits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train_options.h"

static int usage(FILE *out, int status)
{
    fprintf(out,
            "usage: tandem train [OPTIONS]\n\n"
            "Trains a multi-layer perceptron data-parallel over the chosen devices and\n"
            "reports test accuracy per epoch. Defaults: the bundled digits dataset, the\n"
            "default devices (see --devices) with the mirrored strategy, 20%% of the data\n"
            "held out.\n\n"
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
            "  --layers 128,128     hidden layer sizes (default 128,128)\n"
            "  --activation NAME    relu (default), tanh, sigmoid, gelu, linear\n"
            "  --dropout RATE       dropout after each hidden layer (default 0)\n"
            "  --optimizer NAME     sgd, momentum, nesterov, adagrad, rmsprop, adam (default),\n"
            "                       adamw\n"
            "  --lr RATE            learning rate (default 0.001; 0.1 for sgd and momentum)\n"
            "  --batch N            global batch size over all replicas (default 64)\n"
            "  --epochs N           (default 10)\n"
            "  --test-fraction F    held out for testing without --test-data (default 0.2)\n"
            "  --devices LIST       comma-separated device ids or indices from 'tandem\n"
            "                       devices', or backends (reference, opencl, vulkan: each\n"
            "                       of its devices). Default: each piece of hardware once,\n"
            "                       through its better driver; the GPUs if there are any,\n"
            "                       else one CPU driver's devices (PoCL before lavapipe)\n"
            "  --split N            split each device into N logical ones, a replica each\n"
            "  --strategy NAME      mirrored (default), or one-device (the one device named\n"
            "                       by --devices, or the first default one)\n"
            "  --seed N             weights, shuffling and dropout (default 1)\n"
            "  --balance            give faster devices a larger share of each batch,\n"
            "                       measured as training runs (the update stays that of\n"
            "                       the global batch)\n"
            "  --deterministic      verify after every step that every copy of every\n"
            "                       variable is bitwise identical; no prefetch thread\n"
            "  --checkpoint-dir DIR checkpoint at the end of every epoch\n"
            "  --resume             continue from the newest checkpoint in DIR\n"
            "  --metrics FILE       per-epoch metrics, CSV (or JSON for FILE.json)\n"
            "  --plot FILE.png      loss and accuracy curves\n"
            "  --save FILE          the trained model, its architecture and standardisation\n"
            "                       (a safetensors file: see 'tandem predict')\n"
            "  --progress / --no-progress   force the progress bar on or off\n");
    return status;
}

static int parse_layers(const char *text, train_options *o)
{
    o->hidden_count = 0;
    for (const char *p = text; *p;) {
        char *end;
        unsigned long units = strtoul(p, &end, 10);
        if (end == p || !units || o->hidden_count == MAX_LAYERS || (*end && *end != ','))
            return -1;
        o->hidden[o->hidden_count++] = units;
        p = *end ? end + 1 : end;
    }
    return 0;
}

static int parse_devices(char *list, train_options *o)
{
    for (char *id = strtok(list, ","); id; id = strtok(NULL, ","))
        if (o->device_id_count < MAX_SELECTED)
            o->device_ids[o->device_id_count++] = id;
    return o->device_id_count ? 0 : -1;
}

void train_options_defaults(train_options *o)
{
    memset(o, 0, sizeof *o);
    o->standardize = 1;
    o->hidden[0] = o->hidden[1] = 128;
    o->hidden_count = 2;
    o->activation = "relu";
    o->optimizer = "adam";
    o->batch = 64;
    o->epochs = 10;
    o->test_fraction = 0.2;
    o->strategy = "mirrored";
    o->seed = 1;
    o->split = 1;
    o->progress = -1;
}

/* A string option; 0 if known. */
static int string_option(const char *a, char *v, train_options *o)
{
    const char **slot = !strcmp(a, "--data")             ? &o->data
                        : !strcmp(a, "--labels")         ? &o->labels
                        : !strcmp(a, "--label-column")   ? &o->label_column
                        : !strcmp(a, "--activation")     ? &o->activation
                        : !strcmp(a, "--optimizer")      ? &o->optimizer
                        : !strcmp(a, "--strategy")       ? &o->strategy
                        : !strcmp(a, "--checkpoint-dir") ? &o->checkpoint_dir
                        : !strcmp(a, "--metrics")        ? &o->metrics
                        : !strcmp(a, "--plot")           ? &o->plot
                        : !strcmp(a, "--save")           ? &o->save
                        : !strcmp(a, "--test-data")      ? &o->test_data
                        : !strcmp(a, "--test-labels")    ? &o->test_labels
                                                         : NULL;
    if (!slot)
        return -1;
    *slot = v;
    return 0;
}

/* One option with its value; 0 if known and valid. */
static int option_with_value(const char *a, char *v, train_options *o)
{
    char *end = NULL;
    if (!strcmp(a, "--layers"))
        return parse_layers(v, o);
    if (!strcmp(a, "--devices"))
        return parse_devices(v, o);
    if (!strcmp(a, "--dropout"))
        o->dropout = strtof(v, &end);
    else if (!strcmp(a, "--lr"))
        o->lr = strtof(v, &end);
    else if (!strcmp(a, "--batch"))
        o->batch = strtoul(v, &end, 10);
    else if (!strcmp(a, "--epochs"))
        o->epochs = (unsigned)strtoul(v, &end, 10);
    else if (!strcmp(a, "--test-fraction"))
        o->test_fraction = strtod(v, &end);
    else if (!strcmp(a, "--seed"))
        o->seed = strtoull(v, &end, 10);
    else if (!strcmp(a, "--skip-rows"))
        o->skip_rows = strtoul(v, &end, 10);
    else if (!strcmp(a, "--split"))
        o->split = (unsigned)strtoul(v, &end, 10);
    else
        return string_option(a, v, o);
    return end == v || *end ? -1 : 0;
}

static int flag(const char *a, train_options *o)
{
    int *slot = !strcmp(a, "--header")           ? &o->header
                : !strcmp(a, "--no-standardize") ? &o->standardize
                : !strcmp(a, "--deterministic")  ? &o->deterministic
                : !strcmp(a, "--balance")        ? &o->balance
                : !strcmp(a, "--resume")         ? &o->resume
                : !strcmp(a, "--progress")       ? &o->progress
                : !strcmp(a, "--no-progress")    ? &o->progress
                                                 : NULL;
    if (!slot)
        return -1;
    *slot = strcmp(a, "--no-standardize") && strcmp(a, "--no-progress");
    return 0;
}

int train_options_parse(int argc, char **argv, train_options *o, int *exit_status)
{
    train_options_defaults(o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            *exit_status = usage(stdout, 0);
            return 1;
        }
        if (flag(a, o) == 0)
            continue;
        if (i + 1 < argc && option_with_value(a, argv[i + 1], o) == 0) {
            i++;
            continue;
        }
        fprintf(stderr, "tandem train: bad option or value: %s%s%s\n\n", a, i + 1 < argc ? " " : "",
                i + 1 < argc ? argv[i + 1] : "");
        *exit_status = usage(stderr, 2);
        return 1;
    }
    if (o->resume && !o->checkpoint_dir) {
        fprintf(stderr, "tandem train: --resume needs --checkpoint-dir\n");
        *exit_status = 2;
        return 1;
    }
    if ((o->test_labels && !o->test_data) || (o->test_data && !o->labels != !o->test_labels)) {
        fprintf(stderr, "tandem train: --test-data and --test-labels go with --data and "
                        "--labels: IDX images and labels for both, or CSV for both\n");
        *exit_status = 2;
        return 1;
    }
    return 0;
}
