/* What a multi-worker strategy does across its processes beyond the collectives:
 * learning every process's replica count, and giving every process the chief's
 * values. */
#include <stdlib.h>
#include <string.h>

#include "device/device_status.h"
#include "base/error.h"
#include "collective/ranks.h"
#include "distribute/strategy_impl.h"

tdm_status tdm_strategy_count_replicas(tdm_strategy *s, const char *func)
{
    tdm_ranks *r = s->ranks;
    float *counts = calloc(r->count, sizeof *counts); /* exact: far below 2^24 */
    if (!counts)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    counts[r->rank] = (float)s->replica_count;
    tdm_status st = tdm_ranks_reduce_floats(r, TDM_FOLD_SUM, counts, r->count, func);
    if (st == TDM_OK) {
        s->first_replica = s->global_replicas = 0;
        for (size_t i = 0; i < r->count; i++) {
            s->first_replica += i < r->rank ? (size_t)counts[i] : 0;
            s->global_replicas += (size_t)counts[i];
            s->uneven_workers |= (size_t)counts[i] != s->replica_count;
        }
    }
    free(counts);
    return st == TDM_OK ? TDM_OK : tdm_fail_context(st, "%s", func);
}

static tdm_status read_view(const tdm_buffer_view *v, void *host)
{
    tdm_device *dev = v->buffer->device;
    return tdm_device_result(dev,
                             dev->ops->read(v->buffer, v->buffer->impl, v->offset, host, v->size));
}

static tdm_status write_view(const tdm_buffer_view *v, const void *host)
{
    tdm_device *dev = v->buffer->device;
    return tdm_device_result(dev,
                             dev->ops->write(v->buffer, v->buffer->impl, v->offset, host, v->size));
}

tdm_status tdm_strategy_broadcast_from_chief(tdm_strategy *s, const tdm_buffer_view *copies,
                                             size_t count, const char *what)
{
    tdm_ranks *r = s->ranks;
    if (!r || r->count < 2 || count == 0 || copies[0].size == 0)
        return TDM_OK;
    size_t size = copies[0].size;
    unsigned char *host = malloc(size);
    if (!host)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", what);
    /* A chief that cannot read its copy fails here; the others then time out naming it. */
    tdm_status st = r->rank == 0 ? read_view(&copies[0], host) : TDM_OK;
    if (st == TDM_OK)
        st = tdm_ranks_broadcast_bytes(r, host, size, what);
    /* The chief's copies already hold these values. */
    for (size_t i = 0; st == TDM_OK && r->rank != 0 && i < count; i++)
        st = write_view(&copies[i], host);
    free(host);
    return st == TDM_OK ? TDM_OK : tdm_fail_context(st, "%s", what);
}

/* Every rank learns which ranks' copies differ from the chief's, and where: entry r
 * of `where` is rank r's first differing element + 1, or 0. */
static tdm_status compare_with_chief(tdm_ranks *r, const float *mine, size_t n, float *where,
                                     const char *what)
{
    float *chief = malloc(n * sizeof *chief);
    if (!chief)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", what);
    memcpy(chief, mine, n * sizeof *chief);
    tdm_status st = tdm_ranks_broadcast_bytes(r, chief, n * sizeof *chief, what);
    size_t e = 0;
    while (st == TDM_OK && e < n && !memcmp(&chief[e], &mine[e], sizeof *chief))
        e++;
    free(chief);
    memset(where, 0, r->count * sizeof *where);
    where[r->rank] = e < n ? (float)(e + 1) : 0.0f; /* exact below 2^24 elements */
    return st == TDM_OK ? tdm_ranks_reduce_floats(r, TDM_FOLD_MAX, where, r->count, what) : st;
}

tdm_status tdm_variable_check_across_ranks(const tdm_variable *var, const char *func)
{
    tdm_ranks *r = var->strategy->ranks;
    if (!r || r->count < 2 || var->count == 0)
        return TDM_OK;
    tdm_buffer_view first = tdm_tensor_view(var->copies[0]);
    float *mine = malloc(first.size), *where = malloc(r->count * sizeof *where);
    tdm_status st = mine && where ? read_view(&first, mine)
                                  : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    /* Compared as 4-byte words: an int64 element is two. */
    size_t words_per = tdm_dtype_size(var->dtype) / sizeof(float);
    if (st == TDM_OK)
        st = compare_with_chief(r, mine, var->count * words_per, where, func);
    for (size_t k = 1; st == TDM_OK && k < r->count; k++)
        if (where[k] > 0)
            st = tdm_fail(TDM_ERR_INVALID_STATE,
                          "%s: variable '%s' differs between processes: rank %zu's copy differs "
                          "from the chief's first at element %zu",
                          func, var->name, k, ((size_t)where[k] - 1) / words_per);
    free(mine);
    free(where);
    return st;
}

tdm_status tdm_strategy_broadcast_host(tdm_strategy *s, void *bytes, size_t size)
{
    static const char func[] = "tdm_strategy_broadcast_host";
    TDM_CHECK_ARG(s, func);
    if (size)
        TDM_CHECK_ARG(bytes, func);
    tdm_ranks *r = s->ranks;
    if (!r || r->count < 2 || size == 0)
        return TDM_OK;
    tdm_status st = tdm_ranks_broadcast_bytes(r, bytes, size, func);
    return st == TDM_OK ? TDM_OK : tdm_fail_context(st, "%s", func);
}
