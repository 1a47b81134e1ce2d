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

/* The physical devices a set may hold. */
typedef struct conf_coll_devices {
    tdm_device *const *dev;
    size_t count;
} conf_coll_devices;

/* Forms the sets whose devices are all among `only` (NULL: every device, the
 * reference's included), splitting devices into logical ones as needed; returns how
 * many. */
size_t conf_coll_sets(tdm_context *ctx, const conf_coll_devices *only, conf_coll_set *out);

const char *conf_coll_algorithm_name(tdm_collective_algorithm algorithm);

/* Runs every case on the set, one result per algorithm (supported 0: the devices
 * cannot use it). `large` adds the 4 Mi + 5 element (16 MiB and 20 bytes) tensor. */
void conf_coll_run(const conf_coll_set *set, int large, conf_result *by_algorithm);

/* conformance_coll_shards.c: all-gather (gather 1) or reduce-scatter (0) the same
 * way, in place and out of place. */
void conf_coll_run_shards(const conf_coll_set *set, int gather, int large,
                          conf_result *by_algorithm);
/* conformance_coll_roots.c: reduce to the last replica (broadcast 0) or broadcast
 * from it (1) the same way, in place and out of place. */
void conf_coll_run_roots(const conf_coll_set *set, int broadcast, int large,
                         conf_result *by_algorithm);

/* A case of a reduce, broadcast, all-gather or reduce-scatter: per replica an input
 * and an output view (in place: the smaller is replica i's slice of the larger, or
 * the same view), host copies of the inputs, the expected outputs and a buffer to
 * read results into, each as large as the larger view. */
typedef struct conf_coll_case {
    const conf_coll_set *set;
    size_t n;        /* floats of a replica's part */
    int moves_bytes; /* the operation's (conf_coll_op) */
    int in_place;
    tdm_dtype dtype; /* F16: each float holds two halves */
    tdm_buffer *in_buf[CONF_COLL_MAX_DEVICES], *out_buf[CONF_COLL_MAX_DEVICES];
    tdm_buffer_view in[CONF_COLL_MAX_DEVICES], out[CONF_COLL_MAX_DEVICES];
    float *host[CONF_COLL_MAX_DEVICES];
    float *want, *got;
} conf_coll_case;

/* What one of those operations brings to the sweep. */
typedef struct conf_coll_op {
    int moves_bytes;            /* broadcast, all-gather: no fold, so one case, no float16 */
    size_t in_parts, out_parts; /* a replica's input and output in parts of n floats */
    uint64_t seed;              /* the inputs' seed per float of a part */
    void (*expect)(conf_coll_case *c, tdm_reduce_op op);
    /* Uploads, runs the case with the options and reports it (conf_coll_report). */
    void (*check)(conf_coll_case *c, tdm_reduce_op op, const tdm_collective_options *o,
                  conf_result *r);
} conf_coll_op;

/* conformance_coll_sweep.c: the operation on every size (`large`: the one past
 * 16 MiB too), out of place and in place, in float32 and (folding) float16, sum and (folding)
 * mean, one result per algorithm. */
void conf_coll_sweep(const conf_coll_set *set, const conf_coll_op *op, int large,
                     conf_result *by_algorithm);
tdm_status conf_coll_upload(const conf_coll_case *c);
/* Reads replica i's output; whether it differs from want. */
int conf_coll_differs(conf_coll_case *c, size_t i, const float *want, tdm_status *s);
/* Counts the case (s unsupported: marks the algorithm so instead) and records why it
 * failed: s, or replica `wrong` (< set->n) differing from the host. */
void conf_coll_report(const conf_coll_case *c, const char *operation, tdm_status s, size_t wrong,
                      conf_result *r);

/* Records a failed case; the first one's message is kept. */
void conf_coll_fail(conf_result *r, const char *message);
/* n floats from seed: small integers (exact in any order) or floats of widely
 * varying magnitude. */
void conf_coll_generate(float *x, size_t n, uint64_t seed, int integer);
/* Each float becomes two halves: its own value and -0.75 times it. */
void conf_coll_to_halves(float *x, size_t n);
/* want[0..n) = the fold of host[0..count)'s n floats in replica order (F16: of their
 * 2n halves, each partial rounded to float16). */
void conf_coll_fold(float *const *host, size_t count, size_t n, tdm_dtype dtype, tdm_reduce_op op,
                    float *want);

#endif
