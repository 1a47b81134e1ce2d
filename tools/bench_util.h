/* What the benchmark tools share (docs/PERFORMANCE.md): a clock, failure messages,
 * and the median and best of their rounds. */
#ifndef TDM_BENCH_UTIL_H
#define TDM_BENCH_UTIL_H

#include <stddef.h>

#include "tandem/tandem.h"

/* Seconds on CLOCK_MONOTONIC. */
double bench_now(void);

/* 0 when s is TDM_OK; else prints "program: what: status: last error" and returns 1. */
int bench_failed(const char *program, tdm_status s, const char *what);

/* Sorts the rates of the rounds in place, ascending: the median is at [n / 2], the
 * best at [n - 1]. */
void bench_sort(double *rates, size_t n);

#endif
