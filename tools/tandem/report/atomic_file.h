/* The CLI's outputs (metrics, plots, predictions), written as the library writes its
 * own (checkpoint/output_file.h): a regular file replaced whole, a link followed, a
 * device written in place, a FIFO too for a stream (metrics, predictions) and
 * refused for a whole file (a plot), a directory refused. */
#ifndef TANDEM_CLI_ATOMIC_FILE_H
#define TANDEM_CLI_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "checkpoint/output_file.h"

typedef struct atomic_file {
    FILE *f; /* write here */
    tdm_output_file out;
} atomic_file;

/* Opens the output for `path`. 0 on success; else -1 with "cannot write PATH:
 * reason" in err. */
int atomic_file_open(atomic_file *a, const char *path, tdm_output_kind kind, char *err,
                     size_t err_size);

/* Finishes the output (output_file.h). 0 on success; else -1 with a message in err,
 * and the target left as it was. */
int atomic_file_commit(atomic_file *a, char *err, size_t err_size);

/* Closes without finishing: the target is left as it was. */
void atomic_file_abort(atomic_file *a);

/* Whether path can be written, opening no device or FIFO. 0, or -1 with the reason
 * in err. */
int atomic_file_check(const char *path, tdm_output_kind kind, char *err, size_t err_size);

#endif
