/* Internal: the train op's timeline (tdm_train_op_trace): the times of every traced
 * step, held in buffers sized by the window when tracing starts, and their writer
 * (Chrome's trace event JSON). */
#ifndef TDM_TRAIN_TRACE_H
#define TDM_TRAIN_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/strategy.h"

/* One replica's phases in one step, in tdm_seconds, each when the replica's device
 * reached it (tdm_trace_time). */
typedef struct tdm_trace_replica {
    double loss[2];   /* forward and backward: began, done on the device */
    double update[2]; /* checks, transforms, the optimizer and update ops */
    double *buckets;  /* [2 * bucket_count]: each all-reduce's start and done */
    int device_clock; /* every time above came from the device's timestamps */
} tdm_trace_replica;

typedef struct tdm_trace_step {
    double input[2];             /* waiting for the batch; 0 and 0 when no step fed it */
    double end;                  /* the whole step done; 0 until then (not traced) */
    tdm_trace_replica *replicas; /* [local replicas] */
} tdm_trace_step;

typedef struct tdm_train_trace tdm_train_trace;

/* A trace of the global steps first to last of a train op whose strategy has
 * buckets all-reduces per step; path gets ".rank<R>" in a job of several processes. */
tdm_status tdm_train_trace_create(tdm_strategy *s, const char *path, uint64_t first, uint64_t last,
                                  size_t buckets, tdm_train_trace **out);
void tdm_train_trace_destroy(tdm_train_trace *t); /* NULL-safe */

/* Where step's times go, cleared; NULL outside the window. */
tdm_trace_step *tdm_train_trace_begin(tdm_train_trace *t, uint64_t step);
/* Waits for dev's work so far and sets *at to when it was done (device_time.h);
 * a time from the host's clock clears t->device_clock. */
tdm_status tdm_trace_time(tdm_trace_replica *t, tdm_device *dev, double *at);
/* The step ran whole: it is kept, and the file written after the window's last step. */
tdm_status tdm_train_trace_end(tdm_train_trace *t, tdm_trace_step *st, uint64_t step);

/* Writes the steps kept so far unless the file already holds them. */
tdm_status tdm_train_trace_write(tdm_train_trace *t);

#endif
