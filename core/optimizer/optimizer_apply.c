/* Optimizer updates: the one kernel call per kind (tdm_optimizer_run_kernel, which every path goes
 * through), the cross-replica apply, and the training op's per-replica apply_local. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "kernel/kernel_args.h"
#include "optimizer/optimizer_impl.h"
#include "device/device_impl.h"
#include "device/memory/tensor_impl.h"
#include "distribute/variable_access.h"

tdm_opt_step tdm_optimizer_step_params(const tdm_optimizer *opt, uint64_t iterations)
{
    const tdm_optimizer_options *o = &opt->opts;
    tdm_opt_step p = {0};
    p.lr = tdm_lr_schedule_value(&o->learning_rate, iterations);
    double t = (double)iterations + 1.0;
    p.beta1_power = (float)pow((double)o->beta1, t);
    p.beta2_power = (float)pow((double)o->beta2, t);
    p.weight_decay = (float)((double)p.lr * (double)o->weight_decay);
    return p;
}

int tdm_optimizer_same_arithmetic(const tdm_device *a, const tdm_device *b)
{
    return a == b ||
           (a->ops == b->ops && !strcmp(a->desc.name, b->desc.name) &&
            !strcmp(a->desc.vendor, b->desc.vendor) && !strcmp(a->desc.driver, b->desc.driver));
}

int tdm_optimizer_computes_copy(const tdm_variable *var, size_t copy)
{
    if (tdm_variable_has_home(var))
        return copy == tdm_variable_primary(var);
    return tdm_optimizer_same_arithmetic(tdm_tensor_device(tdm_variable_copy(var, copy)),
                                         tdm_tensor_device(tdm_variable_copy(var, 0)));
}

tdm_status tdm_optimizer_run_kernel(const tdm_optimizer *opt, const tdm_opt_step *step,
                                    tdm_device *dev, const tdm_buffer_view *views, size_t n)
{
    const tdm_optimizer_options *o = &opt->opts;
    if (n == 0)
        return TDM_OK;
    if (n > UINT32_MAX)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%zu elements; optimizer kernels take at most 2^32 - 1", n);
    const tdm_buffer_view *w = &views[0], *g = &views[1], *slot = &views[2];
/* adam and adamw share these; adamw adds its weight decay. */
#define ADAM_ARGS                                                                                  \
    .w = *w, .g = *g, .m = slot[0], .v = slot[1], .n = count, .lr = step->lr, .beta1 = o->beta1,   \
    .beta2 = o->beta2, .eps = o->epsilon, .beta1_power = step->beta1_power,                        \
    .beta2_power = step->beta2_power
    const uint32_t count = (uint32_t)n;
    switch (o->kind) {
    case TDM_OPT_SGD: {
        const tdm_sgd_args a = {.w = *w, .g = *g, .n = count, .lr = step->lr};
        return tdm_sgd_run(dev, &a);
    }
    case TDM_OPT_MOMENTUM: {
        const tdm_momentum_args a = {.w = *w,
                                     .g = *g,
                                     .m = slot[0],
                                     .n = count,
                                     .nesterov = (uint32_t)o->nesterov,
                                     .lr = step->lr,
                                     .momentum = o->momentum};
        return tdm_momentum_run(dev, &a);
    }
    case TDM_OPT_ADAGRAD: {
        const tdm_adagrad_args a = {
            .w = *w, .g = *g, .acc = slot[0], .n = count, .lr = step->lr, .eps = o->epsilon};
        return tdm_adagrad_run(dev, &a);
    }
    case TDM_OPT_RMSPROP: {
        /* Uncentered, the kernel neither reads nor writes mg: any view of n floats. */
        const tdm_rmsprop_args a = {.w = *w,
                                    .g = *g,
                                    .ms = slot[0],
                                    .mom = slot[1],
                                    .mg = o->centered ? slot[2] : slot[1],
                                    .n = count,
                                    .centered = (uint32_t)o->centered,
                                    .lr = step->lr,
                                    .rho = o->rho,
                                    .momentum = o->momentum,
                                    .eps = o->epsilon};
        return tdm_rmsprop_run(dev, &a);
    }
    case TDM_OPT_ADAM: {
        const tdm_adam_args a = {ADAM_ARGS};
        return tdm_adam_run(dev, &a);
    }
    case TDM_OPT_ADAMW: {
        const tdm_adamw_args a = {ADAM_ARGS, .weight_decay = step->weight_decay};
        return tdm_adamw_run(dev, &a);
    }
    }
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "optimizer kind %d has no kernel", (int)o->kind);
#undef ADAM_ARGS
}

/* Copy `copy` of var and of its slots, in place, with g on that copy's device. */
static tdm_status update_in_place(const tdm_optimizer *opt, const tdm_opt_step *step,
                                  tdm_variable *var, tdm_variable *const *slots, size_t copy,
                                  const tdm_buffer_view *g)
{
    tdm_tensor *w = tdm_variable_copy(var, copy);
    tdm_buffer_view views[2 + TDM_OPT_MAX_SLOTS];
    views[0] = tdm_tensor_view(w);
    views[1] = *g;
    size_t at[TDM_OPT_MAX_SLOTS];
    for (size_t k = 0; k < opt->slot_count; k++) {
        /* At a home the slots have their one copy. */
        at[k] = tdm_variable_has_home(var) ? tdm_variable_primary(slots[k]) : copy;
        const tdm_tensor *slot = tdm_variable_copy(slots[k], at[k]);
        if (slot->device != w->device)
            return tdm_fail(TDM_ERR_INVALID_STATE,
                            "copy %zu of slot '%s' is on %s, its variable's on %s", copy,
                            tdm_variable_name(slots[k]), slot->device->desc.id, w->device->desc.id);
        views[2 + k] = tdm_tensor_view(slot);
    }
    tdm_variable_wrote(var, copy);
    for (size_t k = 0; k < opt->slot_count; k++)
        tdm_variable_wrote(slots[k], at[k]);
    return tdm_optimizer_run_kernel(opt, step, w->device, views, tdm_variable_count(var));
}

/* Copy `to` of var and of its slots takes copy `from`'s bytes. */
static tdm_status copy_state(const tdm_optimizer *opt, tdm_variable *var,
                             tdm_variable *const *slots, size_t from, size_t to)
{
    tdm_status s = TDM_OK;
    for (size_t k = 0; k <= opt->slot_count && s == TDM_OK; k++) {
        tdm_variable *v = k ? slots[k - 1] : var;
        if (tdm_variable_count(v))
            s = tdm_tensor_copy(tdm_variable_copy(v, to), tdm_variable_copy(v, from));
        tdm_variable_wrote(v, to);
    }
    return s;
}

/* A parameter-server variable: the update at its home, then every cache takes it. */
static tdm_status update_home(const tdm_optimizer *opt, const tdm_opt_step *step, tdm_variable *var,
                              tdm_variable *const *slots, const tdm_buffer_view *grads,
                              const char *func)
{
    size_t home = tdm_variable_primary(var);
    tdm_status s = update_in_place(opt, step, var, slots, home, &grads[home]);
    if (s != TDM_OK)
        return tdm_fail_context(s, "%s: %s update of variable '%s' at its home", func,
                                tdm_optimizer_name(opt), tdm_variable_name(var));
    for (size_t c = 0; c < tdm_variable_copy_count(var) && s == TDM_OK; c++)
        if (c != home && tdm_variable_count(var)) {
            s = tdm_tensor_copy(tdm_variable_copy(var, c), tdm_variable_copy(var, home));
            tdm_variable_wrote(var, c);
        }
    if (s != TDM_OK)
        return tdm_fail_context(s, "%s: variable '%s': refreshing the workers' copies", func,
                                tdm_variable_name(var));
    return tdm_variable_check_if_asked(var, func);
}

tdm_status tdm_optimizer_update_var(const tdm_optimizer *opt, const tdm_opt_step *step,
                                    tdm_variable *var, tdm_variable *const *slots,
                                    const tdm_buffer_view *grads, const char *func)
{
    if (tdm_variable_has_home(var))
        return update_home(opt, step, var, slots, grads, func);
    tdm_status s = TDM_OK;
    for (size_t c = 0; c < tdm_variable_copy_count(var) && s == TDM_OK; c++)
        if (tdm_optimizer_computes_copy(var, c)) {
            s = update_in_place(opt, step, var, slots, c, &grads[c]);
            if (s != TDM_OK)
                return tdm_fail_context(s, "%s: %s update of variable '%s', copy %zu", func,
                                        tdm_optimizer_name(opt), tdm_variable_name(var), c);
        }
    /* Devices of other arithmetic would round differently: they take copy 0's bits. */
    for (size_t c = 1; c < tdm_variable_copy_count(var) && s == TDM_OK; c++)
        if (!tdm_optimizer_computes_copy(var, c)) {
            s = copy_state(opt, var, slots, 0, c);
            if (s != TDM_OK)
                return tdm_fail_context(s, "%s: variable '%s': copying the update to copy %zu",
                                        func, tdm_variable_name(var), c);
        }
    s = tdm_variable_check_if_asked(var, func);
    for (size_t k = 0; k < opt->slot_count && s == TDM_OK; k++)
        s = tdm_variable_check_if_asked(slots[k], func);
    return s;
}

/* ---- tdm_optimizer_apply ---- */

static tdm_status check_grad(const tdm_variable *var, const tdm_tensor *g, size_t i,
                             const char *func)
{
    if (!g)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: grads[%zu] (of variable '%s') is NULL", func,
                        i, tdm_variable_name(var));
    if (tdm_tensor_dtype(g) != TDM_F32 || tdm_tensor_count(g) != tdm_variable_count(var))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the gradient of variable '%s' is an %s tensor of %zu elements; "
                        "pass an f32 tensor of the variable's %zu elements",
                        func, tdm_variable_name(var), tdm_dtype_name(tdm_tensor_dtype(g)),
                        tdm_tensor_count(g), tdm_variable_count(var));
    return TDM_OK;
}

/* Every copy of var with g, copied first to each copy's device that lacks it. */
static tdm_status apply_everywhere(const tdm_optimizer *opt, const tdm_opt_step *step,
                                   tdm_variable *var, tdm_variable *const *slots,
                                   const tdm_tensor *g, const char *func)
{
    size_t n = tdm_variable_copy_count(var);
    tdm_tensor **tmp = calloc(n ? n : 1, sizeof *tmp);
    tdm_buffer_view *views = calloc(n ? n : 1, sizeof *views);
    tdm_status s =
        tmp && views ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t c = 0; c < n && s == TDM_OK; c++) {
        const tdm_tensor *copy = tdm_variable_copy(var, c);
        if (!tdm_optimizer_computes_copy(var, c))
            continue; /* takes copy 0's result */
        if (g->device == copy->device) {
            views[c] = tdm_tensor_view(g);
            continue;
        }
        s = tdm_tensor_create_like(copy->device, copy, &tmp[c]);
        if (s == TDM_OK && tdm_variable_count(var))
            s = tdm_tensor_copy(tmp[c], g);
        if (s == TDM_OK)
            views[c] = tdm_tensor_view(tmp[c]);
        else
            tdm_fail_context(s, "%s: the gradient of variable '%s' to copy %zu's device", func,
                             tdm_variable_name(var), c);
    }
    if (s == TDM_OK)
        s = tdm_optimizer_update_var(opt, step, var, slots, views, func);
    for (size_t c = 0; tmp && c < n; c++)
        tdm_tensor_destroy(tmp[c]);
    free(tmp);
    free(views);
    return s;
}

/* In a replica function only a one-replica strategy may apply directly. */
static tdm_status check_mode(const tdm_optimizer *opt, const char *func)
{
    const tdm_replica_context *rc = tdm_replica_context_current();
    if (!rc)
        return tdm_require_cross_replica(opt->strategy, func);
    if (tdm_replica_strategy(rc) != opt->strategy)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: called from a replica function of another strategy than the "
                        "optimizer's",
                        func);
    if (tdm_strategy_num_local_replicas(tdm_replica_strategy(rc)) > 1)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: called from replica %zu's function with %zu replicas: each replica "
                        "would apply its own gradients, a different update on each copy; wrap "
                        "the optimizer in a tower optimizer (tdm_tower_optimizer_create) and call "
                        "tdm_tower_optimizer_apply from every tower, or apply in cross-replica "
                        "context",
                        func, tdm_replica_local_id(rc),
                        tdm_strategy_num_local_replicas(tdm_replica_strategy(rc)));
    return TDM_OK;
}

tdm_status tdm_optimizer_apply(tdm_optimizer *opt, tdm_variable *const *vars,
                               tdm_tensor *const *grads, size_t count)
{
    static const char func[] = "tdm_optimizer_apply";
    TDM_CHECK_ARG(opt, func);
    tdm_status s = check_mode(opt, func);
    if (s == TDM_OK)
        s = tdm_optimizer_check_vars(opt, vars, count, func);
    if (s == TDM_OK && count)
        TDM_CHECK_ARG(grads, func);
    for (size_t i = 0; i < count && s == TDM_OK; i++)
        s = check_grad(vars[i], grads[i], i, func);
    if (s != TDM_OK)
        return s;
    size_t per = opt->slot_count;
    tdm_variable **slots = calloc(count * per + 1, sizeof *slots);
    if (!slots)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    s = tdm_optimizer_lookup_slots(opt, vars, count, slots, func);
    tdm_opt_step step = tdm_optimizer_step_params(opt, tdm_optimizer_iterations(opt));
    for (size_t i = 0; i < count && s == TDM_OK; i++)
        s = apply_everywhere(opt, &step, vars[i], slots + i * per, grads[i], func);
    free(slots);
    if (s == TDM_OK)
        atomic_fetch_add(&opt->iterations, 1);
    return s;
}

/* ---- tdm_optimizer_apply_local ---- */

static tdm_status check_local_grad(const tdm_variable *var, const tdm_buffer_view *g,
                                   const tdm_device *dev, size_t i, const char *func)
{
    if (!g->buffer)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: grads[%zu] (of variable '%s') is NULL", func,
                        i, tdm_variable_name(var));
    if (tdm_buffer_device(g->buffer) != dev)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the gradient of variable '%s' is on %s, not on the replica's "
                        "device %s",
                        func, tdm_variable_name(var), tdm_buffer_device(g->buffer)->desc.id,
                        dev->desc.id);
    if (g->size < tdm_variable_count(var) * sizeof(float))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the gradient view of variable '%s' holds %zu bytes; the variable "
                        "has %zu f32 elements",
                        func, tdm_variable_name(var), g->size, tdm_variable_count(var));
    return TDM_OK;
}

/* Copy `copy` of var, on a device whose arithmetic differs from copy 0's: the update
 * runs on copy 0's device, over scratch copies of this copy's state and of g (equal,
 * bit for bit, to what copy 0's replica updates there), and comes back. Copy 0 itself
 * is left to its own replica, so the replicas need not wait for each other. The
 * scratch stays from step to step: no allocation or free in a step, and state that
 * nothing wrote since it came back from the scratch is not copied in again. */
static tdm_status update_elsewhere(tdm_optimizer *opt, const tdm_opt_step *step, tdm_variable *var,
                                   tdm_variable *const *slots, size_t copy,
                                   const tdm_buffer_view *g)
{
    if (tdm_variable_count(var) == 0)
        return TDM_OK;
    tdm_device *there = tdm_tensor_device(tdm_variable_copy(var, 0));
    size_t k = opt->slot_count, bytes = tdm_variable_count(var) * sizeof(float);
    tdm_elsewhere *e = NULL;
    tdm_buffer_view views[2 + TDM_OPT_MAX_SLOTS];
    tdm_status s = tdm_optimizer_elsewhere_scratch(opt, var, copy, &e);
    for (size_t b = 0; b < 2 + k && s == TDM_OK; b++) {
        if (!e->scratch[b])
            s = tdm_tensor_create_like(there, tdm_variable_copy(var, copy), &e->scratch[b]);
        if (s == TDM_OK)
            views[b] = tdm_tensor_view(e->scratch[b]);
    }
    if (s != TDM_OK)
        return s;
    /* b = 0: the variable (scratch 0), else slot b - 1 (scratch b + 1). */
    uint64_t held[1 + TDM_OPT_MAX_SLOTS];
    for (size_t b = 0; b <= k; b++) {
        held[b] = e->holds[b];
        e->holds[b] = 0; /* until its bytes are back in the copy */
    }
    for (size_t b = 0; b <= k && s == TDM_OK; b++) {
        tdm_variable *v = b ? slots[b - 1] : var;
        if (held[b] != tdm_variable_writes(v, copy))
            s = tdm_tensor_copy(e->scratch[b ? b + 1 : 0], tdm_variable_copy(v, copy));
    }
    tdm_buffer_view gv = *g;
    gv.size = bytes;
    if (s == TDM_OK)
        s = tdm_buffer_copy(&views[1], &gv);
    if (s == TDM_OK)
        s = tdm_optimizer_run_kernel(opt, step, there, views, tdm_variable_count(var));
    for (size_t b = 0; b <= k && s == TDM_OK; b++) {
        tdm_variable *v = b ? slots[b - 1] : var;
        s = tdm_tensor_copy(tdm_variable_copy(v, copy), e->scratch[b ? b + 1 : 0]);
        tdm_variable_wrote(v, copy);
        if (s == TDM_OK)
            e->holds[b] = tdm_variable_writes(v, copy);
    }
    return s;
}

tdm_status tdm_optimizer_apply_local(tdm_optimizer *opt, tdm_replica_context *rc,
                                     tdm_variable *const *vars, const tdm_buffer_view *grads,
                                     size_t count)
{
    static const char func[] = "tdm_optimizer_apply_local";
    TDM_CHECK_ARG(opt, func);
    TDM_CHECK_ARG(rc, func);
    if (tdm_replica_strategy(rc) != opt->strategy)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the replica context is of another strategy than the optimizer's",
                        func);
    tdm_status s = tdm_optimizer_check_vars(opt, vars, count, func);
    if (s == TDM_OK && count)
        TDM_CHECK_ARG(grads, func);
    if (s != TDM_OK)
        return s;
    tdm_device *dev = tdm_replica_device(rc);
    size_t per = opt->slot_count;
    tdm_variable **slots = calloc(count * per + 1, sizeof *slots);
    if (!slots)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    s = tdm_optimizer_lookup_slots(opt, vars, count, slots, func);
    tdm_opt_step step = tdm_optimizer_step_params(opt, tdm_optimizer_iterations(opt));
    for (size_t i = 0; i < count && s == TDM_OK; i++) {
        int c = tdm_variable_copy_index(vars[i], dev);
        if (tdm_variable_has_home(vars[i]))
            s = tdm_fail(TDM_ERR_INVALID_STATE,
                         "%s: variable '%s' lives on parameter device %s, where it is updated "
                         "once for every replica; update it with tdm_optimizer_apply, a tower "
                         "optimizer or the train op",
                         func, tdm_variable_name(vars[i]), tdm_variable_home(vars[i])->desc.id);
        else if (c < 0)
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                         "%s: variable '%s' has no copy on replica %zu's device %s", func,
                         tdm_variable_name(vars[i]), tdm_replica_local_id(rc), dev->desc.id);
        if (s == TDM_OK)
            s = check_local_grad(vars[i], &grads[i], dev, i, func);
        if (s == TDM_OK) {
            s = tdm_optimizer_computes_copy(vars[i], (size_t)c)
                    ? update_in_place(opt, &step, vars[i], slots + i * per, (size_t)c, &grads[i])
                    : update_elsewhere(opt, &step, vars[i], slots + i * per, (size_t)c, &grads[i]);
            if (s != TDM_OK)
                tdm_fail_context(s, "%s: replica %zu: %s update of variable '%s'", func,
                                 tdm_replica_local_id(rc), tdm_optimizer_name(opt),
                                 tdm_variable_name(vars[i]));
        }
    }
    free(slots);
    return s;
}
