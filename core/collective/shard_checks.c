/* Argument checks of all-gather, reduce-scatter, reduce to the root and broadcast:
 * each failure names the argument and the function the user called. */
#include <stdint.h>

#include "base/error.h"
#include "collective/collective_impl.h"

#define INVALID TDM_ERR_INVALID_ARGUMENT

static int same_place(const tdm_buffer_view *a, const tdm_buffer_view *b)
{
    return a->buffer == b->buffer && a->offset == b->offset && a->size == b->size;
}

static int overlap(const tdm_buffer_view *a, const tdm_buffer_view *b)
{
    return a->buffer == b->buffer && a->offset < b->offset + b->size &&
           b->offset < a->offset + a->size;
}

/* whole (total * part bytes) against part: on one device, and overlapping only as
 * slice first + i of whole (the in-place layout; first is the job's index of this
 * process's first value). */
static tdm_status check_pair(const tdm_collective_call *call, size_t i, const char *whole_name,
                             const tdm_buffer_view *whole, const char *part_name,
                             const tdm_buffer_view *part, size_t total, size_t first)
{
    const char *f = call->func;
    if (coll_dev(whole) != coll_dev(part))
        return tdm_fail(INVALID,
                        "%s: inputs[%zu] is on %s, outputs[%zu] on %s: each replica's "
                        "output is on its input's device",
                        f, i, coll_dev(&call->inputs[i])->desc.id, i,
                        coll_dev(&call->outputs[i])->desc.id);
    if (part->size > SIZE_MAX / total || whole->size != part->size * total)
        return tdm_fail(INVALID,
                        "%s: %s[%zu] is %zu bytes, %s[%zu] %zu: the first must be "
                        "exactly %zu (replicas) times the second; pad the tensor to a "
                        "multiple of the replica count",
                        f, whole_name, i, whole->size, part_name, i, part->size, total);
    tdm_buffer_view slice = coll_slice(whole, (first + i) * part->size, part->size);
    if (overlap(whole, part) && !same_place(&slice, part))
        return tdm_fail(INVALID,
                        "%s: %s[%zu] overlaps %s[%zu] other than as its slice %zu "
                        "(bytes %zu to %zu, the in-place layout)",
                        f, part_name, i, whole_name, i, first + i, slice.offset,
                        slice.offset + slice.size);
    return TDM_OK;
}

static tdm_status check_common(tdm_collective_call *call, const tdm_collective_options *opts)
{
    const char *f = call->func;
    tdm_status s = coll_check_values(f, "inputs", call->inputs, call->count);
    if (s == TDM_OK)
        s = coll_check_values(f, "outputs", call->outputs, call->count);
    if (s == TDM_OK)
        s = coll_check_options(f, opts, call->count, &call->opts);
    return s;
}

int coll_shard_across_ranks(const tdm_collective_call *call)
{
    return call->opts.ranks && call->opts.ranks->count > 1;
}

tdm_status coll_check_shard_sizes(const tdm_collective_call *call, int gather, size_t total,
                                  size_t first)
{
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < call->count && s == TDM_OK; i++)
        s = gather ? check_pair(call, i, "outputs", &call->outputs[i], "inputs", &call->inputs[i],
                                total, first)
                   : check_pair(call, i, "inputs", &call->inputs[i], "outputs", &call->outputs[i],
                                total, first);
    return s;
}

tdm_status coll_check_root_sizes(const tdm_collective_call *call, size_t total)
{
    const char *f = call->func;
    if (call->root >= total)
        return tdm_fail(INVALID,
                        "%s: root is replica %zu, but the job has %zu replicas (0 to %zu): "
                        "name one of them",
                        f, call->root, total, total - 1);
    for (size_t i = 0; i < call->count; i++) {
        const tdm_buffer_view *in = &call->inputs[i], *out = &call->outputs[i];
        if (coll_dev(in) != coll_dev(out))
            return tdm_fail(INVALID,
                            "%s: inputs[%zu] is on %s, outputs[%zu] on %s: each replica's "
                            "output is on its input's device",
                            f, i, coll_dev(in)->desc.id, i, coll_dev(out)->desc.id);
        if (in->size != out->size)
            return tdm_fail(INVALID,
                            "%s: inputs[%zu] is %zu bytes, outputs[%zu] %zu: sizes must match", f,
                            i, in->size, i, out->size);
        if (overlap(in, out) && !same_place(in, out))
            return tdm_fail(INVALID,
                            "%s: outputs[%zu] overlaps inputs[%zu] without being it: in "
                            "place, the output is the input itself",
                            f, i, i);
    }
    return TDM_OK;
}

tdm_status coll_root_reduce_check(tdm_collective_call *call, const tdm_collective_options *opts)
{
    tdm_status s = coll_check_op(call->func, call->op);
    if (s == TDM_OK)
        s = check_common(call, opts);
    if (s == TDM_OK && !coll_shard_across_ranks(call))
        s = coll_check_root_sizes(call, call->count);
    return s == TDM_OK ? tdm_collective_check_dtype(call->func, call->op, call->opts.dtype) : s;
}

tdm_status coll_root_broadcast_check(tdm_collective_call *call, const tdm_collective_options *opts)
{
    tdm_status s = check_common(call, opts);
    if (s == TDM_OK && !coll_shard_across_ranks(call))
        s = coll_check_root_sizes(call, call->count);
    return s;
}

/* Across processes the job's count of values is known only once the ranks have told
 * each other theirs: the run checks the sizes then (shard_ranks.c). A float16 shard
 * holds whole pairs of halves: views stay multiples of 4 bytes, which
 * coll_check_values checked. */
tdm_status coll_all_gather_check(tdm_collective_call *call, const tdm_collective_options *opts)
{
    tdm_status s = check_common(call, opts);
    if (s == TDM_OK && !coll_shard_across_ranks(call))
        s = coll_check_shard_sizes(call, 1, call->count, 0);
    return s;
}

tdm_status coll_reduce_scatter_check(tdm_collective_call *call, const tdm_collective_options *opts)
{
    tdm_status s = coll_check_op(call->func, call->op);
    if (s == TDM_OK)
        s = check_common(call, opts);
    if (s == TDM_OK && !coll_shard_across_ranks(call))
        s = coll_check_shard_sizes(call, 0, call->count, 0);
    return s == TDM_OK ? tdm_collective_check_dtype(call->func, call->op, call->opts.dtype) : s;
}

tdm_status coll_check_shard_plan(const tdm_collective_call *call, int gather)
{
    tdm_collective_algorithm a = call->opts.algorithm;
    if (gather && a == TDM_COLLECTIVE_TREE)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: TREE folds the partial sums of groups of devices, and an "
                        "all-gather folds nothing: use AUTO, ONE_DEVICE, RING, DIRECT or HOST",
                        call->func);
    for (size_t i = 1; a == TDM_COLLECTIVE_DIRECT && i < call->count; i++)
        for (size_t j = 0; j < i; j++)
            if (!tdm_device_shares_memory(coll_dev(&call->inputs[i]), coll_dev(&call->inputs[j])))
                return tdm_fail(TDM_ERR_UNSUPPORTED,
                                "%s: DIRECT needs devices that share memory; %s and %s do not",
                                call->func, coll_dev(&call->inputs[j])->desc.id,
                                coll_dev(&call->inputs[i])->desc.id);
    return TDM_OK;
}
