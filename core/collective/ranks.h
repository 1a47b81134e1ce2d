/* Internal: the processes of a multi-worker job, through the rank transport plugin
 * (transports/rank_transport.h), which is opened at run time so that MPI is needed only by
 * those who ask for it. */
#ifndef TDM_CORE_RANKS_H
#define TDM_CORE_RANKS_H

#include "collective/float_fold.h"
#include "rank_transport.h"
#include "platform/tdm_thread.h"

typedef struct tdm_ranks {
    const tdm_rank_transport *transport;
    tdm_rank_link *link;
    size_t rank, count; /* this process is rank `rank` of `count` */
    int check_order;    /* announcements carry the caller's description */
    tdm_mutex lock;     /* one collective at a time, in issue order */
    uint64_t next_seq;
    float *slots;      /* host memory the collectives stage chunks in, kept: fresh pages */
    size_t slot_bytes; /* for every call would cost more than the copies */
} tdm_ranks;

/* Loads the plugin (TDM_MPI_LIBRARY, else libtandem_mpi.so.0 beside libtandem, else
 * the loader's search path) and joins the job. func names the caller in messages. */
tdm_status tdm_ranks_open(double timeout_s, int check_order, const char *func, tdm_ranks **out);
void tdm_ranks_close(tdm_ranks *r);

/* One collective across the ranks: announce (every rank's call must match; the
 * agreement sums every rank's contributors and takes the smallest chunk), then the
 * data. Holds
 * r->lock from begin to end, so collectives never interleave. */
typedef struct tdm_ranks_call {
    tdm_ranks *ranks;
    tdm_rank_call call;
    tdm_rank_call agreed; /* contributors summed over every rank, the smallest chunk */
} tdm_ranks_call;

tdm_status tdm_ranks_begin(tdm_ranks *r, uint32_t kind, tdm_fold_op op, uint64_t bytes,
                           uint64_t contributors, uint64_t chunk, const char *what,
                           tdm_ranks_call *out);
tdm_status tdm_ranks_all_reduce(tdm_ranks_call *c, float *floats, size_t n);
tdm_status tdm_ranks_broadcast(tdm_ranks_call *c, void *bytes, size_t size, size_t root);
void tdm_ranks_end(tdm_ranks_call *c);

/* One whole collective on host memory (begin, the data, end): floats[n] becomes op
 * over every rank's; bytes[size] becomes the chief's, or root's. `what` names it. */
tdm_status tdm_ranks_reduce_floats(tdm_ranks *r, tdm_fold_op op, float *floats, size_t n,
                                   const char *what);
tdm_status tdm_ranks_broadcast_bytes(tdm_ranks *r, void *bytes, size_t size, const char *what);
tdm_status tdm_ranks_broadcast_from(tdm_ranks *r, size_t root, void *bytes, size_t size,
                                    const char *what);

/* Point-to-point messages of the parameter-server protocol (rank_transport.h's send
 * and receive, with the link's deadline, or a poll of wait_s > 0 that gives *bytes
 * NULL when nothing came; a send with keep_link or a poll that fails on one rank
 * leaves the link whole); what a failure was doing is `what`. */
tdm_status tdm_ranks_send(tdm_ranks *r, size_t to, const void *bytes, size_t size, int keep_link,
                          const char *what);
tdm_status tdm_ranks_receive(tdm_ranks *r, size_t from, double wait_s, const void **bytes,
                             size_t *size, size_t *sender, const char *what);

/* At least `bytes` of staging, kept from call to call; NULL without memory. Only
 * between tdm_ranks_begin and tdm_ranks_end. */
float *tdm_ranks_slots(tdm_ranks *r, size_t bytes);

#endif
