/* Internal to tandem bench allreduce (and its kin): what the command (options,
 * measurement, report: bench_allreduce.c) and its runs of the collective
 * (bench_allreduce_run.c) share. */
#ifndef TDM_BENCH_ALLREDUCE_H
#define TDM_BENCH_ALLREDUCE_H

#include "bench_ceiling.h"
#include "device_select.h"
#include "tandem/tandem.h"

#define ROOT 0 /* the reduce's and broadcast's, as nccl-tests' default */

/* What the replicas share while they loop. */
typedef struct ar_bench {
    host_collective kind;
    const char *name;
    tdm_device *devices[MAX_SELECTED];
    size_t n;
    tdm_tensor *whole[MAX_SELECTED]; /* max_bytes per replica, sliced per size */
    tdm_tensor *slice[MAX_SELECTED]; /* the row's whole tensor */
    tdm_tensor *part[MAX_SELECTED];  /* gather, scatter: the replica's slice of it */
    size_t alloc_bytes;              /* of each whole */
    tdm_reduce_op op;
    tdm_dtype dtype;
    size_t element;      /* bytes */
    unsigned calls;      /* all-reduces per run */
    size_t first, total; /* this process's first replica, and the job's replicas */
    size_t workers;
} ar_bench;

/* Runs the collective `calls` times back to back on every replica; *seconds the wall
 * time of the whole run. */
tdm_status ar_timed_run(tdm_strategy *st, ar_bench *b, unsigned calls, double *seconds);

/* One collective of known data; *wrong the elements that differ, over every replica. */
tdm_status ar_check(tdm_strategy *st, ar_bench *b, size_t count, size_t *wrong);

#endif
