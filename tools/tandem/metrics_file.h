/* The per-epoch metrics of `tandem train` as a file: CSV, or JSON for a ".json" path. */
#ifndef TANDEM_CLI_METRICS_FILE_H
#define TANDEM_CLI_METRICS_FILE_H

#include <stddef.h>

#include "train_report.h"

/* Writes n epochs to path, replacing it whole (temporary file + rename). A path
 * ending in ".json" gets {"epochs": [{"epoch": 1, "train_loss": ..., ...}, ...]};
 * anything else CSV with the header
 *   epoch,train_loss,test_loss,test_accuracy,seconds,examples_per_second
 * Numbers are written with %.9g; a non-finite one is null in JSON, empty in CSV.
 * 0 on success; else -1 with "cannot write PATH: reason" in err. */
int metrics_write(const char *path, const train_epoch *e, size_t n, char *err, size_t err_size);

#endif
