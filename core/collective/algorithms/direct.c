/* DIRECT: every device shares memory with every other (one OpenCL context, host
 * memory). The tensor is cut into one part per value; value i's device folds part
 * i of every value and writes it to every destination, in one pass where the
 * kernels allow, reading and writing its peers' memory in place (events order
 * that: collective_order.c). Destinations it cannot reach get copies. With
 * reduce_on, that one device folds everything. */
#include <stdint.h>
#include <stdlib.h>

#include "collective/collective_impl.h"
#include "base/error.h"

static tdm_status check_shared(const coll_job *job, tdm_device *dev)
{
    for (size_t i = 0; i < job->count; i++)
        if (!tdm_device_shares_memory(dev, coll_dev(&job->values[i])))
            return tdm_fail(TDM_ERR_UNSUPPORTED,
                            "%s: DIRECT needs devices that share memory; "
                            "%s and %s do not",
                            job->func, dev->desc.id, coll_dev(&job->values[i])->desc.id);
    return TDM_OK;
}

static int reaches_all(const coll_job *job, tdm_device *dev)
{
    for (size_t d = 0; d < job->dst_count; d++)
        if (!tdm_device_shares_memory(dev, coll_dev(&job->dsts[d])))
            return 0;
    return 1;
}

/* dev folds the part of every value into every destination it reaches; the others
 * get copies of a result on dev itself (a staged read runs after dev's work), in
 * scratch if no reached destination is on dev. */
static tdm_status fold_part(const coll_job *job, tdm_device *dev, coll_part part,
                            tdm_buffer_view *in, tdm_buffer_view *out)
{
    size_t reached = 0, source = SIZE_MAX;
    tdm_status s = TDM_OK;
    for (size_t j = 0; j < job->count && s == TDM_OK; j++) {
        in[j] = coll_slice(&job->values[j], part.offset, part.size);
        s = coll_order_access(job->order, dev, coll_dev(&job->values[j]));
    }
    for (size_t d = 0; d < job->dst_count && s == TDM_OK; d++)
        if (tdm_device_shares_memory(dev, coll_dev(&job->dsts[d]))) {
            if (coll_dev(&job->dsts[d]) == dev)
                source = reached;
            out[reached++] = coll_slice(&job->dsts[d], part.offset, part.size);
            s = coll_order_access(job->order, dev, coll_dev(&job->dsts[d]));
        }
    if (s == TDM_OK && source == SIZE_MAX && (!reached || !reaches_all(job, dev))) {
        source = reached;
        s = coll_scratch_view(job->scratch, dev, part.size, &out[reached++]);
    }
    if (s == TDM_OK)
        s = coll_fold_to(job, dev, out, reached, in, job->count);
    for (size_t d = 0; d < job->dst_count && s == TDM_OK; d++)
        if (!tdm_device_shares_memory(dev, coll_dev(&job->dsts[d]))) {
            tdm_buffer_view dst = coll_slice(&job->dsts[d], part.offset, part.size);
            s = tdm_buffer_copy(&dst, &out[source]);
        }
    return s;
}

tdm_status coll_direct(const coll_job *job)
{
    size_t parts = job->reduce_on >= 0 ? 1 : job->count;
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < job->count && s == TDM_OK; i++)
        s = check_shared(job, coll_dev(&job->values[i]));
    tdm_buffer_view *views = malloc((job->count + job->dst_count + 1) * sizeof *views);
    if (s == TDM_OK && !views)
        s = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", job->func);
    for (size_t i = 0; i < parts && s == TDM_OK; i++) {
        coll_part part = coll_part_of(job->values[0].size, parts, i);
        tdm_device *dev = coll_dev(&job->values[job->reduce_on >= 0 ? (size_t)job->reduce_on : i]);
        if (part.size)
            s = fold_part(job, dev, part, views, views + job->count);
    }
    free(views);
    return s;
}
