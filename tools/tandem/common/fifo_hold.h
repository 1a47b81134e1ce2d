/* Outputs that stream into a FIFO (train's --metrics and --trace, predict's
 * --output): the command opens each before it starts its work, says so where it then
 * waits for a process to read the FIFO, and holds it open until its outputs are
 * written, so that every write finds the reader and the reader sees the end once,
 * when the command is done. Nothing else is opened: a regular file, a device or
 * nothing yet at the path is left to the output's own writer. */
#ifndef TANDEM_CLI_FIFO_HOLD_H
#define TANDEM_CLI_FIFO_HOLD_H

#include <stddef.h>

#define FIFO_HOLD_MAX 4

typedef struct fifo_holds {
    int fd[FIFO_HOLD_MAX];
    size_t count;
} fifo_holds;

/* Holds path where it names a FIFO (links followed), after waiting for its reader;
 * 0, or -1 after printing why to stderr as "COMMAND: OPTION: ...". */
int fifo_hold(fifo_holds *h, const char *command, const char *option, const char *path);

/* Lets every FIFO held go: its reader sees the end. */
void fifo_release(fifo_holds *h);

#endif
