#include <math.h>
#include <stdio.h>

#include "plot_axis.h"

#define TARGET_STEPS 5

/* The least of 1, 2, 5, 10 times a power of ten that is at least raw. */
static double nice_step(double raw)
{
    double magnitude = pow(10, floor(log10(raw)));
    double f = raw / magnitude;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * magnitude;
}

plot_axis plot_axis_fit(double min, double max, int integer)
{
    if (min > max) {
        min = 0;
        max = 1;
    } else if (min == max) {
        double pad = integer || min == 0 ? 1 : fabs(min) * 0.1;
        min = min == 0 ? 0 : min - pad; /* all zeros: 0..1, not -1..1 */
        max += pad;
    }
    plot_axis a;
    a.step = nice_step((max - min) / TARGET_STEPS);
    if (integer && a.step < 1)
        a.step = 1;
    a.lo = floor(min / a.step) * a.step;
    a.hi = ceil(max / a.step) * a.step;
    if (!(a.step > 0 && isfinite(a.lo) && isfinite(a.hi) && a.lo < a.hi))
        return (plot_axis){0, 1, 0.2}; /* a range too wide or too narrow for doubles */
    return a;
}

int plot_axis_tick_count(const plot_axis *a)
{
    return (int)lround((a->hi - a->lo) / a->step) + 1;
}

double plot_axis_tick(const plot_axis *a, int i)
{
    double v = a->lo + i * a->step;
    return fabs(v) < a->step * 1e-6 ? 0 : v; /* no "-0.0" from rounding */
}

void plot_axis_label(const plot_axis *a, double v, const char *suffix, char *out, size_t size)
{
    int decimals = a->step >= 1 ? 0 : (int)ceil(-log10(a->step) - 1e-9);
    if (decimals > 6 || fabs(v) >= 1e7)
        snprintf(out, size, "%.3g%s", v, suffix);
    else
        snprintf(out, size, "%.*f%s", decimals, v, suffix);
}
