/* The collectives section of the conformance run: every operation and algorithm on
 * every device set the context can form, against the host's fold in replica order. */
#ifndef TDM_CONFORMANCE_COLLECTIVES_H
#define TDM_CONFORMANCE_COLLECTIVES_H

#include "collective/collectives.h"
#include "conformance.h"

#define CONF_COLL_MAX_SETS 4
#define CONF_COLL_MAX_DEVICES 8
#define CONF_COLL_ALGORITHMS (TDM_COLLECTIVE_HOST + 1) /* AUTO .. HOST */

typedef struct conf_coll_set {
    char name[48];
    tdm_device *dev[CONF_COLL_MAX_DEVICES];
    size_t n;
} conf_coll_set;

/* Forms the sets (splitting devices into logical ones as needed); returns how many. */
size_t conf_coll_sets(tdm_context *ctx, conf_coll_set *out);

const char *conf_coll_algorithm_name(tdm_collective_algorithm algorithm);

/* Runs every case on the set, one result per algorithm (supported 0: the devices
 * cannot use it). `large` adds the 16 Mi element (64 MiB) tensor. */
void conf_coll_run(const conf_coll_set *set, int large, conf_result *by_algorithm);

/* conformance_coll_shards.c: all-gather (gather 1) or reduce-scatter (0) the same
 * way, in place and out of place. */
void conf_coll_run_shards(const conf_coll_set *set, int gather, int large,
                          conf_result *by_algorithm);
/* conformance_coll_roots.c: reduce to the last replica (broadcast 0) or broadcast
 * from it (1) the same way, in place and out of place. */
void conf_coll_run_roots(const conf_coll_set *set, int broadcast, int large,
                         conf_result *by_algorithm);

/* n floats from seed: small integers (exact in any order) or floats of widely
 * varying magnitude. */
void conf_coll_generate(float *x, size_t n, uint64_t seed, int integer);
/* Each float becomes two halves: its own value and -0.75 times it. */
void conf_coll_to_halves(float *x, size_t n);
/* want[0..halves) = the float16 fold of halves [from, from + halves) of every
 * host[0..count), each partial rounded to float16, in replica order. */
void conf_coll_fold_halves(float *const *host, size_t count, size_t halves, size_t from,
                           tdm_reduce_op op, float *want);

#endif
