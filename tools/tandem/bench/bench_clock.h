/* The benchmarks' clock, and their rules of keeping the best of repeated timings or
 * the median and best of rounds' rates. */
#ifndef TANDEM_CLI_BENCH_CLOCK_H
#define TANDEM_CLI_BENCH_CLOCK_H

#include <stdlib.h>

#include "platform/tdm_host.h"

/* Monotonic seconds. */
static inline double bench_seconds(void)
{
    return (double)tdm_host_now_ns() * 1e-9;
}

/* Keeps the shortest of a benchmark's timings in *best (0: none yet). */
static inline void bench_keep_best(double *best, double seconds)
{
    if (*best == 0 || seconds < *best)
        *best = seconds;
}

static inline int bench_compare_rates(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts the rounds' rates ascending: the median is at [n / 2], the best at [n - 1]. */
static inline void bench_sort_rates(double *rates, size_t n)
{
    qsort(rates, n, sizeof *rates, bench_compare_rates);
}

#endif
