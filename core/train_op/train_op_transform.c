/* Gradient transforms of the train op (clipping, the user's callback), gradient
 * summaries, and the resynchronisation of copies on mixed devices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "device/launch/kernel_ops.h"
#include "tandem/ops.h"
#include "distribute/variable_access.h"
#include "train_op/train_op_impl.h"

/* TensorFlow's clip_by_global_norm: g * clip / max(norm, clip). */
static tdm_status clip_global_norm(tdm_train_op *op, tdm_train_replica *r)
{
    tdm_buffer_view all = tdm_tensor_view(r->all), scratch = tdm_tensor_view(r->scratch);
    tdm_buffer_view norm_view = scratch;
    scratch.size -= sizeof(float);
    norm_view.offset += scratch.size;
    norm_view.size = sizeof(float);
    tdm_status s = tdm_global_norm(tdm_tensor_device(r->all), &all, 1, &scratch, &norm_view);
    float norm = 0.0f;
    if (s == TDM_OK)
        s = tdm_buffer_read(norm_view.buffer, norm_view.offset, &norm, sizeof norm);
    if (s == TDM_OK && norm > op->opts.clip_global_norm)
        s = tdm_op_scale(r->all, r->all, op->opts.clip_global_norm / norm);
    return s;
}

tdm_status tdm_train_transform(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r)
{
    const tdm_train_op_options *o = &op->opts;
    tdm_status s = TDM_OK;
    if (o->clip_value > 0.0f)
        s = tdm_op_clip(r->all, r->all, -o->clip_value, o->clip_value);
    if (s == TDM_OK && o->clip_global_norm > 0.0f)
        s = clip_global_norm(op, r);
    if (s == TDM_OK && o->transform)
        s = o->transform(rc, r->grads, op->vars, op->var_count, o->transform_user);
    return s;
}

static void summarize_one(const float *g, size_t n, tdm_gradient_summary *out)
{
    double sq = 0.0;
    memset(out, 0, sizeof *out);
    out->min = n ? g[0] : 0.0f;
    out->max = out->min;
    for (size_t i = 0; i < n; i++) {
        sq += (double)g[i] * g[i];
        out->min = g[i] < out->min ? g[i] : out->min;
        out->max = g[i] > out->max ? g[i] : out->max;
    }
    out->norm = sqrt(sq);
    double width = ((double)out->max - out->min) / TDM_HISTOGRAM_BINS;
    for (size_t i = 0; i < n; i++) {
        size_t bin = width > 0.0 ? (size_t)((g[i] - out->min) / width) : 0;
        out->counts[bin < TDM_HISTOGRAM_BINS ? bin : TDM_HISTOGRAM_BINS - 1]++;
    }
}

tdm_status tdm_train_summarize(tdm_train_op *op, tdm_train_replica *r)
{
    size_t n = op->total + 1;
    float *h = malloc(n * sizeof *h);
    if (!h)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "gradient summaries: out of host memory");
    tdm_status s = tdm_tensor_read(r->flat, h, n * sizeof *h);
    for (size_t i = 0; i < op->var_count && s == TDM_OK; i++)
        summarize_one(h + op->offsets[i], tdm_tensor_count(r->grads[i]), &op->summaries[i]);
    free(h);
    return s;
}

/* Every copy takes the one that holds the value (copy 0, or a home). */
static tdm_status copy_from_primary(void *ctx, tdm_variable *var)
{
    (void)ctx;
    tdm_status s = TDM_OK;
    size_t from = tdm_variable_primary(var);
    for (size_t c = 0; c < tdm_variable_copy_count(var) && s == TDM_OK; c++)
        if (c != from) {
            s = tdm_tensor_copy(tdm_variable_copy(var, c), tdm_variable_copy(var, from));
            tdm_variable_wrote(var, c);
        }
    return s;
}

tdm_status tdm_train_resync(tdm_train_op *op)
{
    return tdm_train_each_variable(op, copy_from_primary, NULL);
}
