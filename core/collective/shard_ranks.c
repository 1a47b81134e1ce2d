/* All-gather, reduce-scatter, reduce to the root and broadcast across the processes
 * of a multi-worker job. The ranks first tell each other how many values each holds
 * (the job's replica order is rank order, then each rank's own), which fixes the
 * shard sizes, this rank's first index and the root's rank; then:
 *   reduce-scatter: the whole input is all-reduced across the ranks into scratch
 *                   beside value 0 (the ranks plan, algorithms/across_ranks.c), and each
 *                   value's shard copied out: the all-reduce's bits, by construction;
 *   reduce:         the same all-reduce into scratch, copied to the root's output
 *                   by the rank that holds it;
 *   all-gather:     each rank reads its values to the host, every rank's block is
 *                   broadcast from its owner, and the whole written to every output;
 *   broadcast:      the root's rank reads its input to the host, broadcasts it, and
 *                   every rank writes it to each of its outputs.
 * For reduce and broadcast the ranks tell each other their root as well, and every
 * rank fails alike where one names another.
 * Simple rather than bandwidth-optimal: the scatter and the reduce move the whole
 * tensor across the ranks, as an all-reduce does. */
#include <stdlib.h>

#include "base/error.h"
#include "collective/collective_impl.h"

enum { GATHER, SCATTER, ROOT };

/* roots[p]: rank p's root; the first rank naming another than rank 0's fails every
 * rank with the same message, as replicas of one process naming two roots do. */
static tdm_status check_roots(const tdm_collective_call *call, const float *roots, size_t ranks)
{
    for (size_t p = 1; p < ranks; p++)
        if (roots[p] != roots[0])
            return tdm_fail(TDM_ERR_INVALID_STATE,
                            "%s: rank 0 named root %zu, rank %zu root %zu: every replica must "
                            "name the same root",
                            call->func, (size_t)roots[0], p, (size_t)roots[p]);
    return TDM_OK;
}

/* Every rank's count of values (and for ROOT its root, after the counts); this rank's
 * first index and the job's total; then the sizes checked against that total
 * (`kind`: GATHER, SCATTER or ROOT). Counts and roots are replica ids: exact floats. */
static tdm_status layout(const tdm_collective_call *call, int kind, float **counts, size_t *first,
                         size_t *total)
{
    tdm_ranks *r = call->opts.ranks;
    size_t n = kind == ROOT ? 2 * r->count : r->count;
    float *c = calloc(n, sizeof *c);
    if (!c)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", call->func);
    c[r->rank] = (float)call->count;
    if (kind == ROOT)
        c[r->count + r->rank] = (float)call->root;
    tdm_status s = tdm_ranks_reduce_floats(r, TDM_FOLD_SUM, c, n, call->func);
    *first = *total = 0;
    for (size_t i = 0; i < r->count && s == TDM_OK; i++) {
        *first += i < r->rank ? (size_t)c[i] : 0;
        *total += (size_t)c[i];
    }
    if (s != TDM_OK)
        s = tdm_fail_context(s, "%s", call->func);
    else if (kind != ROOT)
        s = coll_check_shard_sizes(call, kind == GATHER, *total, *first);
    else if ((s = check_roots(call, c + r->count, r->count)) == TDM_OK)
        s = coll_check_root_sizes(call, *total);
    if (s != TDM_OK)
        free(c);
    else
        *counts = c;
    return s;
}

tdm_status coll_all_gather_ranks(const tdm_collective_call *call)
{
    float *counts = NULL;
    size_t first, total, n = call->inputs[0].size;
    tdm_status s = layout(call, GATHER, &counts, &first, &total);
    if (s != TDM_OK)
        return s;
    unsigned char *all = n ? malloc(total * n) : NULL;
    if (n && !all)
        s = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: %zu bytes of host memory to gather through",
                     call->func, total * n);
    for (size_t i = 0; all && i < call->count && s == TDM_OK; i++)
        s = tdm_buffer_read(call->inputs[i].buffer, call->inputs[i].offset, all + (first + i) * n,
                            n);
    tdm_ranks *r = call->opts.ranks;
    for (size_t p = 0, at = 0; all && p < r->count && s == TDM_OK; at += (size_t)counts[p++]) {
        tdm_ranks_call rc;
        size_t bytes = (size_t)counts[p] * n;
        s = tdm_ranks_begin(r, TDM_RANK_BROADCAST, TDM_FOLD_SUM, bytes, call->count, 0, call->func,
                            &rc);
        if (s == TDM_OK) {
            s = tdm_ranks_broadcast(&rc, all + at * n, bytes, p);
            tdm_ranks_end(&rc);
        }
        if (s != TDM_OK)
            s = tdm_fail_context(s, "%s", call->func);
    }
    for (size_t j = 0; all && j < call->count && s == TDM_OK; j++)
        s = tdm_buffer_write(call->outputs[j].buffer, call->outputs[j].offset, all, total * n);
    free(all);
    free(counts);
    return s;
}

/* The whole of value 0 copied to scratch and all-reduced there with this rank's
 * other values and every other rank's. */
static tdm_status all_reduce_whole(const tdm_collective_call *call, coll_scratch *scratch,
                                   tdm_buffer_view *acc)
{
    tdm_buffer_view *values = malloc(call->count * sizeof *values);
    if (!values)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", call->func);
    tdm_status s =
        coll_scratch_view(scratch, coll_dev(&call->inputs[0]), call->inputs[0].size, acc);
    if (s == TDM_OK)
        s = tdm_buffer_copy(acc, &call->inputs[0]);
    values[0] = *acc;
    for (size_t i = 1; i < call->count; i++)
        values[i] = call->inputs[i];
    coll_order order;
    coll_job job = {.func = call->func,
                    .op = call->op,
                    .dtype = call->opts.dtype,
                    .values = values,
                    .count = call->count,
                    .dsts = acc,
                    .dst_count = 1,
                    .reduce_on = -1,
                    .scratch = scratch,
                    .order = &order,
                    .algorithm = call->opts.algorithm,
                    .ranks = call->opts.ranks};
    /* No caller's ready events: the host must wait for the copy above too. */
    if (s == TDM_OK && (s = coll_order_init(&order, &job, NULL)) == TDM_OK) {
        s = coll_ranks(&job);
        tdm_status settled = coll_order_settle(&order);
        coll_order_free(&order);
        s = s != TDM_OK ? s : settled;
    }
    free(values);
    return s;
}

tdm_status coll_reduce_scatter_ranks(const tdm_collective_call *call)
{
    float *counts = NULL;
    size_t first, total, n = call->outputs[0].size;
    tdm_status s = layout(call, SCATTER, &counts, &first, &total);
    free(counts);
    if (s != TDM_OK || n == 0)
        return s;
    coll_scratch scratch = {0};
    tdm_buffer_view acc;
    s = all_reduce_whole(call, &scratch, &acc);
    for (size_t i = 0; i < call->count && s == TDM_OK; i++) {
        tdm_buffer_view shard = coll_slice(&acc, (first + i) * n, n);
        s = tdm_buffer_copy(&call->outputs[i], &shard);
    }
    coll_scratch_release(&scratch);
    return s;
}

tdm_status coll_root_reduce_ranks(const tdm_collective_call *call)
{
    float *counts = NULL;
    size_t first, total;
    tdm_status s = layout(call, ROOT, &counts, &first, &total);
    free(counts);
    if (s != TDM_OK || call->inputs[0].size == 0)
        return s;
    coll_scratch scratch = {0};
    tdm_buffer_view acc;
    s = all_reduce_whole(call, &scratch, &acc);
    if (s == TDM_OK && call->root >= first && call->root < first + call->count)
        s = tdm_buffer_copy(&call->outputs[call->root - first], &acc);
    coll_scratch_release(&scratch);
    return s;
}

tdm_status coll_root_broadcast_ranks(const tdm_collective_call *call)
{
    float *counts = NULL;
    size_t first, total, n = call->inputs[0].size;
    tdm_status s = layout(call, ROOT, &counts, &first, &total);
    if (s != TDM_OK || n == 0) {
        free(counts);
        return s;
    }
    size_t owner = 0;
    for (size_t at = (size_t)counts[0]; at <= call->root; at += (size_t)counts[++owner])
        ;
    free(counts);
    unsigned char *bytes = malloc(n);
    if (!bytes)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: %zu bytes of host memory to broadcast through",
                        call->func, n);
    int mine = call->root >= first && call->root < first + call->count;
    const tdm_buffer_view *src = mine ? &call->inputs[call->root - first] : NULL;
    if (mine)
        s = tdm_buffer_read(src->buffer, src->offset, bytes, n);
    tdm_ranks_call rc;
    if (s == TDM_OK) {
        s = tdm_ranks_begin(call->opts.ranks, TDM_RANK_BROADCAST, TDM_FOLD_SUM, n, call->count, 0,
                            call->func, &rc);
        if (s == TDM_OK) {
            s = tdm_ranks_broadcast(&rc, bytes, n, owner);
            tdm_ranks_end(&rc);
        }
        if (s != TDM_OK)
            s = tdm_fail_context(s, "%s", call->func);
    }
    for (size_t j = 0; j < call->count && s == TDM_OK; j++)
        s = tdm_buffer_write(call->outputs[j].buffer, call->outputs[j].offset, bytes, n);
    free(bytes);
    return s;
}
