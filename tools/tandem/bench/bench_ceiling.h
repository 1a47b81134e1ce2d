/* The in-run ceiling of `tandem bench allreduce|allgather|reducescatter|reduce|
 * broadcast`: the plain C collective of the same bytes over host memory, one thread
 * per core, on buffers allocated and touched once, as a library that keeps its buffers would do it.
 */
#ifndef TANDEM_CLI_BENCH_CEILING_H
#define TANDEM_CLI_BENCH_CEILING_H

#include <stddef.h>

typedef struct host_ceiling host_ceiling;

typedef enum host_collective {
    HOST_ALL_REDUCE,
    HOST_ALL_GATHER,     /* buffer k's slice k to every other buffer's slice k */
    HOST_REDUCE_SCATTER, /* slice k of every buffer summed into buffer k's slice k */
    HOST_REDUCE,         /* every buffer summed into buffer 0 (the root) */
    HOST_BROADCAST       /* buffer 0 copied to every other */
} host_collective;

/* `buffers` float buffers of max_bytes each, worked on by `threads` threads (the
 * calling one included). NULL when out of memory or threads. */
host_ceiling *host_ceiling_create(size_t buffers, size_t max_bytes, unsigned threads,
                                  host_collective kind);
void host_ceiling_destroy(host_ceiling *c);

/* Seconds per in-place collective (SUM) of the first `bytes` of every buffer (a
 * multiple of 4 times the buffers for the gather and scatter): the mean of `iters`
 * back-to-back calls after `warmup` untimed ones. All-reduce: each thread sums its
 * slice over every buffer and writes the sum back to all of them; the others: each
 * thread moves or sums its range of every slice; reduce and broadcast: each thread
 * sums into, or copies from, its slice of buffer 0. */
double host_ceiling_time(host_ceiling *c, size_t bytes, unsigned warmup, unsigned iters);

#endif
