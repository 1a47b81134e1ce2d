/* tandem train: the run's settings as text and as the library's options, where both
 * the checkpoints' record and the processes' agreement need them. */
#ifndef TANDEM_CLI_TRAIN_TEXTS_H
#define TANDEM_CLI_TRAIN_TEXTS_H

#include <stddef.h>

#include "tandem/tandem.h"
#include "train_data.h"
#include "train_options.h"

/* The optimizer the options ask for, its rate decaying over epochs of
 * steps_per_epoch; fails as tdm_optimizer_kind_parse. */
tdm_status train_optimizer_options(const train_options *o, size_t steps_per_epoch,
                                   tdm_optimizer_options *oo);

/* The optimizer under name with its hyper-parameters, as the checkpoints state it:
 * "Adam (beta1 0.9, beta2 0.999, epsilon 1e-07, weight decay 0)". */
void train_optimizer_text(const char *name, const tdm_optimizer_options *o, char *out, size_t size);

/* The model's layers as one line: --layers' items, or --model-file's graph text with
 * its lines joined by ';' (which tdm_graph_parse reads back). */
void train_layers_text(const train_options *o, char *out, size_t size);

/* The data as loaded, before a worker's shard: its size, the hash of every example
 * (features and labels, in file order), the test fraction and standardisation. */
void train_data_text(const train_options *o, const train_data *d, char *out, size_t size);

#endif
