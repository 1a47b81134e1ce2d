/* tandem train: its options and their parsing. */
#ifndef TANDEM_CLI_TRAIN_OPTIONS_H
#define TANDEM_CLI_TRAIN_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli_options.h"
#include "device_select.h"
#include "tandem/model_text.h"

#define MAX_LAYERS 64

/* --text: the default context, the part of the text held out for validation, and the
 * model without --layers: gpt-tiny, a decoder-only transformer of 4 pre-norm blocks of
 * width 128 and 4 heads (design/014). The output layer after them gives each position
 * its 256 byte values (a 1x1 convolution). */
#define TRAIN_CONTEXT 128
#define TRAIN_TEXT_HELD_OUT 0.1
#define TRAIN_TEXT_LAYERS "emb256x128,pos,block4,block4,block4,block4,ln"
#define TRAIN_TEXT_CLASSES 256

typedef struct train_options {
    const char *data;             /* CSV, or IDX images with labels; NULL: the digits */
    const char *text;             /* --text: a text's bytes ("-": the bundled text); NULL: none */
    size_t context;               /* --text: bytes per window (0 given none: TRAIN_CONTEXT) */
    size_t stride;                /* --text: bytes between windows' starts; 0: the context */
    const char *labels;           /* IDX labels: makes data an IDX images file */
    const char *label_column;     /* CSV: index or header name; NULL: the last column */
    const char *label_columns;    /* CSV: several label columns, indices or names */
    tdm_loss_kind loss;           /* --loss: what the labels are and the outputs mean */
    float huber_delta;            /* --huber-delta; 0: the library's default, 1 */
    int header;                   /* CSV has a header line */
    size_t skip_rows;             /* CSV lines to pass over first */
    size_t max_classes;           /* a label of this many or more is refused */
    const char *test_data;        /* the test split's own file (same format); NULL: held out */
    const char *test_labels;      /* IDX labels of test_data */
    int standardize;              /* per-feature standardisation from the training split */
    tdm_layer hidden[MAX_LAYERS]; /* --layers (tdm_layers_parse): kind, units, window; or
                                     --model-file's whole graph (graph set) */
    size_t hidden_count;
    const char *model_file; /* --model-file: a graph text, every layer with its own
                               activation, the last the output layer */
    int graph;              /* hidden holds --model-file's layers, output layer included */
    tdm_graph_inputs graph_inputs; /* the inputs --model-file declares (count 0: one) */
    int layers_given;       /* --layers was given */
    size_t input_shape[3]; /* --input-shape: height, width, channels; 0: from the data */
    const char *activation;
    float dropout;
    const char *optimizer;
    float lr;
    const char *lr_decay;    /* "none" or "cosine" (to 0 over the run's steps) */
    float loss_scale;        /* > 0: dynamic loss scaling from this scale */
    int mixed_precision;     /* f16 operands in the matrix products, f32 sums */
    int f16_all_reduce;      /* gradients summed across replicas in f16 */
    int shard_optimizer;     /* the optimizer's slots sharded across the replicas */
    int f16_activations;     /* activations kept in f16 (implies mixed_precision) */
    tdm_conv_algorithm conv; /* --conv: auto (default), direct, lowered, implicit or measured */
    tdm_mixed_products mixed_products; /* --mixed-products: measured (default), f16 or f32 */
    size_t batch;                      /* global */
    unsigned epochs;
    double test_fraction;
    cli_list devices;      /* device ids, indices or backend names; none: the default */
    unsigned split;        /* logical devices per chosen device */
    tdm_strategy_kind strategy; /* --strategy: a kind of tandem/strategy_kinds.def */
    cli_list ps_devices;   /* parameter-server: the parameter devices; none: the first device */
    size_t ps_processes;   /* parameter-server under mpirun: serving processes; 0: one process */
    int tolerate_lost_workers; /* --ps-processes: a lost worker is dropped, not the job */
    cli_list eval_devices; /* the eval strategy's devices; none: evaluate under training's */
    uint64_t seed;
    int deterministic;
    int balance;
    const char *checkpoint_dir;
    int resume;
    unsigned allow_config_change; /* train_config.h's items that --resume may change */
    const char *metrics;
    const char *tensorboard;    /* TensorBoard event files under DIR/train, DIR/validation */
    uint64_t tensorboard_every; /* batch_loss every this many global steps; 0: none */
    const char *plot;
    const char *save;        /* the trained model's file */
    const char *trace;       /* a timeline of the steps in trace_steps (Chrome's JSON) */
    uint64_t trace_steps[2]; /* the first and last global step traced */
    int trace_steps_given;
    int progress; /* 1 bar, 0 plain lines, -1 bar when stdout is a terminal */
} train_options;

/* CSV options that tandem predict shares: the most lines --skip-rows passes over,
 * and --label-column's parser (a 0-based index, or a header name, which the data
 * check matches against --header). */
#define TRAIN_MAX_SKIP_ROWS 1000000000
int train_parse_label_column(const char *value, void *target, char *err, size_t err_size);

/* The help of the options tandem predict and bench train share. */
#define TRAIN_HELP_DATA                                                                            \
    "CSV (label in the last column unless --label-column), or IDX images with --labels"
#define TRAIN_HELP_LABELS "IDX labels for IDX images in --data"
#define TRAIN_HELP_LABEL_COLUMN "CSV label column: 0-based index, or a name with --header"
#define TRAIN_HELP_LABEL_COLUMNS                                                                   \
    "several CSV label columns, comma-separated 0-based indices or names with --header (e.g. "    \
    "0,3): a regression's targets, a multi-label or one-hot row"
#define TRAIN_HELP_HEADER "the CSV's first line names its columns"
#define TRAIN_HELP_SKIP_ROWS "CSV lines to pass over before the header or the data"
#define TRAIN_HELP_CONV                                                                            \
    "how convolutions compute: auto (default: implicit on Vulkan CPU devices, lowered on GPUs "    \
    "and OpenCL, direct on the reference backend), direct, lowered (im2col and GEMM), implicit "   \
    "(GEMMs that read the "                                                                        \
    "image, no im2col matrix; lowered on OpenCL), winograd (F(2x2, 3x3) on 3x3 layers of "         \
    "stride 1, others as auto), or measured: every way timed per layer on "                        \
    "each device at the first step, the fastest kept (a rerun may choose otherwise where they "    \
    "are close)"

#define TRAIN_HELP_MIXED_PRODUCTS                                                                  \
    "with --mixed-precision, which layers' products take f16 operands: measured (default: each "   \
    "dense and convolution layer's products timed with f16 operands and in f32 on each device "    \
    "at the first step, the faster kept, so that mixed precision never trains slower than f32), "  \
    "f16 (all of them) or f32 (none). With --f16-activations they are f16"

/* --label-columns' parser, which tandem predict shares: a list of indices or names. */
int train_parse_label_columns(const char *value, void *target, char *err, size_t err_size);

/* Whether the loss reads its labels as float targets (every loss but the sparse
 * cross-entropy: the CLI's mean squared error is a regression's). */
int train_loss_takes_floats(tdm_loss_kind loss);

/* --conv's parser, which tandem bench train shares: an algorithm's name
 * (tdm_conv_algorithm_name) into a tdm_conv_algorithm. */
int train_parse_conv(const char *value, void *target, char *err, size_t err_size);

/* "; mixed precision (...)": what --mixed-precision does with these choices. */
const char *train_mixed_precision_text(tdm_mixed_products products, int f16_activations);

/* --mixed-products' parser, which tandem bench train shares: a choice's name
 * (tdm_mixed_products_name) into a tdm_mixed_products. */
int train_parse_mixed_products(const char *value, void *target, char *err, size_t err_size);

/* The defaults: the digits MLP of the Quick start. */
void train_options_defaults(train_options *o);

/* What options imply once set: --text its context, stride and default layers and no
 * standardisation, --f16-activations mixed precision, --mixed-precision and
 * --f16-all-reduce a loss scale of 32768 unless one was given, an embedding first no
 * standardisation. */
void train_options_imply(train_options *o);

/* tandem train --help, generated from the option table. */
void train_options_usage(FILE *out);

/* Reads the options over the defaults, checking every value and the rules between
 * them; CLI_ERROR writes why to err. Prints nothing. */
cli_result train_options_read(int argc, char **argv, train_options *o, char *err, size_t err_size);

/* train_options_read, printing the help or the error: 0 to go on; otherwise 1 with
 * *exit_status set (0 after --help, 2 after a bad option). */
int train_options_parse(int argc, char **argv, train_options *o, int *exit_status);

#endif
