/* The in-run ceiling of `tandem bench allreduce`: a plain C all-reduce of the same
 * bytes over host memory, one thread per core, on buffers allocated and touched
 * once, as a library that keeps its buffers would do it. */
#ifndef TANDEM_CLI_BENCH_CEILING_H
#define TANDEM_CLI_BENCH_CEILING_H

#include <stddef.h>

typedef struct host_ceiling host_ceiling;

/* `buffers` float buffers of max_bytes each, reduced by `threads` threads (the
 * calling one included). NULL when out of memory or threads. */
host_ceiling *host_ceiling_create(size_t buffers, size_t max_bytes, unsigned threads);
void host_ceiling_destroy(host_ceiling *c);

/* Seconds per in-place SUM all-reduce of the first `bytes` of every buffer: the mean
 * of `iters` back-to-back calls after `warmup` untimed ones. Each thread sums its
 * slice over every buffer and writes the sum back to all of them. */
double host_ceiling_time(host_ceiling *c, size_t bytes, unsigned warmup, unsigned iters);

#endif
