/* tandem train: the training and test datasets from the options. */
#ifndef TANDEM_CLI_TRAIN_DATA_H
#define TANDEM_CLI_TRAIN_DATA_H

#include "tandem/tandem.h"
#include "train_options.h"

typedef struct train_data {
    const char *path;   /* what was loaded */
    tdm_dataset *train; /* shuffled per epoch, batched by the global batch, repeated */
    tdm_dataset *test;  /* batched for evaluation */
    size_t features, classes, train_examples, test_examples, steps_per_epoch;
    uint64_t fingerprint; /* of the examples as loaded, in file order */
} train_data;

/* Loads, splits (after one shuffle with the seed), standardises with the training
 * split's statistics, and batches. 0, or -1 after printing why. */
int train_data_load(const train_options *o, train_data *out);
void train_data_free(train_data *d);

#endif
