/* The processes of a multi-worker job: the transport plugin, loaded on first use,
 * and collectives that announce themselves before their data moves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/library.h"
#include "collective/ranks.h"
#include "platform/tdm_files.h"
#include "platform/tdm_host.h"

static char plugin_path[4096];
static tdm_library plugin = TDM_LIBRARY_INIT(plugin_path);
static const tdm_rank_transport *transport;
static tdm_once path_once = TDM_ONCE_INIT;

/* TDM_MPI_LIBRARY, else the plugin beside the object this code is linked into (the
 * installed libtandem.so, or a program of the build tree), else the search path. */
static void choose_path(void)
{
    const char *env = getenv("TDM_MPI_LIBRARY");
    const char *file = tdm_dynlib_file("tandem_mpi");
    char self[sizeof plugin_path];
    snprintf(plugin_path, sizeof plugin_path, "%s", file);
    if (env && env[0]) {
        snprintf(plugin_path, sizeof plugin_path, "%s", env);
    } else if (tdm_dynlib_file_of((const void *)choose_path, self, sizeof self)) {
        const char *base = tdm_path_base_name(self);
        char beside[sizeof plugin_path];
        if (base > self &&
            snprintf(beside, sizeof beside, "%.*s%s", (int)(base - self), self, file) <
                (int)sizeof beside &&
            tdm_path_readable(beside))
            snprintf(plugin_path, sizeof plugin_path, "%s", beside);
    }
}

/* What to do where the plugin is missing. */
#ifdef _WIN32
#define TRANSPORT_HINT "jobs of processes need the Linux build for now"
#else
#define TRANSPORT_HINT "build tandem with Open MPI, libopenmpi-dev, for libtandem_mpi"
#endif

static int resolve(tdm_library *lib)
{
    tdm_rank_transport_entry entry = NULL;
    int found = 1;
    TDM_LIBRARY_FETCH(lib, entry, TDM_RANK_TRANSPORT_ENTRY, found);
    transport = found ? entry() : NULL;
    if (transport && transport->version != TDM_RANK_TRANSPORT_VERSION) {
        snprintf(lib->note, sizeof lib->note, "%s is transport version %u, this tandem needs %u",
                 tdm_dynlib_file(lib->name), transport->version, TDM_RANK_TRANSPORT_VERSION);
        transport = NULL;
    }
    return transport != NULL;
}

static int transport_loaded(void)
{
    tdm_once_run(&path_once, choose_path);
    return tdm_library_load(&plugin, resolve);
}

static char support_text[sizeof plugin.note + 128];
static tdm_once support_once = TDM_ONCE_INIT;

static void describe_support(void)
{
    if (transport_loaded())
        snprintf(support_text, sizeof support_text, "%s (transport version %u)", plugin.note,
                 TDM_RANK_TRANSPORT_VERSION);
    else
        snprintf(support_text, sizeof support_text, "no transport between processes: %s (%s)",
                 plugin.note, TRANSPORT_HINT);
}

tdm_status tdm_multi_process_support(const char **message)
{
    if (!message)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_multi_process_support: message is NULL");
    tdm_once_run(&support_once, describe_support);
    *message = support_text;
    if (!plugin.loaded)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "tdm_multi_process_support: %s", support_text);
    return TDM_OK;
}

tdm_status tdm_ranks_open(double timeout_s, int check_order, const char *func, tdm_ranks **out)
{
    *out = NULL;
    if (!transport_loaded())
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s: no transport between processes: %s (%s)", func,
                        plugin.note, TRANSPORT_HINT);
    tdm_ranks *r = calloc(1, sizeof *r);
    if (!r || tdm_mutex_init(&r->lock)) {
        free(r);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    }
    char why[1024];
    tdm_status s =
        transport->open(timeout_s, check_order, &r->link, &r->rank, &r->count, why, sizeof why);
    if (s != TDM_OK) {
        tdm_mutex_destroy(&r->lock);
        free(r);
        return tdm_fail(s, "%s: %s", func, why);
    }
    r->transport = transport;
    r->check_order = check_order;
    *out = r;
    return TDM_OK;
}

tdm_status tdm_ranks_send(tdm_ranks *r, size_t to, const void *bytes, size_t size, int keep_link,
                          const char *what)
{
    char why[1024];
    tdm_status s = r->transport->send(r->link, to, bytes, size, keep_link, why, sizeof why);
    return s == TDM_OK ? s : tdm_fail(s, "%s: %s", what, why);
}

tdm_status tdm_ranks_receive(tdm_ranks *r, size_t from, double wait_s, const void **bytes,
                             size_t *size, size_t *sender, const char *what)
{
    char why[1024];
    tdm_status s =
        r->transport->receive(r->link, from, wait_s, bytes, size, sender, why, sizeof why);
    return s == TDM_OK ? s : tdm_fail(s, "%s: %s", what, why);
}

/* Every rank announces its goodbye within the deadline, or the link is left broken:
 * MPI's finalisation at exit waits for every rank, and one that died (that this
 * process never exchanged with: another worker of a parameter-server job) would hold
 * it forever. The thread's last error is left alone. */
static void say_goodbye(tdm_ranks *r)
{
    if (r->count < 2)
        return;
    tdm_rank_call call = {.seq = r->next_seq++, .kind = TDM_RANK_CLOSE}, agreed;
    char why[512];
    r->transport->announce(r->link, &call, &agreed, why, sizeof why);
}

void tdm_ranks_close(tdm_ranks *r)
{
    if (!r)
        return;
    say_goodbye(r);
    r->transport->close(r->link);
    tdm_host_aligned_free(r->slots);
    tdm_mutex_destroy(&r->lock);
    free(r);
}

/* A collective that failed; a rank missing from it is named with its role too. Every
 * rank of a job's collectives is a worker (a parameter-server job's one collective is
 * its goodbye, whose failure is never reported). */
static tdm_status collective_failed(const tdm_ranks *r, tdm_status s, const char *why)
{
    if (s == TDM_ERR_TIMEOUT && r->count == 2)
        return tdm_fail(s, "%s; rank 0 is the chief, rank 1 the other worker", why);
    if (s == TDM_ERR_TIMEOUT)
        return tdm_fail(s, "%s; rank 0 is the chief, ranks 1 to %zu the other workers", why,
                        r->count - 1);
    return tdm_fail(s, "%s", why);
}

tdm_status tdm_ranks_begin(tdm_ranks *r, uint32_t kind, tdm_fold_op op, uint64_t bytes,
                           uint64_t contributors, uint64_t chunk, const char *what,
                           tdm_ranks_call *out)
{
    tdm_mutex_lock(&r->lock);
    *out = (tdm_ranks_call){.ranks = r,
                            .call = {.seq = r->next_seq++,
                                     .kind = kind,
                                     .op = op,
                                     .bytes = bytes,
                                     .contributors = contributors,
                                     .chunk = chunk}};
    if (r->check_order)
        snprintf(out->call.what, sizeof out->call.what, "%s", what);
    char why[1024];
    tdm_status s = r->transport->announce(r->link, &out->call, &out->agreed, why, sizeof why);
    if (s != TDM_OK) {
        tdm_mutex_unlock(&r->lock);
        return collective_failed(r, s, why);
    }
    return TDM_OK;
}

_Static_assert((int)TDM_FOLD_SUM == TDM_RANK_FOLD_SUM && (int)TDM_FOLD_MAX == TDM_RANK_FOLD_MAX &&
                   (int)TDM_FOLD_MIN == TDM_RANK_FOLD_MIN &&
                   (int)TDM_FOLD_SUM_F16 == TDM_RANK_FOLD_SUM_F16,
               "the contract's fold codes are the host fold's");

/* The transport folds with the host fold, whose bits are every plan's. */
static void fold_earlier(uint32_t op, float *acc, const float *earlier, size_t n)
{
    tdm_fold_floats((tdm_fold_op)op, acc, earlier, n, 1);
}

tdm_status tdm_ranks_all_reduce(tdm_ranks_call *c, float *floats, size_t n)
{
    char why[1024];
    tdm_ranks *r = c->ranks;
    tdm_status s =
        r->transport->all_reduce(r->link, floats, n, fold_earlier, &c->call, why, sizeof why);
    return s == TDM_OK ? TDM_OK : collective_failed(r, s, why);
}

tdm_status tdm_ranks_broadcast(tdm_ranks_call *c, void *bytes, size_t size, size_t root)
{
    char why[1024];
    tdm_ranks *r = c->ranks;
    tdm_status s = r->transport->broadcast(r->link, bytes, size, root, &c->call, why, sizeof why);
    return s == TDM_OK ? TDM_OK : collective_failed(r, s, why);
}

void tdm_ranks_end(tdm_ranks_call *c)
{
    tdm_mutex_unlock(&c->ranks->lock);
}

float *tdm_ranks_slots(tdm_ranks *r, size_t bytes)
{
    if (bytes <= r->slot_bytes)
        return r->slots;
    float *grown = tdm_host_aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!grown)
        return NULL;
    tdm_host_aligned_free(r->slots);
    r->slots = grown;
    r->slot_bytes = bytes;
    return grown;
}

tdm_status tdm_ranks_reduce_floats(tdm_ranks *r, tdm_fold_op op, float *floats, size_t n,
                                   const char *what)
{
    tdm_ranks_call call;
    tdm_status s =
        tdm_ranks_begin(r, TDM_RANK_ALL_REDUCE, op, n * sizeof *floats, 1, 0, what, &call);
    if (s == TDM_OK) {
        s = tdm_ranks_all_reduce(&call, floats, n);
        tdm_ranks_end(&call);
    }
    return s;
}

tdm_status tdm_ranks_broadcast_from(tdm_ranks *r, size_t root, void *bytes, size_t size,
                                    const char *what)
{
    tdm_ranks_call call;
    tdm_status s = tdm_ranks_begin(r, TDM_RANK_BROADCAST, TDM_FOLD_SUM, size, 1, 0, what, &call);
    if (s == TDM_OK) {
        s = tdm_ranks_broadcast(&call, bytes, size, root);
        tdm_ranks_end(&call);
    }
    return s;
}

tdm_status tdm_ranks_broadcast_bytes(tdm_ranks *r, void *bytes, size_t size, const char *what)
{
    return tdm_ranks_broadcast_from(r, 0, bytes, size, what);
}
