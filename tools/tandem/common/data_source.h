/* A data file named on the command line, as `tandem train` and `tandem predict` read
 * it: CSV, or IDX images with an IDX labels file. */
#ifndef TANDEM_CLI_DATA_SOURCE_H
#define TANDEM_CLI_DATA_SOURCE_H

#include <stddef.h>

#include "tandem/tandem.h"

typedef struct data_source {
    const char *path;
    const char *labels;       /* IDX labels: makes path an IDX images file */
    const char *label_column; /* CSV: 0-based index or header name; NULL: the last */
    const char *label_columns; /* CSV: several, comma-separated; overrides label_column */
    int float_labels;          /* CSV: float targets, not class indices */
    int header;               /* CSV: the first line (after the skipped ones) names columns */
    size_t skip_rows;         /* CSV: lines to pass over first */
    int no_label;             /* CSV: every column is a feature */
    size_t max_classes;       /* labels of this many or more are refused; 0: no limit */
} data_source;

/* Loads the file; on success *out is the dataset and `used` says which lines and
 * columns held the examples ("1797 examples from lines 1-1797, 64 features in
 * columns 1-64, label in column 65"). Returns the status, with the message in
 * tdm_last_error(). */
tdm_status data_source_load(const data_source *src, tdm_dataset **out, char *used,
                            size_t used_size);

#endif
