/* The benchmarks' clock. */
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

#endif
