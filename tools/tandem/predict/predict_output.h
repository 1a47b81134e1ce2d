/* tandem predict: the predictions as CSV, one row per example: the class (its name
 * where the model file keeps names), then each class's probability (softmax of the
 * logits), or the model's outputs for a squared-error model. A classifier whose output
 * has several positions (a language model, a tagger) gives each position's class, then
 * each position's probabilities. */
#ifndef TANDEM_CLI_PREDICT_OUTPUT_H
#define TANDEM_CLI_PREDICT_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "atomic_file.h"
#include "tandem/tandem.h"

/* What a row of predictions says, by the model's loss. */
typedef enum predict_kind {
    PREDICT_CLASS_PROBABILITIES, /* the class, then each class's softmax probability */
    PREDICT_PROBABILITIES,       /* each output's sigmoid: binary and multi-label */
    PREDICT_VALUES               /* each output as it is: a regression's */
} predict_kind;

typedef struct predict_output {
    FILE *f;
    atomic_file file; /* when writing to a path */
    int to_file;
    const tdm_model *model; /* for the classes' names */
    size_t classes;         /* the model's outputs */
    size_t positions;       /* a classifier's: each with classes / positions of them */
    predict_kind kind;
} predict_output;

/* The kind of predictions the model's loss makes. */
predict_kind predict_kind_of(const tdm_model *model);

/* To path (whole or not at all: a temporary file renamed at the end), or to stdout
 * for NULL; writes the header. 0, or -1 with the reason in err. */
int predict_output_open(predict_output *p, const char *path, const tdm_model *model, char *err,
                        size_t err_size);

/* rows rows of outputs [rows, classes]; each row's class (of a class kind) goes to
 * predicted[row], -1 where the row has a class per position. */
void predict_output_rows(predict_output *p, const float *outputs, size_t rows, int32_t *predicted);

/* Finishes the file (renamed into place). 0, or -1 with the reason in err. */
int predict_output_close(predict_output *p, char *err, size_t err_size);

/* Drops a file being written; the target is left as it was. */
void predict_output_abort(predict_output *p);

#endif
