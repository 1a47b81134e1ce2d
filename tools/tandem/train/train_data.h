/* tandem train: the training and test datasets from the options. */
#ifndef TANDEM_CLI_TRAIN_DATA_H
#define TANDEM_CLI_TRAIN_DATA_H

#include "tandem/tandem.h"
#include "train_options.h"

typedef struct train_data {
    const char *path;      /* the training data */
    char used[256];        /* which of its lines and columns (data_source_load) */
    const char *test_path; /* --test-data, or NULL when the test split is held out */
    char test_used[256];
    tdm_dataset *train; /* shuffled per epoch, batched by the global batch, repeated */
    tdm_dataset *test;  /* batched for evaluation */
    float *mean, *std;  /* [features]: the training split's statistics, NULL with
                           --no-standardize */
    size_t features, classes, train_examples, test_examples, steps_per_epoch;
    int text;       /* --text: windows of bytes, a next byte per position */
    int targets;    /* float targets, not class indices */
    size_t outputs; /* the model's: the classes, or the targets per example */
    size_t examples;      /* both splits before a worker's shard: what every process loaded */
    uint64_t fingerprint; /* of the examples as loaded (--data, then --test-data) */
} train_data;

/* Loads the data and the test data, or holds out the test split (after one shuffle
 * with the seed), standardises both with the training split's statistics, keeps
 * shard `shard` of `shards` of the training split (a parameter-server job's worker
 * trains on its own), and batches. 0, or -1 after printing why. */
int train_data_load(const train_options *o, size_t shards, size_t shard, train_data *out);
void train_data_free(train_data *d);

/* Whether the run is a regression: float targets under a loss of distances (mean
 * squared or absolute error, Huber), reported by its errors and R^2. */
int train_is_regression(const train_options *o, const train_data *d);

#endif
