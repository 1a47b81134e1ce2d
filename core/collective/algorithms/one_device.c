/* ReductionToOneDevice: every value copied to the reducing device, reduced there,
 * the result copied to every destination. */
#include <stdlib.h>

#include "collective/collective_impl.h"
#include "base/error.h"

/* The chosen value's device, else the first destination's (TF's default). */
static tdm_device *reducing_device(const coll_job *job)
{
    return job->reduce_on >= 0 ? coll_dev(&job->values[job->reduce_on]) : coll_dev(&job->dsts[0]);
}

tdm_status coll_one_device(const coll_job *job)
{
    tdm_device *root = reducing_device(job);
    size_t size = job->values[0].size;
    tdm_buffer_view *in = malloc(job->count * sizeof *in), acc;
    if (!in)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", job->func);
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < job->count && s == TDM_OK; i++) {
        in[i] = job->values[i];
        if (coll_dev(&in[i]) != root) {
            s = coll_scratch_view(job->scratch, root, size, &in[i]);
            if (s == TDM_OK)
                s = tdm_buffer_copy(&in[i], &job->values[i]);
        }
    }
    if (s == TDM_OK)
        s = coll_scratch_view(job->scratch, root, size, &acc);
    if (s == TDM_OK)
        s = coll_fold(job, root, &acc, in, job->count);
    if (s == TDM_OK)
        s = coll_finalize(job, root, &acc, job->count);
    if (s == TDM_OK)
        s = coll_copy_to_all(&acc, job->dsts, job->dst_count);
    free(in);
    return s;
}
