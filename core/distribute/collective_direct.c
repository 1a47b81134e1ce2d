/* DIRECT: every device shares memory with the reducing one, whose kernels read the
 * peers' buffers in place; no copies before the reduction. */
#include "collective_impl.h"
#include "error.h"

tdm_status coll_direct(const coll_job *job)
{
    tdm_device *root = coll_dev(&job->values[job->reduce_on >= 0 ? job->reduce_on : 0]);
    for (size_t i = 0; i < job->count; i++)
        if (!coll_shares(root, coll_dev(&job->values[i])))
            return tdm_fail(TDM_ERR_UNSUPPORTED, "%s: DIRECT needs devices that share memory; "
                            "%s and %s do not", job->func, root->desc.id,
                            coll_dev(&job->values[i])->desc.id);
    tdm_buffer_view acc;
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < job->count && s == TDM_OK; i++)
        s = coll_order_access(job->order, root, coll_dev(&job->values[i]));
    if (s == TDM_OK)
        s = coll_scratch_view(job->scratch, root, job->values[0].size, &acc);
    if (s == TDM_OK)
        s = coll_fold(root, job->op, &acc, job->values, job->count);
    if (s == TDM_OK)
        s = coll_finalize(root, job->op, &acc, job->count);
    return s == TDM_OK ? coll_copy_to_all(&acc, job->dsts, job->dst_count) : s;
}
