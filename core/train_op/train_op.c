/* The train op: its variables, its flat gradient buffers, and its accessors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "device/device_room.h"
#include "device/launch/kernel_ops.h"
#include "tandem/ops.h"
#include "optimizer/optimizer_impl.h"
#include "train_op/train_op_impl.h"
#include "train_op/train_trace.h"

static tdm_status check_options(const tdm_train_op_options *o)
{
    const char *f = "tdm_train_op_create";
    if (o->size != sizeof *o)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: options.size is %zu, expected %zu: use "
                        "TDM_TRAIN_OP_OPTIONS_INIT",
                        f, o->size, sizeof *o);
    if (o->reserved[0])
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: options.reserved is not 0: use TDM_TRAIN_OP_OPTIONS_INIT (a caller "
                        "built against a newer header sets fields this library does not have)",
                        f);
    if (!o->loss_fn || !o->optimizer)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: a loss function and an optimizer are "
                        "required",
                        f);
    if (!(o->clip_global_norm >= 0.0f) || !(o->clip_value >= 0.0f))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: clip_global_norm and clip_value must be "
                        ">= 0 (0: off)",
                        f);
    if (o->bucket_bytes < 4 || o->first_bucket_bytes < 4)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: bucket_bytes (%zu) and first_bucket_bytes (%zu) must hold a "
                        "float at least: use TDM_TRAIN_OP_OPTIONS_INIT",
                        f, o->bucket_bytes, o->first_bucket_bytes);
    if ((unsigned)o->reduction > TDM_LOSS_SUM)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown loss reduction %d", f,
                        (int)o->reduction);
    if (!(o->loss_scale >= 0.0f) || isinf(o->loss_scale))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: loss_scale is %g; give a finite initial scale > 0 (32768 is "
                        "TensorFlow's), or 0 for none",
                        f, (double)o->loss_scale);
    if (o->all_reduce_dtype != TDM_F32 && o->all_reduce_dtype != TDM_F16)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: all_reduce_dtype is %d; gradients are all-reduced as TDM_F32 or "
                        "TDM_F16",
                        f, (int)o->all_reduce_dtype);
    return TDM_OK;
}

/* The variables to train: the given list, or every trainable one. */
static tdm_status choose_variables(tdm_train_op *op)
{
    const tdm_train_op_options *o = &op->opts;
    size_t n = o->var_list ? o->var_count : tdm_strategy_trainable_variables(op->strategy, NULL, 0);
    if (n == 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_train_op_create: no variables to train "
                        "(the list is empty and the strategy has no trainable variable)");
    op->vars = calloc(n, sizeof *op->vars);
    if (!op->vars)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    if (o->var_list)
        memcpy(op->vars, o->var_list, n * sizeof *op->vars);
    else
        tdm_strategy_trainable_variables(op->strategy, op->vars, n);
    for (size_t i = 0; i < n; i++) {
        if (!op->vars[i])
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_train_op_create: variable %zu is NULL",
                            i);
        tdm_shape shape = tdm_variable_shape(op->vars[i]);
        op->total += tdm_shape_count(&shape);
    }
    op->var_count = n;
    op->opts.var_list = NULL;
    if (o->state_count && !o->state_list)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_train_op_create: state_count is %zu but state_list is NULL",
                        o->state_count);
    op->states = calloc(o->state_count ? o->state_count : 1, sizeof *op->states);
    if (!op->states)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    for (size_t i = 0; i < o->state_count; i++)
        if (!(op->states[i] = o->state_list[i]))
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "tdm_train_op_create: state variable %zu is NULL", i);
    op->state_count = o->state_count;
    op->opts.state_list = NULL;
    return TDM_OK;
}

static tdm_status make_slices(tdm_train_op *op, tdm_train_replica *r)
{
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < op->var_count && s == TDM_OK; i++) {
        tdm_shape shape = tdm_variable_shape(op->vars[i]);
        s = tdm_tensor_slice(r->flat, op->offsets[i], &shape, &r->grads[i]);
        if (s == TDM_OK)
            r->views[i] = tdm_tensor_view(r->grads[i]);
    }
    r->sums = r->flat;
    if (s == TDM_OK && op->shards)
        s = tdm_train_shard_make(op, r); /* all, loss and sums are the shard's */
    else if (s == TDM_OK)
        s = tdm_tensor_slice(r->flat, 0, &TDM_SHAPE(op->total), &r->all);
    if (s == TDM_OK && !op->shards)
        s = tdm_tensor_slice(r->flat, op->total, &TDM_SCALAR, &r->loss);
    return s == TDM_OK ? tdm_train_buckets_make(op, r) : s;
}

static tdm_status make_replica(tdm_train_op *op, size_t id)
{
    tdm_train_replica *r = &op->replicas[id];
    tdm_device *dev = tdm_strategy_device(op->strategy, id);
    r->grads = calloc(op->var_count, sizeof *r->grads);
    r->views = calloc(op->var_count, sizeof *r->views);
    r->scratch_host = malloc(op->scratch_count * sizeof *r->scratch_host);
    if (!r->grads || !r->views || !r->scratch_host)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    tdm_status s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(op->flat_count + 1), &r->flat);
    if (s == TDM_OK) /* the gaps and the padding are summed and updated: zeros */
        s = tdm_op_fill(r->flat, 0.0f);
    if (s == TDM_OK)
        s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(op->scratch_count), &r->scratch);
    return s == TDM_OK ? make_slices(op, r) : s;
}

static void free_replica(tdm_train_op *op, tdm_train_replica *r)
{
    tdm_train_buckets_free(op, r);
    tdm_train_arena_free(op, r);
    for (size_t i = 0; r->grads && i < op->var_count; i++)
        tdm_tensor_destroy(r->grads[i]);
    tdm_tensor_destroy(r->all);
    tdm_tensor_destroy(r->loss);
    tdm_train_shard_free(op, r);
    tdm_tensor_destroy(r->flat);
    tdm_tensor_destroy(r->scratch);
    free(r->grads);
    free(r->views);
    free(r->scratch_host);
}

/* Whether the gradients may differ between replicas after the transforms: a norm
 * or a callback computed on devices that round differently. (The optimizer itself
 * keeps such copies identical: tdm_optimizer_computes_copy.) */
static int needs_resync(const tdm_train_op *op)
{
    tdm_strategy *s = op->strategy;
    if (op->opts.clip_global_norm <= 0.0f && !op->opts.transform)
        return 0;
    for (size_t i = 1; i < tdm_strategy_num_local_replicas(s); i++)
        if (!tdm_optimizer_same_arithmetic(tdm_strategy_device(s, 0), tdm_strategy_device(s, i)))
            return 1;
    return 0;
}

/* The replicas' gradients and, where they live on the replicas, the optimizer's
 * slots, against each replica's device (the parameters already on it), before
 * either is made. */
static tdm_status check_room(const tdm_train_op *op, int slots_here)
{
    uint64_t grads = ((uint64_t)op->flat_count + 1) * sizeof(float);
    uint64_t slots =
        slots_here ? (uint64_t)op->opts.optimizer->slot_count * op->total * sizeof(float) : 0;
    tdm_status s = TDM_OK;
    for (size_t r = 0; s == TDM_OK && r < tdm_strategy_num_local_replicas(op->strategy); r++)
        s = tdm_device_check_room(
            tdm_strategy_device(op->strategy, r), grads, "the replica's gradients", grads + slots,
            slots ? "its gradients and the optimizer's slots" : "its gradients",
            "tdm_train_op_create");
    return s;
}

static tdm_status build(tdm_train_op *op)
{
    tdm_status s = choose_variables(op);
    int served = tdm_strategy_num_parameter_servers(op->strategy) > 0; /* slots live there */
    if (s == TDM_OK && op->opts.shard_optimizer)
        s = tdm_train_shard_check(op);
    if (s == TDM_OK)
        s = tdm_train_layout(op);
    if (s == TDM_OK)
        s = check_room(op, !served && !op->shards);
    if (s == TDM_OK && !served && !op->shards) /* sharded slots are the replicas' shards */
        s = tdm_optimizer_create_slots(op->opts.optimizer, op->vars, op->var_count);
    size_t replicas = tdm_strategy_num_local_replicas(op->strategy);
    size_t elements = op->total + 1;
    op->scratch_count = tdm_global_norm_scratch(&elements, 1) + 1;
    op->replicas = calloc(replicas, sizeof *op->replicas);
    op->rates = calloc(replicas, sizeof *op->rates);
    op->summaries = calloc(op->var_count ? op->var_count : 1, sizeof *op->summaries);
    if (s == TDM_OK && (!op->replicas || !op->summaries || !op->rates))
        s = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    for (size_t i = 0; i < replicas && s == TDM_OK; i++)
        s = make_replica(op, i);
    if (s == TDM_OK && tdm_strategy_num_parameter_devices(op->strategy))
        s = tdm_train_homes_make(op); /* the update runs once, at the homes */
    else if (s == TDM_OK && served && op->opts.loss_scale > 0.0f)
        s = tdm_fail(TDM_ERR_UNSUPPORTED,
                     "tdm_train_op_create: loss scaling in a parameter-server job: a skipped "
                     "step would have to be agreed with the servers, which is not done yet");
    else if (s == TDM_OK && served)
        s = tdm_train_remote_open(op); /* the update runs on the servers */
    else if (s == TDM_OK) {
        op->resync = needs_resync(op);
        s = tdm_train_arena_make(op);
    }
    return s;
}

tdm_status tdm_train_op_create(tdm_strategy *s, const tdm_train_op_options *opts,
                               tdm_train_op **out)
{
    TDM_CHECK_ARG(out, "tdm_train_op_create");
    *out = NULL;
    TDM_CHECK_ARG(s, "tdm_train_op_create");
    TDM_CHECK_ARG(opts, "tdm_train_op_create");
    tdm_status st = check_options(opts);
    if (st != TDM_OK)
        return st;
    tdm_train_op *op = calloc(1, sizeof *op);
    if (!op)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_train_op_create: out of host memory");
    op->strategy = s;
    op->opts = *opts;
    op->loss_scale = opts->loss_scale;
    st = build(op);
    if (st != TDM_OK) {
        tdm_train_op_destroy(op);
        return st;
    }
    *out = op;
    return TDM_OK;
}

void tdm_train_op_destroy(tdm_train_op *op)
{
    if (!op)
        return;
    tdm_train_remote_close(op);
    for (size_t i = 0; op->replicas && i < tdm_strategy_num_local_replicas(op->strategy); i++)
        free_replica(op, &op->replicas[i]);
    free(op->replicas);
    tdm_train_homes_free(op);
    free(op->summaries);
    free(op->vars);
    free(op->slot_vars);
    free(op->states);
    free(op->offsets);
    free(op->bucket_of);
    free(op->bucket_end);
    free(op->bucket_vars);
    free(op->rates);
    tdm_train_trace_destroy(op->trace);
    free(op);
}

size_t tdm_train_op_variable_count(const tdm_train_op *op)
{
    return op ? op->var_count : 0;
}

tdm_variable *tdm_train_op_variable(const tdm_train_op *op, size_t i)
{
    return op && i < op->var_count ? op->vars[i] : NULL;
}

tdm_status tdm_train_op_slot_bytes(const tdm_train_op *op, size_t *bytes)
{
    TDM_CHECK_ARG(op, "tdm_train_op_slot_bytes");
    TDM_CHECK_ARG(bytes, "tdm_train_op_slot_bytes");
    size_t elements = op->shards ? op->owned : op->total;
    *bytes = op->opts.optimizer->slot_count * elements * sizeof(float);
    return TDM_OK;
}

tdm_optimizer *tdm_train_op_optimizer(const tdm_train_op *op)
{
    return op ? op->opts.optimizer : NULL;
}

tdm_strategy *tdm_train_op_strategy(const tdm_train_op *op)
{
    return op ? op->strategy : NULL;
}

uint64_t tdm_train_op_seed(const tdm_train_op *op)
{
    return op ? op->opts.seed : 0;
}

tdm_status tdm_train_op_gradient_summary(const tdm_train_op *op, size_t i,
                                         tdm_gradient_summary *out)
{
    TDM_CHECK_ARG(op, "tdm_train_op_gradient_summary");
    TDM_CHECK_ARG(out, "tdm_train_op_gradient_summary");
    if (!op->have_summaries)
        return tdm_fail(TDM_ERR_INVALID_STATE, "tdm_train_op_gradient_summary: no summaries: "
                                               "set gradient_summaries and run a step first");
    if (i >= op->var_count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_train_op_gradient_summary: variable %zu "
                        "of %zu",
                        i, op->var_count);
    *out = op->summaries[i];
    return TDM_OK;
}
