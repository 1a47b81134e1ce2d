#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int bench_failed(const char *program, tdm_status s, const char *what)
{
    if (s == TDM_OK)
        return 0;
    fprintf(stderr, "%s: %s: %s: %s\n", program, what, tdm_status_str(s), tdm_last_error());
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_sort(double *rates, size_t n)
{
    qsort(rates, n, sizeof *rates, cmp_double);
}
