/* The input case's shared set-up and checks, used by its parts. */
#ifndef TDM_TEST_INPUT_FIXTURE_H
#define TDM_TEST_INPUT_FIXTURE_H

#include <stdlib.h>
#include <time.h>

#include "harness.h"

#define MAX_STEPS 64
#define MAX_IDS 512

/* What an iteration delivered: each step's rows per replica, and every example's id
 * (its first feature) in replica order. */
typedef struct seen {
    size_t steps;
    size_t rows[MAX_STEPS][3];
    size_t global[MAX_STEPS];
    int ids[MAX_IDS];
    size_t id_count;
} seen;

extern tdm_context *in_ctx;
extern tdm_device *in_devs[3];
extern size_t in_n_devs;

/* Examples i = 0..count-1: features (i, 100 + i), label i % 5. */
tdm_dataset *in_numbered(size_t count);

tdm_strategy *in_mirrored(size_t replicas);

/* Checks one replica's slice (shape, device, label of each row) and records its ids. */
void in_read_slice(const tdm_distributed_batch *b, size_t r, tdm_device *dev, seen *out);

void in_collect(tdm_strategy *s, const tdm_distributed_dataset *dist, seen *out);

/* Distributes ds (taken over) over `replicas` with batch shares (NULL: even) and
 * records what it delivers. */
void in_run_shared(tdm_dataset *ds, size_t replicas, const double *shares, int prefetch, seen *out);

void in_run_global(tdm_dataset *ds, size_t replicas, int prefetch, seen *out);

int in_rows_are(const seen *s, size_t step, size_t a, size_t b, size_t c);

tdm_dataset *in_batched(size_t count, size_t batch, int drop);

/* input_cache_seek.c */
void in_check_cache_matches(void);
void in_check_cache_errors(void);
void in_check_seek(void);

#endif
