/* The contract between the core and a transport between processes (transports/mpi
 * builds the one there is). It stands alone: no core header, no MPI header, host
 * memory only. The plugin moves bytes; the core's fold, handed to all_reduce, computes.
 * Every call is made by one thread at a time. A call that fails writes why into
 * `why` (NUL-terminated, at most why_size bytes) and returns its status. */
#ifndef TDM_RANK_TRANSPORT_H
#define TDM_RANK_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/status.h"

/* Bumped on any change to the structs below: a plugin of another version is refused. */
#define TDM_RANK_TRANSPORT_VERSION 5

/* A receive from whichever rank sends first. */
#define TDM_RANK_ANY ((size_t)-1)

typedef struct tdm_rank_link tdm_rank_link; /* the plugin's state */

/* The fold of an all-reduce (tdm_rank_call.op). SUM_F16: the floats hold halves, two
 * per float. */
enum {
    TDM_RANK_FOLD_SUM = 0,
    TDM_RANK_FOLD_MAX = 1,
    TDM_RANK_FOLD_MIN = 2,
    TDM_RANK_FOLD_SUM_F16 = 3
};

/* acc[0, n) becomes earlier op acc, element by element, as the core folds on devices and
 * on the host, so every rank's sums have the bits of one process's. */
typedef void (*tdm_rank_fold)(uint32_t op, float *acc, const float *earlier, size_t n);

/* What every rank announces before a collective's data moves. */
typedef struct tdm_rank_call {
    uint64_t seq;          /* the collective's number on this link, from 0 */
    uint32_t kind;         /* TDM_RANK_ALL_REDUCE, TDM_RANK_BROADCAST */
    uint32_t op;           /* TDM_RANK_FOLD_* */
    uint64_t bytes;        /* of the data every rank passes */
    uint64_t contributors; /* values this rank folded in (summed: MEAN's divisor) */
    uint64_t chunk;        /* the piece this rank would move at a time (the smallest wins:
                              every rank must cut the data alike); 0 for broadcasts */
    char what[96];         /* the caller's description: compared in debug mode */
} tdm_rank_call;

/* TDM_RANK_CLOSE: the goodbye every rank announces when it closes its link. */
enum { TDM_RANK_ALL_REDUCE = 1, TDM_RANK_BROADCAST = 2, TDM_RANK_CLOSE = 3 };

typedef struct tdm_rank_transport {
    unsigned version; /* TDM_RANK_TRANSPORT_VERSION */
    const char *name; /* "mpi" */
    /* Joins the job: *rank of *ranks. timeout_s bounds every later collective;
     * check_order compares the callers' descriptions as well as sizes. */
    tdm_status (*open)(double timeout_s, int check_order, tdm_rank_link **out, size_t *rank,
                       size_t *ranks, char *why, size_t why_size);
    /* Every rank announces its call (seq, sizes); a missing, late or different one
     * fails here. *agreed: contributors summed over the ranks, the smallest chunk. */
    tdm_status (*announce)(tdm_rank_link *link, const tdm_rank_call *call, tdm_rank_call *agreed,
                           char *why, size_t why_size);
    /* floats[n] becomes call->op over every rank's, in place, the same bits everywhere,
     * each part folded by fold in a fixed order of ranks. */
    tdm_status (*all_reduce)(tdm_rank_link *link, float *floats, size_t n, tdm_rank_fold fold,
                             const tdm_rank_call *call, char *why, size_t why_size);
    /* bytes[size] becomes root's. */
    tdm_status (*broadcast)(tdm_rank_link *link, void *bytes, size_t size, size_t root,
                            const tdm_rank_call *call, char *why, size_t why_size);
    /* Messages of request and reply protocols (parameter servers), apart from the
     * collectives: send waits, with the link's deadline, until rank `to` has taken
     * bytes[size]; receive waits as long for a message from `from` (TDM_RANK_ANY: any
     * rank) and gives it in link-owned memory, valid until the next receive, with its
     * size and sender. A rank that does not take or send in time is named. A receive
     * with wait_s > 0 is a poll instead: after wait_s without a message it gives
     * *bytes NULL, and a message whose sender dies while it moves fails naming it in
     * *sender; the link stays whole (a server watching which worker is lost). So does a
     * send with keep_link that is not taken in time: its bytes were copied aside. Both
     * wait half the deadline, so that the ranks waiting behind them hear in time. */
    tdm_status (*send)(tdm_rank_link *link, size_t to, const void *bytes, size_t size,
                       int keep_link, char *why, size_t why_size);
    tdm_status (*receive)(tdm_rank_link *link, size_t from, double wait_s, const void **bytes,
                          size_t *size, size_t *sender, char *why, size_t why_size);
    /* Leaves the job. MPI stays initialised for the process: the plugin finalises it
     * at exit if it initialised it and no collective failed (a missing rank would hold
     * the finalisation forever). NULL-safe. */
    void (*close)(tdm_rank_link *link);
} tdm_rank_transport;

/* The one symbol a transport plugin exports. */
typedef const tdm_rank_transport *(*tdm_rank_transport_entry)(void);
#define TDM_RANK_TRANSPORT_ENTRY "tdm_rank_transport_v5"

#endif
