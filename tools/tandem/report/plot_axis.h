/* Axis scaling for the training plot: round ticks around the data's range. */
#ifndef TANDEM_CLI_PLOT_AXIS_H
#define TANDEM_CLI_PLOT_AXIS_H

#include <stddef.h>

typedef struct plot_axis {
    double lo, hi; /* the axis's ends, both ticks */
    double step;   /* between ticks: 1, 2 or 5 times a power of ten */
} plot_axis;

/* An axis covering [min, max] with about 5 steps. min > max (no data) gives 0..1;
 * min == max a range around the value. integer: steps of at least 1. */
plot_axis plot_axis_fit(double min, double max, int integer);

/* How many ticks the axis has, and the i-th one's value (0 from lo). */
int plot_axis_tick_count(const plot_axis *a);
double plot_axis_tick(const plot_axis *a, int i);

/* A tick's label, with as many decimals as the step needs, then suffix. */
void plot_axis_label(const plot_axis *a, double v, const char *suffix, char *out, size_t size);

#endif
