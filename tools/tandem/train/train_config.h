/* tandem train: the run's configuration, recorded in every checkpoint and checked by
 * --resume. A checkpoint written with other layers, activation, dropout, optimizer
 * (and its hyper-parameters), learning rate, batch or data is refused, naming both
 * values, unless --allow-config-change names the item: resuming into another setup
 * by mistake would train on silently, or fail later without saying why. */
#ifndef TANDEM_CLI_TRAIN_CONFIG_H
#define TANDEM_CLI_TRAIN_CONFIG_H

#include <stddef.h>

#include "tandem/tandem.h"

struct train_session;

/* The names --allow-config-change takes, NULL-terminated: the items, then "all". */
extern const char *const train_config_items[];

/* --allow-config-change's list into a set of items (a cli_parse_fn). */
int train_config_parse_allowed(const char *list, void *allowed, char *err, size_t err_size);

/* The learning rate as the setup line and the checkpoints state it: "0.001", or
 * "0.001, cosine decay to 0 over 4690 steps" (a run of other epochs decays another
 * way, so --resume compares the whole schedule). */
void train_lr_text(const struct train_session *ts, char *out, size_t size);

/* Records the configuration as "cli/config/<item>" tensors: the value's text, one
 * byte per i32 element. */
tdm_status train_config_save(const struct train_session *ts, tdm_checkpoint_writer *w);

/* Compares c's configuration with this run's. 0 when they agree or differ only in
 * allowed items (printed as notes); -1 with why in err otherwise. */
int train_config_check(const struct train_session *ts, const tdm_checkpoint *c, char *err,
                       size_t err_size);

#endif
