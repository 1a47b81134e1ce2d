/* TREE: runs of consecutive values whose devices share memory are reduced on the
 * run's first device by kernels reading the peers in place; the partial of runs
 * 0..g-1 enters run g's reduction as its first input, so the order stays
 * ((v0 + v1) + v2) + ... The last partial is the result. */
#include <stdlib.h>

#include "collective/collective_impl.h"
#include "base/error.h"

/* One past the last value of the run starting at `first`. */
static size_t run_end(const tdm_buffer_view *values, size_t count, size_t first)
{
    size_t end = first + 1;
    while (end < count && tdm_device_shares_memory(coll_dev(&values[first]), coll_dev(&values[end])))
        end++;
    return end;
}

size_t coll_group_count(const tdm_buffer_view *values, size_t count)
{
    size_t groups = 0;
    for (size_t first = 0; first < count; first = run_end(values, count, first))
        groups++;
    return groups;
}

/* The partial as an input on dev: read in place where dev shares its memory (after
 * the work that wrote it), else copied over. */
static tdm_status partial_input(const coll_job *job, tdm_device *dev,
                                const tdm_buffer_view *partial, tdm_buffer_view *out)
{
    *out = *partial;
    if (tdm_device_shares_memory(dev, coll_dev(partial)))
        return coll_order_access(job->order, dev, coll_dev(partial));
    tdm_status s = coll_scratch_view(job->scratch, dev, partial->size, out);
    return s == TDM_OK ? tdm_buffer_copy(out, partial) : s;
}

/* acc = partial (if any) op values[first..end) on the run's first device. */
static tdm_status reduce_run(const coll_job *job, size_t first, size_t end, tdm_buffer_view *in,
                             tdm_buffer_view *acc, int chained)
{
    tdm_device *dev = coll_dev(&job->values[first]);
    size_t n = 0;
    tdm_status s = chained ? partial_input(job, dev, acc, &in[n++]) : TDM_OK;
    for (size_t i = first; i < end && s == TDM_OK; i++) {
        in[n++] = job->values[i];
        s = coll_order_access(job->order, dev, coll_dev(&job->values[i]));
    }
    if (s == TDM_OK)
        s = coll_scratch_view(job->scratch, dev, job->values[0].size, acc);
    return s == TDM_OK ? coll_fold(job, dev, acc, in, n) : s;
}

tdm_status coll_tree(const coll_job *job)
{
    tdm_buffer_view *in = malloc((job->count + 1) * sizeof *in), acc = {0};
    if (!in)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", job->func);
    tdm_status s = TDM_OK;
    for (size_t first = 0, end; first < job->count && s == TDM_OK; first = end) {
        end = run_end(job->values, job->count, first);
        s = reduce_run(job, first, end, in, &acc, first > 0);
    }
    free(in);
    if (s == TDM_OK)
        s = coll_finalize(job, coll_dev(&acc), &acc, job->count);
    return s == TDM_OK ? coll_copy_to_all(&acc, job->dsts, job->dst_count) : s;
}
