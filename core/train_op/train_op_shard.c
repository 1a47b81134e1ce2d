/* Optimizer state sharded across the replicas (docs/modules/train.md, "Sharded
 * optimizer state"): every bucket padded to a multiple of the job's replicas R and
 * reduce-scattered, so that replica i holds the sums of slice i of each bucket, side
 * by side in its shard; the optimizer's kernel runs over the owned part of each
 * variable with slots that cover the shard alone; the updated weights are
 * all-gathered back into the flat buffer and copied into every variable's copy, or,
 * where the weights sit in the op's arena (train_op_arena.c), updated per bucket
 * and all-gathered there in place. The kernels are elementwise: the bits are those
 * of unsharded training. */
#include <math.h>
#include <stdlib.h>

#include "base/error.h"
#include "distribute/variable_access.h"
#include "tandem/ops.h"
#include "train_op/train_op_impl.h"

/* Why a combination needs every gradient on one replica, or NULL. */
static const char *unsupported(const tdm_train_op *op)
{
    const tdm_train_op_options *o = &op->opts;
    if (tdm_strategy_num_parameter_devices(op->strategy) ||
        tdm_strategy_num_parameter_servers(op->strategy))
        return "a parameter-server strategy, which updates each variable once, at its home";
    if (o->clip_global_norm > 0.0f)
        return "clip_global_norm, whose norm needs every gradient";
    if (o->transform)
        return "a gradient transform, which receives every gradient";
    if (o->gradient_summaries)
        return "gradient_summaries, which read every gradient";
    if (o->all_reduce_dtype == TDM_F16)
        return "an F16 all-reduce (reduce-scatter the float32 gradients)";
    return NULL;
}

tdm_status tdm_train_shard_check(tdm_train_op *op)
{
    static const char func[] = "tdm_train_op_create";
    const char *why = unsupported(op);
    if (why)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s: shard_optimizer with %s", func, why);
    size_t local = tdm_strategy_num_local_replicas(op->strategy);
    for (size_t i = 0; i < op->var_count; i++)
        for (size_t r = 0; r < local; r++)
            if (!tdm_variable_mirrored(op->vars[i]) ||
                tdm_variable_copy_index(op->vars[i], tdm_strategy_device(op->strategy, r)) < 0)
                return tdm_fail(TDM_ERR_UNSUPPORTED,
                                "%s: shard_optimizer: variable '%s' is not mirrored on every "
                                "replica's device, where the all-gather writes it",
                                func, tdm_variable_name(op->vars[i]));
    /* One replica's shard is the whole state: it trains unsharded, without the
     * scatter and gather copies (a fifth of a wide MLP's step on PoCL). */
    size_t replicas = tdm_strategy_num_replicas(op->strategy);
    op->shards = replicas > 1 ? replicas : 0;
    return TDM_OK;
}

void tdm_train_shard_pad(tdm_train_op *op)
{
    size_t shift = 0, first = 0, i = op->var_count, r = op->shards;
    for (size_t b = 0; b < op->bucket_count; b++) {
        while (i > 0 && op->bucket_of[i - 1] == b) /* flat order is reverse variable order */
            op->offsets[--i] += shift;
        size_t count = op->bucket_end[b] + shift - first;
        shift += (r - count % r) % r;
        first = op->bucket_end[b] += shift;
    }
    op->flat_count = first;
    op->owned = first / r;
}

tdm_status tdm_train_shard_slices(const tdm_train_op *op, tdm_tensor *shard, tdm_tensor **parts)
{
    tdm_status s = TDM_OK;
    for (size_t b = 0; b < op->bucket_count && s == TDM_OK; b++) {
        size_t first = b ? op->bucket_end[b - 1] : 0;
        s = tdm_tensor_slice(shard, first / op->shards,
                             &TDM_SHAPE((op->bucket_end[b] - first) / op->shards), &parts[b]);
    }
    return s;
}

tdm_status tdm_train_shard_make(tdm_train_op *op, tdm_train_replica *r)
{
    static const char func[] = "tdm_train_op_create";
    tdm_device *dev = tdm_tensor_device(r->flat);
    const tdm_optimizer *opt = op->opts.optimizer;
    r->shard_parts = calloc(op->bucket_count, sizeof *r->shard_parts);
    if (!r->shard_parts)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    tdm_status s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(op->owned + 1), &r->shard);
    if (s == TDM_OK)
        s = tdm_train_shard_slices(op, r->shard, r->shard_parts);
    for (size_t k = 0; k < opt->slot_count && s == TDM_OK; k++) {
        s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(op->owned), &r->shard_slots[k]);
        if (s == TDM_OK && op->owned)
            s = tdm_op_fill(r->shard_slots[k], tdm_optimizer_slot_init(opt));
    }
    if (s == TDM_OK)
        s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(1), &r->agree);
    if (s == TDM_OK)
        s = tdm_tensor_slice(r->shard, 0, &TDM_SHAPE(op->owned), &r->all);
    if (s == TDM_OK)
        s = tdm_tensor_slice(r->shard, op->owned, &TDM_SCALAR, &r->loss);
    r->sums = r->shard;
    return s == TDM_OK ? s : tdm_fail_context(s, "%s: the optimizer's shard", func);
}

void tdm_train_shard_free(tdm_train_op *op, tdm_train_replica *r)
{
    for (size_t b = 0; r->shard_parts && b < op->bucket_count; b++)
        tdm_tensor_destroy(r->shard_parts[b]);
    free(r->shard_parts);
    for (size_t k = 0; k < TDM_OPT_MAX_SLOTS; k++)
        tdm_tensor_destroy(r->shard_slots[k]);
    tdm_tensor_destroy(r->agree);
    tdm_tensor_destroy(r->shard);
}

int tdm_train_shard_range(const tdm_train_op *op, size_t i, size_t id, size_t *first, size_t *n,
                          size_t *at)
{
    size_t b = op->bucket_of[i], start = b ? op->bucket_end[b - 1] : 0;
    size_t part = (op->bucket_end[b] - start) / op->shards;
    size_t own = start + id * part, lo = op->offsets[i], hi = lo + tdm_variable_count(op->vars[i]);
    if (own > lo)
        lo = own;
    if (own + part < hi)
        hi = own + part;
    if (lo >= hi)
        return 0;
    *first = lo - op->offsets[i];
    *n = hi - lo;
    *at = start / op->shards + (lo - own);
    return 1;
}

static tdm_buffer_view sub_view(const tdm_tensor *t, size_t first, size_t n)
{
    tdm_buffer_view v = tdm_tensor_view(t);
    v.offset += first * sizeof(float);
    v.size = n * sizeof(float);
    return v;
}

/* Each owned range of each variable: the kernel over the range of the variable's
 * copy, its gradients' sums and its slots; then the new weights into the shard. */
static tdm_status update_owned(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r)
{
    const tdm_optimizer *opt = op->opts.optimizer;
    tdm_opt_step step = tdm_optimizer_step_params(opt, tdm_optimizer_iterations(opt));
    tdm_device *dev = tdm_replica_device(rc);
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < op->var_count && s == TDM_OK; i++) {
        size_t first, n, at;
        if (!tdm_train_shard_range(op, i, tdm_replica_id(rc), &first, &n, &at))
            continue;
        tdm_tensor *w =
            tdm_variable_copy(op->vars[i], (size_t)tdm_variable_copy_index(op->vars[i], dev));
        tdm_buffer_view views[2 + TDM_OPT_MAX_SLOTS];
        views[0] = sub_view(w, first, n);
        views[1] = sub_view(r->shard, at, n);
        for (size_t k = 0; k < opt->slot_count; k++)
            views[2 + k] = sub_view(r->shard_slots[k], at, n);
        tdm_variable_wrote(op->vars[i], (size_t)tdm_variable_copy_index(op->vars[i], dev));
        s = tdm_optimizer_run_kernel(opt, &step, dev, views, n);
        if (s == TDM_OK)
            s = tdm_buffer_copy(&views[1], &views[0]);
        if (s != TDM_OK)
            tdm_fail_context(s, "replica %zu: %s update of its part of variable '%s'",
                             tdm_replica_id(rc), tdm_optimizer_name(opt),
                             tdm_variable_name(op->vars[i]));
    }
    return s;
}

/* Waits for the all-gathers of buckets 0 to started - 1; the first failure wins. */
static tdm_status wait_gathers(tdm_train_replica *r, size_t started, tdm_status s)
{
    for (size_t b = 0; b < started; b++) {
        tdm_status w = tdm_pending_wait(r->pending[b]);
        s = s != TDM_OK ? s : w;
    }
    return s;
}

/* With the weights in the replica's arena (train_op_arena.c), laid out as flat: per
 * bucket, one launch over this replica's part of it, whose slots are the shard's,
 * then the all-gather of the parts in place, and the variables have their values. */
static tdm_status update_arena(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r)
{
    const tdm_optimizer *opt = op->opts.optimizer;
    tdm_opt_step step = tdm_optimizer_step_params(opt, tdm_optimizer_iterations(opt));
    tdm_device *dev = tdm_replica_device(rc);
    tdm_status s = TDM_OK;
    size_t started = 0; /* the all-gathers, buckets 0 to started - 1 */
    for (size_t b = 0; b < op->bucket_count && s == TDM_OK; b++) {
        size_t first = b ? op->bucket_end[b - 1] / op->shards : 0;
        tdm_buffer_view views[2 + TDM_OPT_MAX_SLOTS];
        views[0] = tdm_tensor_view(r->arena_gather[2 * b + 1]);
        views[1] = tdm_tensor_view(r->shard_parts[b]);
        size_t n = tdm_tensor_count(r->shard_parts[b]);
        for (size_t k = 0; k < opt->slot_count; k++)
            views[2 + k] = sub_view(r->shard_slots[k], first, n);
        s = tdm_optimizer_run_kernel(opt, &step, dev, views, n);
        if (s != TDM_OK)
            tdm_fail_context(s, "replica %zu: %s update of its part of bucket %zu",
                             tdm_replica_id(rc), tdm_optimizer_name(opt), b);
        else if ((s = tdm_replica_all_gather_start(rc, r->arena_gather[2 * b + 1],
                                                   r->arena_gather[2 * b], &r->pending[b])) ==
                 TDM_OK)
            started = b + 1;
    }
    s = wait_gathers(r, started, s);
    return s;
}

tdm_status tdm_train_shard_update(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r)
{
    if (tdm_train_arena_intact(op, r, tdm_replica_device(rc)))
        return update_arena(op, rc, r);
    tdm_status s = update_owned(op, rc, r);
    size_t started = 0;
    for (; started < op->bucket_count && s == TDM_OK; started++)
        s = tdm_replica_all_gather_start(rc, r->shard_parts[started], r->buckets[started],
                                         &r->pending[started]);
    s = wait_gathers(r, started, s);
    tdm_device *dev = tdm_replica_device(rc);
    for (size_t i = 0; i < op->var_count && s == TDM_OK; i++) {
        tdm_tensor *w =
            tdm_variable_copy(op->vars[i], (size_t)tdm_variable_copy_index(op->vars[i], dev));
        size_t n = tdm_variable_count(op->vars[i]);
        tdm_buffer_view to = sub_view(w, 0, n), from = sub_view(r->flat, op->offsets[i], n);
        tdm_variable_wrote(op->vars[i], (size_t)tdm_variable_copy_index(op->vars[i], dev));
        if (n)
            s = tdm_buffer_copy(&to, &from);
    }
    return s;
}

tdm_status tdm_train_shard_agree(tdm_replica_context *rc, tdm_train_replica *r, int *finite)
{
    float flag = *finite ? 0.0f : 1.0f;
    tdm_status s = tdm_tensor_write(r->agree, &flag, sizeof flag);
    if (s == TDM_OK)
        s = tdm_replica_all_reduce(rc, TDM_REDUCE_SUM, r->agree);
    if (s == TDM_OK)
        s = tdm_tensor_read(r->agree, &flag, sizeof flag);
    *finite = s == TDM_OK && flag == 0.0f;
    return s;
}

/* The first element of this replica's shard that is not finite, by variable. */
static tdm_status name_element(const tdm_train_op *op, size_t id, const float *h)
{
    if (!isfinite(h[op->owned]))
        return tdm_fail(TDM_ERR_NUMERIC,
                        "check_numerics: loss is inf or nan (%g); no variable was updated",
                        (double)h[op->owned]);
    for (size_t i = 0; i < op->var_count; i++) {
        size_t first, n, at;
        if (!tdm_train_shard_range(op, i, id, &first, &n, &at))
            continue;
        for (size_t e = 0; e < n; e++)
            if (!isfinite(h[at + e]))
                return tdm_fail(TDM_ERR_NUMERIC,
                                "check_numerics: the gradient of '%s' is inf or nan (element "
                                "%zu: %g); no variable was updated",
                                tdm_variable_name(op->vars[i]), first + e, (double)h[at + e]);
    }
    return tdm_fail(TDM_ERR_NUMERIC,
                    "check_numerics: another replica's slice of the gradients is inf or nan; "
                    "no variable was updated");
}

tdm_status tdm_train_shard_numeric_error(const tdm_train_op *op, tdm_replica_context *rc,
                                         tdm_train_replica *r)
{
    float *h = malloc((op->owned + 1) * sizeof *h);
    if (!h)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    tdm_status s = tdm_tensor_read(r->shard, h, (op->owned + 1) * sizeof *h);
    if (s == TDM_OK)
        s = name_element(op, tdm_replica_id(rc), h);
    free(h);
    return s;
}
