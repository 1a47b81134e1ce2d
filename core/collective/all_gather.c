/* All-gather: every output receives every input at its replica's slice. Nothing is
 * folded, so every plan gives the same bytes; the plans differ in how data moves:
 *   ONE_DEVICE  every input copied into one output (reduce_on's, else replica 0's),
 *               that output copied to every other;
 *   RING        count - 1 steps; in step k, output j hands slice (j - k) mod count,
 *               which it received in the step before, to output j + 1;
 *   DIRECT      devices that share memory: each output pulls every input directly;
 *   HOST        each input read to the host once, the concatenation written to every
 *               output once (devices that cannot reach each other);
 *   TREE        refused: its groups fold partial sums, and an all-gather has none.
 * AUTO: DIRECT where all share memory, RING where every pair copies directly, else
 * HOST. Copies order themselves (docs/modules/collective.md, "Ordering rules" 3), so
 * no plan needs events of its own. */
#include <stdlib.h>

#include "base/error.h"
#include "collective/collective_impl.h"

static tdm_buffer_view slot(const tdm_collective_call *call, size_t j, size_t i)
{
    size_t n = call->inputs[0].size;
    return coll_slice(&call->outputs[j], i * n, n);
}

/* Input i into output j's slice i, unless it is already there (in place). */
static tdm_status place(const tdm_collective_call *call, size_t j, size_t i)
{
    tdm_buffer_view dst = slot(call, j, i);
    if (dst.buffer == call->inputs[i].buffer && dst.offset == call->inputs[i].offset)
        return TDM_OK;
    return tdm_buffer_copy(&dst, &call->inputs[i]);
}

static tdm_status gather_one_device(const tdm_collective_call *call)
{
    size_t root = call->opts.reduce_on >= 0 ? (size_t)call->opts.reduce_on : 0;
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < call->count && s == TDM_OK; i++)
        s = place(call, root, i);
    return s == TDM_OK ? coll_copy_to_all(&call->outputs[root], call->outputs, call->count) : s;
}

static tdm_status gather_ring(const tdm_collective_call *call)
{
    size_t r = call->count;
    tdm_status s = TDM_OK;
    for (size_t j = 0; j < r && s == TDM_OK; j++)
        s = place(call, j, j);
    for (size_t k = 0; k + 1 < r && s == TDM_OK; k++)
        for (size_t j = 0; j < r && s == TDM_OK; j++) {
            size_t i = (j + r - k) % r, next = (j + 1) % r;
            tdm_buffer_view src = slot(call, j, i), dst = slot(call, next, i);
            s = tdm_buffer_copy(&dst, &src);
        }
    return s;
}

static tdm_status gather_direct(const tdm_collective_call *call)
{
    tdm_status s = TDM_OK;
    for (size_t j = 0; j < call->count && s == TDM_OK; j++)
        for (size_t i = 0; i < call->count && s == TDM_OK; i++)
            s = place(call, j, i);
    return s;
}

/* Blocking reads see every earlier operation on the input's device; the writes are
 * ordered after earlier operations on the output's. An in-place output gets its own
 * bytes back. */
static tdm_status gather_host(const tdm_collective_call *call)
{
    size_t n = call->inputs[0].size, total = n * call->count;
    unsigned char *all = malloc(total);
    if (!all)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: %zu bytes of host memory to gather through",
                        call->func, total);
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < call->count && s == TDM_OK; i++)
        s = tdm_buffer_read(call->inputs[i].buffer, call->inputs[i].offset, all + i * n, n);
    for (size_t j = 0; j < call->count && s == TDM_OK; j++)
        s = tdm_buffer_write(call->outputs[j].buffer, call->outputs[j].offset, all, total);
    free(all);
    return s;
}

static tdm_status gather_plan(const tdm_collective_call *call, tdm_collective_algorithm algorithm)
{
    switch (algorithm) {
    case TDM_COLLECTIVE_AUTO: break;
    case TDM_COLLECTIVE_ONE_DEVICE: return gather_one_device(call);
    case TDM_COLLECTIVE_RING: return gather_ring(call);
    case TDM_COLLECTIVE_DIRECT: return gather_direct(call);
    case TDM_COLLECTIVE_HOST: return gather_host(call);
    case TDM_COLLECTIVE_TREE: break; /* refused by coll_all_gather_run */
    }
    if (coll_all_share(call->inputs, call->count))
        return gather_direct(call);
    return coll_all_copy_directly(call->inputs, call->count) ? gather_ring(call)
                                                             : gather_host(call);
}

tdm_status coll_all_gather_run(const tdm_collective_call *call)
{
    tdm_status s = coll_check_shard_plan(call, 1);
    if (s == TDM_OK && coll_shard_across_ranks(call))
        return coll_all_gather_ranks(call);
    if (s != TDM_OK || call->inputs[0].size == 0)
        return s;
    return gather_plan(call, call->opts.algorithm);
}
