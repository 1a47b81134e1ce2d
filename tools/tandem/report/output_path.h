/* Checking an output path before the work that fills it: a training run should not
 * end, after an hour, on a typo in --plot. */
#ifndef TANDEM_CLI_OUTPUT_PATH_H
#define TANDEM_CLI_OUTPUT_PATH_H

#include <stddef.h>

/* 0 if a file can be written at path: it is not a directory, and its directory
 * exists and takes a new file (one is created and removed again). Else -1 with
 * "cannot write PATH: reason" in err. */
int output_path_check(const char *path, char *err, size_t err_size);

#endif
