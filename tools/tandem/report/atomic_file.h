/* Whole files or none: write to a temporary file beside the target, then rename it
 * over the target, so a reader never sees half a file. */
#ifndef TANDEM_CLI_ATOMIC_FILE_H
#define TANDEM_CLI_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct atomic_file {
    FILE *f;          /* write here */
    const char *path; /* the target */
    char *tmp_path;   /* the temporary file (malloc'd) */
} atomic_file;

/* Creates the temporary file (mode 0666 less the umask) for `path`. 0 on success;
 * else -1 with "cannot write PATH: reason" in err. */
int atomic_file_open(atomic_file *a, const char *path, char *err, size_t err_size);

/* Flushes, closes and renames the temporary file over the target. 0 on success; else
 * -1 with a message in err, and the temporary file removed. */
int atomic_file_commit(atomic_file *a, char *err, size_t err_size);

/* Closes and removes the temporary file: the target is left as it was. */
void atomic_file_abort(atomic_file *a);

#endif
