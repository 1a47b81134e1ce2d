/* The per-epoch metrics of `tandem train` as a file: CSV, or JSON for a ".json" path. */
#ifndef TANDEM_CLI_METRICS_FILE_H
#define TANDEM_CLI_METRICS_FILE_H

#include <stddef.h>

#include "train_report.h"

/* Writes the run and its n epochs so far to path, replacing it whole (temporary file
 * + rename), so that it may be rewritten after every epoch while another program
 * reads it. A path ending in ".json" gets
 *   {"run": {"tandem": VERSION, "devices": [...], "options": {NAME: VALUE, ...}},
 *    "epochs": [{"epoch": 1, "train_loss": ..., ...}, ...]}
 * anything else CSV: the run in comment lines starting with "# " ("# tandem 0.1.0",
 * "# devices: ...", "# options: name=value ..."), then the header
 *   epoch,train_loss,test_loss,test_accuracy,seconds,examples_per_second,eval_seconds
 * (a regression: test_mae,test_rmse,test_r2 in test_accuracy's place)
 * and a row per epoch. Numbers are written with %.9g; a non-finite one is null in
 * JSON, empty in CSV. 0 on success; else -1 with "cannot write PATH: reason" in err. */
int metrics_write(const char *path, const train_run *run, const train_epoch *e, size_t n, char *err,
                  size_t err_size);

#endif
