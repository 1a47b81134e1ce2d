/* The training plot of `tandem train` as a PNG: loss and test accuracy by epoch. */
#ifndef TANDEM_CLI_PLOT_PNG_H
#define TANDEM_CLI_PLOT_PNG_H

#include <stddef.h>

#include "train_report.h"

/* The image: two panels side by side, PLOT_WIDTH / 2 each. In each panel the plot
 * area spans columns PLOT_AREA_LEFT..PLOT_AREA_RIGHT (from the panel's left edge)
 * and rows PLOT_AREA_TOP..PLOT_AREA_BOTTOM; the y tick labels lie left of it, the
 * x tick labels and "epoch" below it, the title above it. */
#define PLOT_WIDTH 800
#define PLOT_HEIGHT 400
#define PLOT_AREA_LEFT 64
#define PLOT_AREA_RIGHT 384
#define PLOT_AREA_TOP 36
#define PLOT_AREA_BOTTOM 348

/* Colours, 0xRRGGBB. */
#define PLOT_BACKGROUND 0xffffffu
#define PLOT_TEXT 0x202020u
#define PLOT_AXIS 0x505050u
#define PLOT_GRID 0xe4e4e4u
#define PLOT_TRAIN_LOSS 0x1f77b4u /* blue */
#define PLOT_TEST_LOSS 0xff7f0eu  /* orange */
#define PLOT_ACCURACY 0x2ca02cu   /* green */

/* Writes the plot of n epochs to path (an 800x400 RGB PNG), replacing it whole:
 * left "loss" (train and test, with a legend), right "test accuracy" in %, both
 * against the epoch. Ranges fit the data; non-finite values are left out. 0 on
 * success; else -1 with "cannot write PATH: reason" in err. */
int plot_write_png(const char *path, const train_epoch *e, size_t n, char *err, size_t err_size);

#endif
