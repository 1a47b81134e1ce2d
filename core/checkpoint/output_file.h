/* Internal: a file written whole as the output of a library call or of the CLI (a
 * saved model, a trace, metrics, a plot, predictions), by what its path is now:
 *  - a regular file, or nothing yet: a temporary file beside it, fsynced and renamed
 *    over it, then the directory fsynced, so a reader never sees half of it and a
 *    crash leaves the old one;
 *  - a symbolic link: followed to the file it names (link after link), which is
 *    replaced as above while the link stays;
 *  - a device: written in place, never renamed over (as root, `--save /dev/null`
 *    must leave /dev/null a device);
 *  - a FIFO or socket: written in place for a stream (its reader takes what comes),
 *    refused for a whole file (a model, a plot), whose reader could not tell it from
 *    one cut short;
 *  - a directory: refused.
 * Every failure sets the last error, starting with func and naming the path. */
#ifndef TDM_CHECKPOINT_OUTPUT_FILE_H
#define TDM_CHECKPOINT_OUTPUT_FILE_H

#include <stdio.h>

#include "tandem/status.h"

typedef struct tdm_output_file {
    FILE *f;      /* write here */
    char *target; /* the file written: path, or the file its links name (malloc'd) */
    char *temp;   /* the temporary file beside target, or NULL where written in place */
} tdm_output_file;

/* What an output is: a file that is whole or nothing (a model, a plot), or a stream
 * a reader may take as it comes (a trace, metrics, predictions). */
typedef enum { TDM_OUTPUT_WHOLE, TDM_OUTPUT_STREAM } tdm_output_kind;

/* Opens the output for path. A FIFO's open waits for its reader, as any writer's. */
tdm_status tdm_output_open(const char *path, tdm_output_kind kind, const char *func,
                           tdm_output_file *out);

/* Whether path can be written, without opening a device or FIFO (which a reader at
 * the other end would see as an empty output) or leaving a file behind. */
tdm_status tdm_output_check(const char *path, tdm_output_kind kind, const char *func);

/* 1 where path's output replaces a file (a regular one, or none yet, links followed);
 * 0 where it is written in place (a device, FIFO or socket) or refused. An output
 * written many times over a run goes to such a target once, at its end: a FIFO's
 * reader would take the first for the whole. */
int tdm_output_replaces(const char *path);

/* Finishes the output: flushed and closed, and a temporary file fsynced, renamed over
 * the target and its directory fsynced. Closed whatever happens; on failure the
 * temporary file is removed and the target left as it was. */
tdm_status tdm_output_commit(tdm_output_file *o, const char *func);

/* Closes without finishing: a temporary file is removed, the target left as it was
 * (a device or FIFO has had what was written). */
void tdm_output_abort(tdm_output_file *o);

#endif
