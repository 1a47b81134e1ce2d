/* tdm_batch_all_reduce: tensors packed into fewer, larger all-reduces. */
#include <stdlib.h>

#include "collective/collective_impl.h"
#include "base/error.h"

static const char *F = "tdm_batch_all_reduce";

/* Bytes of tensors [0, t). */
static size_t bytes_before(const tdm_buffer_view *values, size_t count, size_t t)
{
    size_t bytes = 0;
    for (size_t i = 0; i < t; i++)
        bytes += values[i * count].size;
    return bytes;
}

/* num_packs: pack p ends at the tensor boundary nearest p / packs of the bytes,
 * leaving every pack at least one tensor. */
static size_t split_even(const tdm_buffer_view *values, size_t tensors, size_t count, size_t packs,
                         size_t *ends)
{
    packs = packs < tensors ? packs : tensors;
    double total = (double)bytes_before(values, count, tensors);
    size_t end = 0;
    for (size_t p = 1; p < packs; p++) {
        double target = total * (double)p / (double)packs;
        size_t best = end + 1;
        for (size_t k = best + 1; k <= tensors - (packs - p); k++) {
            double here = (double)bytes_before(values, count, k);
            double there = (double)bytes_before(values, count, best);
            if ((here > target ? here - target : target - here) <
                (there > target ? there - target : target - there))
                best = k;
        }
        ends[p - 1] = end = best;
    }
    ends[packs - 1] = tensors;
    return packs;
}

/* bytes_per_pack: a new pack starts when the current one would pass the bound. */
static size_t split_greedy(const tdm_buffer_view *values, size_t tensors, size_t count,
                           size_t bound, size_t *ends)
{
    size_t packs = 0, bytes = 0;
    for (size_t t = 0; t < tensors; t++) {
        size_t size = values[t * count].size;
        if (t > 0 && bound && bytes + size > bound) {
            ends[packs++] = t;
            bytes = 0;
        }
        bytes += size;
    }
    ends[packs++] = tensors;
    return packs;
}

/* Fills ends[] (one past each pack's last tensor); returns the number of packs. */
static size_t plan(const tdm_buffer_view *values, size_t tensors, size_t count,
                   const tdm_packing *packing, size_t *ends)
{
    if (!packing) {
        for (size_t t = 0; t < tensors; t++)
            ends[t] = t + 1;
        return tensors;
    }
    if (packing->num_packs)
        return split_even(values, tensors, count, packing->num_packs, ends);
    return split_greedy(values, tensors, count, packing->bytes_per_pack, ends);
}

/* Copies tensors [first, end) of device i into (to_pack) or out of its pack. */
static tdm_status move(const tdm_buffer_view *values, size_t count, size_t first, size_t end,
                       const tdm_buffer_view *packs, int to_pack)
{
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < count && s == TDM_OK; i++)
        for (size_t t = first, at = 0; t < end && s == TDM_OK; t++) {
            const tdm_buffer_view *v = &values[t * count + i];
            tdm_buffer_view p = coll_slice(&packs[i], at, v->size);
            at += v->size;
            if (v->size)
                s = to_pack ? tdm_buffer_copy(&p, v) : tdm_buffer_copy(v, &p);
        }
    return s;
}

/* All-reduces checked views in place, as the batch the user called. */
static tdm_status all_reduce(tdm_reduce_op op, const tdm_buffer_view *views, size_t count,
                             const tdm_collective_options *opts)
{
    tdm_collective_call call = {.kind = TDM_COLL_REDUCE,
                                .func = F,
                                .op = op,
                                .inputs = views,
                                .count = count,
                                .outputs = views,
                                .output_count = count,
                                .opts = *opts};
    return tdm_collective_run(&call);
}

static tdm_status reduce_pack(tdm_reduce_op op, const tdm_buffer_view *values, size_t count,
                              size_t first, size_t end, const tdm_collective_options *opts)
{
    if (end - first == 1) /* nothing to concatenate */
        return all_reduce(op, values + first * count, count, opts);
    size_t bytes = bytes_before(values, count, end) - bytes_before(values, count, first);
    coll_scratch scratch = {0};
    tdm_buffer_view *packs = malloc(count * sizeof *packs);
    tdm_status s = packs ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", F);
    for (size_t i = 0; i < count && s == TDM_OK && bytes; i++)
        s = coll_scratch_view(&scratch, coll_dev(&values[i]), bytes, &packs[i]);
    if (s == TDM_OK && bytes)
        s = move(values, count, first, end, packs, 1);
    if (s == TDM_OK && bytes)
        s = all_reduce(op, packs, count, opts);
    if (s == TDM_OK && bytes)
        s = move(values, count, first, end, packs, 0);
    coll_scratch_release(&scratch);
    free(packs);
    return s;
}

/* Every tensor checked like tdm_all_reduce's values, on the same devices as tensor 0,
 * and the options with the dtype: once, here, for every pack. */
static tdm_status check(tdm_reduce_op op, const tdm_buffer_view *values, size_t tensors,
                        size_t count, const tdm_packing *packing)
{
    tdm_status s = coll_check_op(F, op);
    if (s == TDM_OK && !values)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument 'values' is NULL", F);
    if (s == TDM_OK && tensors == 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument 'tensors' is 0", F);
    if (s == TDM_OK && packing && packing->size != sizeof *packing)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: packing->size is %zu, expected %zu "
                        "(use TDM_PACKING_INIT)",
                        F, packing->size, sizeof *packing);
    for (size_t t = 0; t < tensors && s == TDM_OK; t++) {
        s = coll_check_values(F, "values", values + t * count, count);
        for (size_t i = 0; i < count && s == TDM_OK; i++)
            if (coll_dev(&values[t * count + i]) != coll_dev(&values[i]))
                return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                                "%s: values[%zu] is on %s, but "
                                "values[%zu] on %s: device i must hold every tensor's value i",
                                F, t * count + i, coll_dev(&values[t * count + i])->desc.id, i,
                                coll_dev(&values[i])->desc.id);
    }
    return s;
}

tdm_status tdm_batch_all_reduce(tdm_reduce_op op, const tdm_buffer_view *values, size_t tensors,
                                size_t count, const tdm_packing *packing,
                                const tdm_collective_options *opts)
{
    tdm_collective_options o;
    tdm_status s = check(op, values, tensors, count, packing);
    if (s == TDM_OK)
        s = coll_check_options(F, opts, count, &o);
    if (s == TDM_OK)
        s = tdm_collective_check_dtype(F, op, o.dtype);
    size_t *ends = s == TDM_OK ? malloc(tensors * sizeof *ends) : NULL;
    if (s == TDM_OK && !ends)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", F);
    size_t packs = s == TDM_OK ? plan(values, tensors, count, packing, ends) : 0;
    for (size_t p = 0, first = 0; p < packs && s == TDM_OK; first = ends[p++])
        s = reduce_pack(op, values, count, first, ends[p], &o);
    free(ends);
    return s;
}
