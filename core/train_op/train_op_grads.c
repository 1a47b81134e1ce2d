/* The train op's handling of reduced gradients: check_numerics, clipping, the
 * user's transform, summaries, and keeping copies on mixed devices identical. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "kernel/kernel_args.h"
#include "device/launch/kernel_ops.h"
#include "optimizer/optimizer_impl.h"
#include "train_op/train_op_impl.h"

/* The flat buffer on the host, for the rare paths that need elements. */
static tdm_status read_flat(const tdm_train_op *op, tdm_train_replica *r, float **out)
{
    *out = malloc((op->total + 1) * sizeof **out);
    if (!*out)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    tdm_status s = tdm_tensor_read(r->flat, *out, (op->total + 1) * sizeof **out);
    if (s != TDM_OK) {
        free(*out);
        *out = NULL;
    }
    return s;
}

/* Which part is not finite, for the message. */
static tdm_status numeric_error(const tdm_train_op *op, tdm_train_replica *r)
{
    float *h = NULL;
    tdm_status s = read_flat(op, r, &h);
    if (s != TDM_OK)
        return s;
    if (!isfinite(h[op->total]))
        s = tdm_fail(TDM_ERR_NUMERIC,
                     "check_numerics: loss is inf or nan (%g); no variable "
                     "was updated",
                     (double)h[op->total]);
    for (size_t i = 0; i < op->var_count && s == TDM_OK; i++) {
        tdm_shape shape = tdm_variable_shape(op->vars[i]);
        const float *g = h + op->offsets[i];
        for (size_t e = 0; e < tdm_shape_count(&shape) && s == TDM_OK; e++)
            if (!isfinite(g[e]))
                s = tdm_fail(TDM_ERR_NUMERIC,
                             "check_numerics: the gradient of '%s' is inf or "
                             "nan (element %zu: %g); no variable was updated",
                             tdm_variable_name(op->vars[i]), e, (double)g[e]);
    }
    free(h);
    return s;
}

static tdm_buffer_view scratch_view(const tdm_train_replica *r, size_t first, size_t count)
{
    tdm_buffer_view v = tdm_tensor_view(r->scratch);
    v.offset += first * sizeof(float);
    v.size = count * sizeof(float);
    return v;
}

/* One flag per chunk of the sums (1: all finite), read back as they are: a launch
 * to sum them would cost more than reading a float per 64 Ki elements. The loss,
 * copied after the flags, shares their read: the host then has it before the update,
 * which runs on while the host goes on to the next step. */
tdm_status tdm_train_all_finite(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r,
                                int take_loss, int *finite)
{
    size_t n = tdm_tensor_count(r->sums), parts = (n + TDM_NORM_CHUNK - 1) / TDM_NORM_CHUNK;
    take_loss = take_loss && !op->shards && parts < op->scratch_count;
    tdm_buffer_view flags = scratch_view(r, 0, parts), loss = scratch_view(r, parts, 1);
    const tdm_all_finite_args check = {
        .out = flags, .x = tdm_tensor_view(r->sums), .n = (uint32_t)n, .chunk = TDM_NORM_CHUNK};
    tdm_status s = tdm_all_finite_run(tdm_tensor_device(r->sums), &check);
    tdm_buffer_view from = tdm_tensor_view(r->loss);
    if (s == TDM_OK && take_loss)
        s = tdm_buffer_copy(&loss, &from);
    if (s == TDM_OK)
        s = tdm_buffer_read(flags.buffer, flags.offset, r->scratch_host,
                            flags.size + (take_loss ? loss.size : 0));
    r->loss_known = s == TDM_OK && take_loss;
    if (r->loss_known)
        r->loss_read = r->scratch_host[parts];
    *finite = s == TDM_OK;
    for (size_t i = 0; i < parts && *finite; i++)
        *finite = r->scratch_host[i] == 1.0f;
    return s == TDM_OK && op->shards ? tdm_train_shard_agree(rc, r, finite) : s;
}

tdm_status tdm_train_check_numerics(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r)
{
    int finite = 0;
    /* The loss is final here: nothing after the check writes it. */
    tdm_status s = tdm_train_all_finite(op, rc, r, tdm_replica_local_id(rc) == 0, &finite);
    if (s != TDM_OK || finite)
        return s;
    return op->shards ? tdm_train_shard_numeric_error(op, rc, r) : numeric_error(op, r);
}
