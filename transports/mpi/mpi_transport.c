/* libtandem_mpi: the rank transport over MPI (transports/rank_transport.h). The
 * only code linked with MPI; the core opens it at run time. Every wait polls
 * against a deadline, so a rank that died or stalls is reported, never waited for
 * forever; after such a failure the link is broken and MPI is not finalised.
 * MPI is initialised once per process, on the first link, if the application has not
 * done it, and then finalised when the process exits: MPI cannot start again after
 * MPI_Finalize, and a program may create and destroy several strategies. */
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rank_transport.h"

#define TDM_EXPORT __attribute__((visibility("default")))

enum { ANNOUNCE_TAG = 0x7464, RING_TAG = 0x7465, MESSAGE_TAG = 0x7466 };

struct tdm_rank_link {
    MPI_Comm comm; /* a duplicate of MPI_COMM_WORLD: no clash with the application */
    int rank, ranks;
    int check_order;
    double timeout_s;
    tdm_status broken; /* the first failure, returned by every later call */
    char broken_why[512];
    tdm_rank_call *received; /* [ranks]: the peers' announcements */
    MPI_Request *requests;   /* [2 * ranks] */
    int *arrived;            /* [ranks]: whose announcement came */
    int *completed;          /* [2 * ranks]: MPI_Testsome's indices */
    float *scratch;          /* a part received from the left, kept between calls */
    size_t scratch_floats;
    unsigned char *inbox; /* the last message received */
    size_t inbox_bytes;
    unsigned char *outbox; /* the last message sent with keep_link */
    size_t outbox_bytes;
    unsigned char **abandoned; /* boxes of messages whose other end died in them: a */
    size_t abandoned_count;    /* cancelled transfer may still use them until close */
};

static int any_broken; /* a link failed: a peer may be missing, so no finalisation */

static void finalize_at_exit(void)
{
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (!any_broken && !finalised)
        MPI_Finalize();
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static tdm_status fail(tdm_rank_link *link, tdm_status status, char *why, size_t why_size,
                       const char *format, ...) __attribute__((format(printf, 5, 6)));

/* Records the failure; the link is broken for good, since MPI's state is unknown. */
static tdm_status fail(tdm_rank_link *link, tdm_status status, char *why, size_t why_size,
                       const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(why, why_size, format, args);
    va_end(args);
    if (link && link->broken == TDM_OK) {
        any_broken = 1;
        link->broken = status;
        snprintf(link->broken_why, sizeof link->broken_why, "%s", why);
    }
    return status;
}

static tdm_status mpi_fail(tdm_rank_link *link, int code, const char *call, char *why,
                           size_t why_size)
{
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", code);
    return fail(link, TDM_ERR_REMOTE, why, why_size, "%s failed: %s", call, text);
}

/* Waiting for the others to arrive: spins first (they are usually close), then
 * sleeps between tests, leaving the core to the devices' threads (a peer may be a
 * whole backward pass behind). */
static void pause_after(double spun)
{
    if (spun > 2e-3) {
        struct timespec t = {0, 20000};
        nanosleep(&t, NULL);
    }
}

/* Moving data: every test advances MPI's transfer (it has no thread of its own), so
 * it is tested back to back, only yielding to threads that are ready to run. */
static void yield_between_tests(void)
{
    sched_yield();
}

static const char *kind_name(uint32_t kind)
{
    return kind == TDM_RANK_BROADCAST ? "broadcast"
           : kind == TDM_RANK_CLOSE   ? "close"
                                      : "all-reduce";
}

static const char *op_name(uint32_t op)
{
    static const char *const names[] = {"SUM", "MAX", "MIN", "SUM of f16"};
    return op < sizeof names / sizeof names[0] ? names[op] : "?";
}

static void describe(const tdm_rank_call *c, char *out, size_t size)
{
    snprintf(out, size, "%s #%llu (%s, %llu bytes%s%s)", kind_name(c->kind),
             (unsigned long long)c->seq, op_name(c->op), (unsigned long long)c->bytes,
             c->what[0] ? ", " : "", c->what);
}

static int same_call(const tdm_rank_link *link, const tdm_rank_call *a, const tdm_rank_call *b)
{
    return a->seq == b->seq && a->kind == b->kind && a->op == b->op && a->bytes == b->bytes &&
           (!link->check_order || !strncmp(a->what, b->what, sizeof a->what));
}

static tdm_status open_link(double timeout_s, int check_order, tdm_rank_link **out, size_t *rank,
                            size_t *ranks, char *why, size_t why_size)
{
    *out = NULL;
    int initialised = 0, finalised = 0, provided = 0;
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    if (finalised)
        return fail(NULL, TDM_ERR_INVALID_STATE, why, why_size,
                    "MPI is already finalised in this process: a multi-worker strategy "
                    "needs it running");
    if (!initialised) {
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
            return fail(NULL, TDM_ERR_REMOTE, why, why_size, "MPI_Init_thread failed");
        atexit(finalize_at_exit);
    } else
        MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_SERIALIZED)
        return fail(NULL, TDM_ERR_UNSUPPORTED, why, why_size,
                    "MPI gives thread level %d; tandem calls MPI from its engine thread and "
                    "needs MPI_THREAD_SERIALIZED (initialise MPI with MPI_Init_thread)",
                    provided);
    tdm_rank_link *link = calloc(1, sizeof *link);
    if (!link)
        return fail(NULL, TDM_ERR_OUT_OF_MEMORY, why, why_size, "out of host memory");
    link->check_order = check_order;
    link->timeout_s = timeout_s;
    int code = MPI_Comm_dup(MPI_COMM_WORLD, &link->comm);
    if (code == MPI_SUCCESS)
        code = MPI_Comm_set_errhandler(link->comm, MPI_ERRORS_RETURN);
    if (code == MPI_SUCCESS)
        code = MPI_Comm_rank(link->comm, &link->rank);
    if (code == MPI_SUCCESS)
        code = MPI_Comm_size(link->comm, &link->ranks);
    if (code != MPI_SUCCESS) {
        tdm_status s = mpi_fail(NULL, code, "MPI_Comm_dup", why, why_size);
        free(link);
        return s;
    }
    link->received = calloc((size_t)link->ranks, sizeof *link->received);
    link->requests = calloc(2 * (size_t)link->ranks, sizeof *link->requests);
    link->arrived = calloc((size_t)link->ranks, sizeof *link->arrived);
    link->completed = calloc(2 * (size_t)link->ranks, sizeof *link->completed);
    if (!link->received || !link->requests || !link->arrived || !link->completed) {
        free(link->arrived);
        free(link->completed);
        free(link->received);
        free(link->requests);
        free(link);
        return fail(NULL, TDM_ERR_OUT_OF_MEMORY, why, why_size, "out of host memory");
    }
    *rank = (size_t)link->rank;
    *ranks = (size_t)link->ranks;
    *out = link;
    return TDM_OK;
}

/* The ranks whose announcement has not come, as "1, 3". */
static void list_missing(tdm_rank_link *link, const int *arrived, char *out, size_t size)
{
    size_t used = 0;
    out[0] = 0;
    for (int r = 0; r < link->ranks && used < size; r++)
        if (r != link->rank && !arrived[r])
            used += (size_t)snprintf(out + used, size - used, "%s%d", used ? ", " : "", r);
}

static tdm_status check_calls(tdm_rank_link *link, const tdm_rank_call *mine, tdm_rank_call *agreed,
                              char *why, size_t why_size)
{
    *agreed = *mine;
    for (int r = 0; r < link->ranks; r++) {
        if (r == link->rank)
            continue;
        const tdm_rank_call *theirs = &link->received[r];
        if (!same_call(link, mine, theirs)) {
            char a[256], b[256];
            describe(mine, a, sizeof a);
            describe(theirs, b, sizeof b);
            return fail(link, TDM_ERR_INVALID_STATE, why, why_size,
                        "rank %d called %s, rank %d called %s: every rank must make the same "
                        "collective calls in the same order",
                        link->rank, a, r, b);
        }
        agreed->contributors += theirs->contributors;
        agreed->chunk = theirs->chunk < agreed->chunk ? theirs->chunk : agreed->chunk;
    }
    return TDM_OK;
}

static tdm_status announce(tdm_rank_link *link, const tdm_rank_call *call, tdm_rank_call *agreed,
                           char *why, size_t why_size)
{
    if (link->broken != TDM_OK)
        return fail(NULL, link->broken, why, why_size, "%s", link->broken_why);
    int n = link->ranks, pending = 0, code = MPI_SUCCESS;
    int *arrived = link->arrived, *index = link->completed;
    memset(arrived, 0, (size_t)n * sizeof *arrived);
    for (int r = 0; r < n && code == MPI_SUCCESS; r++) {
        link->requests[2 * r] = link->requests[2 * r + 1] = MPI_REQUEST_NULL;
        if (r == link->rank)
            continue;
        code = MPI_Irecv(&link->received[r], sizeof *call, MPI_BYTE, r, ANNOUNCE_TAG, link->comm,
                         &link->requests[2 * r]);
        if (code == MPI_SUCCESS)
            code = MPI_Isend(call, sizeof *call, MPI_BYTE, r, ANNOUNCE_TAG, link->comm,
                             &link->requests[2 * r + 1]);
        pending += 2;
    }
    double start = now();
    while (code == MPI_SUCCESS && pending > 0) {
        int done = 0, count = 0;
        code = MPI_Testsome(2 * n, link->requests, &count, index, MPI_STATUSES_IGNORE);
        for (int k = 0; code == MPI_SUCCESS && k < count && count != MPI_UNDEFINED; k++) {
            if (index[k] % 2 == 0)
                arrived[index[k] / 2] = 1;
            done++;
        }
        pending -= count == MPI_UNDEFINED ? pending : done;
        double spun = now() - start;
        if (pending > 0 && spun > link->timeout_s) {
            char missing[256], mine[256];
            list_missing(link, arrived, missing, sizeof missing);
            describe(call, mine, sizeof mine);
            if (!missing[0]) /* every announcement came; ours was not taken */
                return fail(link, TDM_ERR_TIMEOUT, why, why_size,
                            "rank %d: a rank did not take its announcement of %s within %g s",
                            link->rank, mine, link->timeout_s);
            return fail(link, TDM_ERR_TIMEOUT, why, why_size,
                        "rank %d: ranks %s did not reach %s within %g s (died or stalled; the "
                        "bound is collective_timeout, TDM_COLLECTIVE_TIMEOUT)",
                        link->rank, missing, mine, link->timeout_s);
        }
        if (pending > 0)
            pause_after(spun);
    }
    if (code != MPI_SUCCESS)
        return mpi_fail(link, code, "announcing a collective", why, why_size);
    return check_calls(link, call, agreed, why, why_size);
}

/* Waits for one request of `call` with the link's deadline. */
static tdm_status finish(tdm_rank_link *link, MPI_Request *request, const tdm_rank_call *call,
                         char *why, size_t why_size)
{
    double start = now();
    for (;;) {
        int done = 0;
        int code = MPI_Test(request, &done, MPI_STATUS_IGNORE);
        if (code != MPI_SUCCESS)
            return mpi_fail(link, code, kind_name(call->kind), why, why_size);
        if (done)
            return TDM_OK;
        double spun = now() - start;
        if (spun > link->timeout_s) {
            char mine[256];
            describe(call, mine, sizeof mine);
            return fail(link, TDM_ERR_TIMEOUT, why, why_size,
                        "rank %d: every rank announced %s, but its exchange did not finish "
                        "within %g s: a rank died or stalled inside it",
                        link->rank, mine, link->timeout_s);
        }
        yield_between_tests();
    }
}

/* One ring step: part `out` to the right neighbour, part `in` from the left, with the
 * link's deadline; a neighbour that does not keep up is named. */
static tdm_status ring_step(tdm_rank_link *link, const float *out, int out_count, float *in,
                            int in_count, const tdm_rank_call *call, char *why, size_t why_size)
{
    int right = (link->rank + 1) % link->ranks, left = (link->rank + link->ranks - 1) % link->ranks;
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int code = MPI_Irecv(in, in_count, MPI_FLOAT, left, RING_TAG, link->comm, &r[0]);
    if (code == MPI_SUCCESS)
        code = MPI_Isend(out, out_count, MPI_FLOAT, right, RING_TAG, link->comm, &r[1]);
    double start = now();
    for (int done = 0; code == MPI_SUCCESS && !done;) {
        code = MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
        if (done || code != MPI_SUCCESS)
            break;
        if (now() - start > link->timeout_s) {
            char mine[256];
            int flag = 0;
            MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
            describe(call, mine, sizeof mine);
            return fail(link, TDM_ERR_TIMEOUT, why, why_size,
                        "rank %d: rank %d %s within %g s, inside %s (died or stalled)", link->rank,
                        flag ? right : left,
                        flag ? "did not take its part" : "did not send its part", link->timeout_s,
                        mine);
        }
        yield_between_tests();
    }
    return code == MPI_SUCCESS ? TDM_OK : mpi_fail(link, code, "a ring step", why, why_size);
}

/* Part k of x (n floats in parts of `part`): the last ones may be short or empty. */
static float *part_at(float *x, size_t n, size_t part, size_t k)
{
    return x + (k * part < n ? k * part : n);
}

static int part_len(size_t n, size_t part, size_t k)
{
    size_t at = k * part < n ? k * part : n;
    return (int)(n - at < part ? n - at : part);
}

/* Ring all-reduce over point-to-point messages (Open MPI's nonblocking collectives
 * run at a third of its blocking ones, and a blocking call cannot be bounded): a
 * reduce-scatter in which part p is summed around the ring from rank p + 1, then an
 * all-gather. Each part is reduced once, in a fixed order, so every rank gets the same
 * bits; with two ranks the one sum is the one a single process computes. */
static tdm_status all_reduce(tdm_rank_link *link, float *x, size_t n, tdm_rank_fold fold,
                             const tdm_rank_call *call, char *why, size_t why_size)
{
    if (link->broken != TDM_OK)
        return fail(NULL, link->broken, why, why_size, "%s", link->broken_why);
    size_t p = (size_t)link->ranks, me = (size_t)link->rank, part = (n + p - 1) / p;
    if (p == 1 || n == 0)
        return TDM_OK;
    if (part > INT_MAX)
        return fail(NULL, TDM_ERR_UNSUPPORTED, why, why_size,
                    "%zu floats over %zu ranks: a part passes MPI's int count", n, p);
    if (part > link->scratch_floats) {
        float *grown = realloc(link->scratch, part * sizeof *grown);
        if (!grown)
            return fail(NULL, TDM_ERR_OUT_OF_MEMORY, why, why_size, "out of host memory");
        link->scratch = grown;
        link->scratch_floats = part;
    }
    tdm_status s = TDM_OK;
    for (size_t step = 0; step + 1 < p && s == TDM_OK; step++) {
        size_t out = (me + p - step) % p, in = (me + p - step - 1) % p;
        s = ring_step(link, part_at(x, n, part, out), part_len(n, part, out), link->scratch,
                      part_len(n, part, in), call, why, why_size);
        if (s == TDM_OK)
            /* the part accumulated by the ranks to the left, then this rank's */
            fold(call->op, part_at(x, n, part, in), link->scratch, (size_t)part_len(n, part, in));
    }
    for (size_t step = 0; step + 1 < p && s == TDM_OK; step++) {
        size_t out = (me + 1 + p - step) % p, in = (me + p - step) % p;
        s = ring_step(link, part_at(x, n, part, out), part_len(n, part, out),
                      part_at(x, n, part, in), part_len(n, part, in), call, why, why_size);
    }
    return s;
}

static tdm_status broadcast(tdm_rank_link *link, void *bytes, size_t size, size_t root,
                            const tdm_rank_call *call, char *why, size_t why_size)
{
    if (link->broken != TDM_OK)
        return fail(NULL, link->broken, why, why_size, "%s", link->broken_why);
    const size_t piece = (size_t)1 << 30;
    for (size_t at = 0; at < size; at += piece) {
        size_t count = size - at < piece ? size - at : piece;
        MPI_Request request;
        int code =
            MPI_Ibcast((char *)bytes + at, (int)count, MPI_BYTE, (int)root, link->comm, &request);
        if (code != MPI_SUCCESS)
            return mpi_fail(link, code, "MPI_Ibcast", why, why_size);
        tdm_status s = finish(link, &request, call, why, why_size);
        if (s != TDM_OK)
            return s;
    }
    return TDM_OK;
}

static tdm_status abandon(tdm_rank_link *link, MPI_Request *request, unsigned char **box,
                          size_t *box_bytes, tdm_status status);

static tdm_status send_message(tdm_rank_link *link, size_t to, const void *bytes, size_t size,
                               int keep_link, char *why, size_t why_size)
{
    if (link->broken != TDM_OK)
        return fail(NULL, link->broken, why, why_size, "%s", link->broken_why);
    if (size > INT_MAX)
        return fail(NULL, TDM_ERR_UNSUPPORTED, why, why_size,
                    "a message of %zu bytes passes MPI's int count", size);
    if (keep_link) { /* sent from the outbox, which abandon() can keep */
        if (size > link->outbox_bytes) {
            unsigned char *grown = realloc(link->outbox, size);
            if (!grown)
                return fail(NULL, TDM_ERR_OUT_OF_MEMORY, why, why_size, "out of host memory");
            link->outbox = grown;
            link->outbox_bytes = size;
        }
        memcpy(link->outbox, bytes, size);
        bytes = link->outbox;
    }
    /* kept: half the deadline, so that the ranks waiting behind this one hear in time */
    double limit = keep_link ? link->timeout_s / 2 : link->timeout_s;
    MPI_Request request;
    int code = MPI_Isend(bytes, (int)size, MPI_BYTE, (int)to, MESSAGE_TAG, link->comm, &request);
    double start = now();
    for (int done = 0; code == MPI_SUCCESS && !done;) {
        code = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done || code != MPI_SUCCESS)
            break;
        double spun = now() - start;
        if (spun > limit)
            return keep_link ? abandon(link, &request, &link->outbox, &link->outbox_bytes,
                                       fail(NULL, TDM_ERR_TIMEOUT, why, why_size,
                                            "rank %d: rank %zu did not take a message of %zu "
                                            "bytes within %g s (died or stalled)",
                                            link->rank, to, size, limit))
                             : fail(link, TDM_ERR_TIMEOUT, why, why_size,
                                    "rank %d: rank %zu did not take a message of %zu bytes "
                                    "within %g s (died or stalled)",
                                    link->rank, to, size, link->timeout_s);
        pause_after(spun);
    }
    return code == MPI_SUCCESS ? TDM_OK : mpi_fail(link, code, "sending a message", why, why_size);
}

enum { TAKE_LATE = -1 }; /* take_message's code for a message that did not arrive whole */

/* A box given up, with a receive into it or a send from it that may still be pending:
 * kept until the link closes, and a fresh one for the next message. */
static tdm_status abandon(tdm_rank_link *link, MPI_Request *request, unsigned char **box,
                          size_t *box_bytes, tdm_status status)
{
    if (request && *request != MPI_REQUEST_NULL) {
        MPI_Cancel(request);
        MPI_Request_free(request);
    }
    unsigned char **grown = realloc(link->abandoned, (link->abandoned_count + 1) * sizeof *grown);
    if (grown) {
        grown[link->abandoned_count++] = *box;
        link->abandoned = grown;
        *box = NULL;
        *box_bytes = 0;
    }
    return status;
}

/* The probed message of `count` bytes from `source` into the inbox, with the link's
 * deadline, or a poll's half of it (the ranks waiting behind the poller are then told
 * before their own deadline): a sender that dies while its message moves (a
 * shared-memory copy from a process that is gone) is named instead of waited for. */
static int take_message(tdm_rank_link *link, int count, int source, double wait_s, char *why,
                        size_t why_size)
{
    MPI_Request request;
    int code = MPI_Irecv(link->inbox, count, MPI_BYTE, source, MESSAGE_TAG, link->comm, &request);
    double start = now(), limit = wait_s > 0 ? link->timeout_s / 2 : link->timeout_s;
    for (int done = 0; code == MPI_SUCCESS && !done;) {
        code = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (code != MPI_SUCCESS || done)
            break;
        if (now() - start > limit) {
            char text[256];
            snprintf(text, sizeof text,
                     "rank %d: the message of %d bytes from rank %d did not arrive whole "
                     "within %g s (died or stalled)",
                     link->rank, count, source, limit);
            if (wait_s > 0)
                abandon(link, &request, &link->inbox, &link->inbox_bytes,
                        fail(NULL, TDM_ERR_TIMEOUT, why, why_size, "%s", text));
            else
                fail(link, TDM_ERR_TIMEOUT, why, why_size, "%s", text);
            return TAKE_LATE;
        }
        yield_between_tests();
    }
    return code;
}

static tdm_status receive_message(tdm_rank_link *link, size_t from, double wait_s,
                                  const void **bytes, size_t *size, size_t *sender, char *why,
                                  size_t why_size)
{
    if (link->broken != TDM_OK)
        return fail(NULL, link->broken, why, why_size, "%s", link->broken_why);
    *sender = TDM_RANK_ANY; /* known once a message has come */
    int source = from == TDM_RANK_ANY ? MPI_ANY_SOURCE : (int)from, flag = 0, count = 0;
    MPI_Status status;
    double start = now();
    int code = MPI_SUCCESS;
    while (code == MPI_SUCCESS && !flag) {
        code = MPI_Iprobe(source, MESSAGE_TAG, link->comm, &flag, &status);
        double spun = now() - start;
        if (code == MPI_SUCCESS && !flag && wait_s > 0 && spun > wait_s) {
            *bytes = NULL; /* a poll: nothing yet, and nothing is broken */
            *size = 0;
            return TDM_OK;
        }
        if (code == MPI_SUCCESS && !flag && spun > link->timeout_s) {
            char whom[32];
            snprintf(whom, sizeof whom, from == TDM_RANK_ANY ? "any rank" : "rank %zu", from);
            return fail(link, TDM_ERR_TIMEOUT, why, why_size,
                        "rank %d: no message from %s within %g s (died or stalled)", link->rank,
                        whom, link->timeout_s);
        }
        if (!flag)
            pause_after(spun);
    }
    if (code == MPI_SUCCESS)
        code = MPI_Get_count(&status, MPI_BYTE, &count);
    if (code == MPI_SUCCESS && (size_t)count > link->inbox_bytes) {
        unsigned char *grown = realloc(link->inbox, (size_t)count);
        if (!grown)
            return fail(NULL, TDM_ERR_OUT_OF_MEMORY, why, why_size, "out of host memory");
        link->inbox = grown;
        link->inbox_bytes = (size_t)count;
    }
    *sender = (size_t)status.MPI_SOURCE;
    if (code == MPI_SUCCESS)
        code = take_message(link, count, status.MPI_SOURCE, wait_s, why, why_size);
    if (code == TAKE_LATE)
        return TDM_ERR_TIMEOUT;
    if (code != MPI_SUCCESS && wait_s > 0) /* the sender died in it: a poll stays whole */
        return abandon(link, NULL, &link->inbox, &link->inbox_bytes,
                       mpi_fail(NULL, code, "receiving a message", why, why_size));
    if (code != MPI_SUCCESS)
        return mpi_fail(link, code, "receiving a message", why, why_size);
    *bytes = link->inbox;
    *size = (size_t)count;
    *sender = (size_t)status.MPI_SOURCE;
    return TDM_OK;
}

static void close_link(tdm_rank_link *link)
{
    if (!link)
        return;
    if (link->broken == TDM_OK) {
        MPI_Comm_free(&link->comm);
    }
    free(link->received);
    free(link->requests);
    free(link->arrived);
    free(link->completed);
    free(link->scratch);
    free(link->inbox);
    free(link->outbox);
    for (size_t k = 0; k < link->abandoned_count; k++)
        free(link->abandoned[k]);
    free(link->abandoned);
    free(link);
}

TDM_EXPORT const tdm_rank_transport *tdm_rank_transport_v5(void);

const tdm_rank_transport *tdm_rank_transport_v5(void)
{
    static const tdm_rank_transport transport = {
        .version = TDM_RANK_TRANSPORT_VERSION,
        .name = "mpi",
        .open = open_link,
        .announce = announce,
        .all_reduce = all_reduce,
        .broadcast = broadcast,
        .send = send_message,
        .receive = receive_message,
        .close = close_link,
    };
    return &transport;
}
