/* The training progress display of `tandem train`: a bar redrawn in place on a
 * terminal, fitted to its width, plain lines (one per epoch) for logs and pipes. */
#ifndef TANDEM_CLI_PROGRESS_H
#define TANDEM_CLI_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#include "train_report.h"

typedef struct progress {
    FILE *out;
    int tty;
    int columns; /* the width to fit; 0 (set by begin): the terminal's, asked at every
                    draw so that a resized window is followed */
    unsigned epochs;
    size_t steps_per_epoch; /* 0: unknown */
    unsigned bar_epoch;     /* the epoch whose bar is on the line; 0: none */
    double bar_seconds;     /* when that bar was last drawn (seconds into its epoch) */
    int bar_width;          /* columns the bar took, to blank what a shorter line leaves */
} progress;

/* tty: 1 draws one bar per epoch, redrawn in place with '\r' at most 10 times a
 * second and finished with '\n'; 0 prints plain lines only (one per epoch end), for
 * logs and pipes. */
void progress_begin(progress *p, FILE *out, int tty, unsigned epochs, size_t steps_per_epoch);

/* After each step: step within the epoch (1-based), running mean loss, examples so
 * far in the epoch, seconds since the epoch began. Draws only on a tty: the epoch,
 * the bar, the step, steps/s, ex/s, the loss and the ETA of the whole run (from this
 * epoch's pace), leaving out the least useful of them, then shortening the bar, so
 * that the line never reaches the terminal's last column (where it would wrap and
 * every redraw would leave a copy behind). */
void progress_step(progress *p, unsigned epoch, size_t step, double running_loss, size_t examples,
                   double seconds);

/* At the epoch's end: prints e.g. "epoch  3/30  23 steps  0.41 s  56.1 steps/s
 * 3508 ex/s  loss 0.1234  test loss 0.1502  test acc 96.39%" (on a tty over the bar,
 * fitted to the width like the bar; in full otherwise). */
void progress_epoch(progress *p, const train_epoch *e, size_t steps);

/* The width progress fits on a tty: the terminal's (TIOCGWINSZ), else $COLUMNS,
 * else 80. */
int progress_columns(const progress *p);

#endif
