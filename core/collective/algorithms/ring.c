/* RING: reduce-scatter then all-gather. The tensor is cut into count slices (the
 * last one shorter, trailing ones possibly empty); device i reduces slice i of
 * every value, then every destination gathers all the reduced slices. */
#include <stdlib.h>

#include "collective/collective_impl.h"
#include "base/error.h"

static coll_part slice_of(const coll_job *job, size_t i)
{
    return coll_part_of(job->values[0].size, job->count, i);
}

/* out = slice i of every value, reduced on value i's device. */
static tdm_status reduce_slice(const coll_job *job, size_t i, tdm_buffer_view *in,
                               tdm_buffer_view *out)
{
    tdm_device *dev = coll_dev(&job->values[i]);
    coll_part sl = slice_of(job, i);
    tdm_status s = TDM_OK;
    for (size_t j = 0; j < job->count && s == TDM_OK; j++) {
        tdm_buffer_view part = coll_slice(&job->values[j], sl.offset, sl.size);
        in[j] = part;
        if (j != i) {
            s = coll_scratch_view(job->scratch, dev, sl.size, &in[j]);
            if (s == TDM_OK)
                s = tdm_buffer_copy(&in[j], &part);
        }
    }
    if (s == TDM_OK)
        s = coll_scratch_view(job->scratch, dev, sl.size, out);
    if (s == TDM_OK)
        s = coll_fold(job, dev, out, in, job->count);
    return s == TDM_OK ? coll_finalize(job, dev, out, job->count) : s;
}

static tdm_status gather(const coll_job *job, const tdm_buffer_view *reduced)
{
    tdm_status s = TDM_OK;
    for (size_t d = 0; d < job->dst_count && s == TDM_OK; d++)
        for (size_t i = 0; i < job->count && s == TDM_OK; i++) {
            coll_part sl = slice_of(job, i);
            tdm_buffer_view dst = coll_slice(&job->dsts[d], sl.offset, sl.size);
            if (sl.size)
                s = tdm_buffer_copy(&dst, &reduced[i]);
        }
    return s;
}

tdm_status coll_ring(const coll_job *job)
{
    tdm_buffer_view *in = malloc(2 * job->count * sizeof *in), *reduced = in + job->count;
    if (!in)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", job->func);
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < job->count && s == TDM_OK; i++)
        if (slice_of(job, i).size)
            s = reduce_slice(job, i, in, &reduced[i]);
    /* Each value's slices were copied out before the gather writes it: a copy runs
     * after the source's earlier work and holds back its later work. */
    if (s == TDM_OK)
        s = gather(job, reduced);
    free(in);
    return s;
}
