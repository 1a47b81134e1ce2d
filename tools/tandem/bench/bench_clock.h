/* The benchmarks' clock, and their rule of keeping the best of repeated timings. */
#ifndef TANDEM_CLI_BENCH_CLOCK_H
#define TANDEM_CLI_BENCH_CLOCK_H

#include <time.h>

/* Monotonic seconds. */
static inline double bench_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Keeps the shortest of a benchmark's timings in *best (0: none yet). */
static inline void bench_keep_best(double *best, double seconds)
{
    if (*best == 0 || seconds < *best)
        *best = seconds;
}

#endif
