/* The tower optimizer (TowerOptimizer): every tower hands its gradients over; once
 * all have, one merge step sums each variable's gradients over the towers (in tower
 * order, onto each copy's device) and applies the inner optimizer to every copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "optimizer/optimizer_impl.h"
#include "device/device_impl.h"
#include "device/memory/tensor_impl.h"
#include "distribute/variable_access.h"

static const char apply_func[] = "tdm_tower_optimizer_apply";

struct tdm_tower_optimizer {
    tdm_optimizer *inner;
    tdm_loss_reduction reduction;
};

tdm_status tdm_tower_optimizer_create(tdm_optimizer *inner, tdm_loss_reduction reduction,
                                      tdm_tower_optimizer **out)
{
    static const char func[] = "tdm_tower_optimizer_create";
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(inner, func);
    if ((unsigned)reduction > TDM_LOSS_SUM)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: unknown loss reduction %d (SUM_OVER_BATCH_SIZE or SUM)", func,
                        (int)reduction);
    tdm_tower_optimizer *t = calloc(1, sizeof *t);
    if (!t)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    t->inner = inner;
    t->reduction = reduction;
    *out = t;
    return TDM_OK;
}

void tdm_tower_optimizer_destroy(tdm_tower_optimizer *t)
{
    free(t);
}

tdm_optimizer *tdm_tower_optimizer_inner(const tdm_tower_optimizer *t)
{
    return t ? t->inner : NULL;
}

float tdm_tower_optimizer_loss_scale(const tdm_tower_optimizer *t, size_t towers)
{
    if (!t || t->reduction == TDM_LOSS_SUM || towers <= 1)
        return 1.0f;
    return (float)(1.0 / (double)towers);
}

tdm_status tdm_tower_optimizer_check_batch(const tdm_tower_optimizer *t, size_t batch,
                                           size_t towers)
{
    static const char func[] = "tdm_tower_optimizer_check_batch";
    TDM_CHECK_ARG(t, func);
    if (towers == 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: batch size %zu over 0 towers", func, batch);
    if (batch % towers)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the batch size %zu does not divide by the %zu towers (%zu left "
                        "over); every tower must get the same number of examples: use a batch "
                        "size that is a multiple of %zu",
                        func, batch, towers, batch % towers, towers);
    return TDM_OK;
}

/* What each tower hands over. A tower whose own arguments are wrong still joins the
 * merge, carrying its error, so that every tower returns it instead of waiting. */
typedef struct tower_item {
    const tdm_tower_optimizer *t;
    tdm_variable *const *vars;
    tdm_tensor *const *grads;
    size_t count;
    tdm_status status;
    char message[512];
} tower_item;

static void check_tower_args(tower_item *it, const tdm_replica_context *rc)
{
    const tdm_optimizer *opt = it->t->inner;
    tdm_status s = tdm_optimizer_check_vars(opt, it->vars, it->count, apply_func);
    if (s == TDM_OK && it->count && !it->grads)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument 'grads' is NULL", apply_func);
    for (size_t i = 0; i < it->count && s == TDM_OK; i++) {
        const tdm_variable *var = it->vars[i];
        const tdm_tensor *g = it->grads[i];
        if (!g)
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: grads[%zu] (of variable '%s') is NULL",
                         apply_func, i, tdm_variable_name(var));
        else if (g->dtype != TDM_F32 || g->count != tdm_variable_count(var))
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                         "%s: the gradient of variable '%s' is an %s tensor of %zu elements; "
                         "pass an f32 tensor of the variable's %zu elements",
                         apply_func, tdm_variable_name(var), tdm_dtype_name(g->dtype), g->count,
                         tdm_variable_count(var));
        else if (g->device != tdm_replica_device(rc))
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                         "%s: the gradient of variable '%s' is on %s, not on the tower's device "
                         "%s; pass each tower's gradients on its own device",
                         apply_func, tdm_variable_name(var), g->device->desc.id,
                         tdm_replica_device(rc)->desc.id);
    }
    it->status = s;
    if (s != TDM_OK) {
        const char *m = tdm_last_error();
        size_t len = strlen(apply_func);
        if (!strncmp(m, apply_func, len) && !strncmp(m + len, ": ", 2))
            m += len + 2; /* the merge step names the call once */
        snprintf(it->message, sizeof it->message, "%s", m);
    }
}

static tdm_status different_calls(const tower_item *a, size_t i, const tower_item *b)
{
    char what[400];
    if (a->t != b->t)
        snprintf(what, sizeof what, "they passed different tower optimizers");
    else if (a->count != b->count)
        snprintf(what, sizeof what, "tower 0 passed %zu variables, tower %zu passed %zu", a->count,
                 i, b->count);
    else {
        size_t k = 0;
        while (k < a->count && a->vars[k] == b->vars[k])
            k++;
        snprintf(what, sizeof what, "variable %zu is '%s' on tower 0, '%s' on tower %zu", k,
                 tdm_variable_name(a->vars[k]), tdm_variable_name(b->vars[k]), i);
    }
    return tdm_fail(TDM_ERR_INVALID_STATE,
                    "%s: towers made different optimizer calls: towers 0 and %zu: %s; every "
                    "tower must pass the same variables in the same order",
                    apply_func, i, what);
}

static tdm_status check_items(const tdm_strategy *s, tower_item *const *items)
{
    for (size_t i = 0; i < tdm_strategy_num_local_replicas(s); i++)
        if (items[i]->status != TDM_OK)
            return tdm_fail(items[i]->status, "%s: tower %zu: %s", apply_func, i,
                            items[i]->message);
    const tower_item *a = items[0];
    for (size_t i = 1; i < tdm_strategy_num_local_replicas(s); i++) {
        const tower_item *b = items[i];
        if (a->t != b->t || a->count != b->count ||
            (a->count && memcmp(a->vars, b->vars, a->count * sizeof *a->vars)))
            return different_calls(a, i, b);
    }
    return TDM_OK;
}

/* The sum over towers of var i's gradients, on the device of every copy that computes
 * its own update (the others take copy 0's), then the update. */
static tdm_status sum_and_apply(const tdm_optimizer *opt, const tdm_opt_step *step,
                                tower_item *const *items, size_t towers, size_t i,
                                tdm_variable *const *slots)
{
    tdm_variable *var = items[0]->vars[i];
    size_t n = tdm_variable_copy_count(var), bytes = tdm_variable_count(var) * sizeof(float),
           dst_count = 0;
    tdm_tensor **sums = calloc(n ? n : 1, sizeof *sums);
    tdm_buffer_view *grads = calloc(n ? n : 1, sizeof *grads);
    tdm_buffer_view *views = calloc(towers + n, sizeof *views);
    tdm_status s = sums && grads && views
                       ? TDM_OK
                       : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", apply_func);
    for (size_t c = 0; c < n && s == TDM_OK; c++) {
        if (!tdm_optimizer_computes_copy(var, c))
            continue;
        s = tdm_tensor_create_like(tdm_tensor_device(tdm_variable_copy(var, c)),
                                   tdm_variable_copy(var, c), &sums[c]);
        if (s == TDM_OK) {
            grads[c] = tdm_tensor_view(sums[c]);
            views[towers + dst_count] = grads[c];
            views[towers + dst_count++].size = bytes;
        }
    }
    for (size_t r = 0; r < towers && s == TDM_OK; r++) {
        views[r] = tdm_tensor_view(items[r]->grads[i]);
        views[r].size = bytes;
    }
    if (s == TDM_OK && bytes) {
        tdm_collective_options o = tdm_strategy_collective_options(tdm_variable_strategy(var));
        s = tdm_reduce_to(TDM_REDUCE_SUM, views, towers, views + towers, dst_count, &o);
        if (s != TDM_OK)
            tdm_fail_context(s, "%s: summing the towers' gradients of variable '%s'", apply_func,
                             tdm_variable_name(var));
    }
    if (s == TDM_OK)
        s = tdm_optimizer_update_var(opt, step, var, slots, grads, apply_func);
    for (size_t c = 0; sums && c < n; c++)
        tdm_tensor_destroy(sums[c]);
    free(sums);
    free(grads);
    free(views);
    return s;
}

/* The merge step: once, on the coordinating thread, with every tower's item. */
static tdm_status merge_apply(tdm_strategy *s, void *const *items, void *user_data, void **results)
{
    (void)user_data;
    (void)results;
    tower_item *const *ti = (tower_item *const *)items;
    tdm_status st = check_items(s, ti);
    if (st != TDM_OK)
        return st;
    tdm_optimizer *opt = ti[0]->t->inner;
    size_t count = ti[0]->count, per = opt->slot_count;
    tdm_variable **slots = calloc(count * per + 1, sizeof *slots);
    if (!slots)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", apply_func);
    st = tdm_optimizer_lookup_slots(opt, ti[0]->vars, count, slots, apply_func);
    tdm_opt_step step = tdm_optimizer_step_params(opt, tdm_optimizer_iterations(opt));
    for (size_t i = 0; i < count && st == TDM_OK; i++)
        st = sum_and_apply(opt, &step, ti, tdm_strategy_num_local_replicas(s), i, slots + i * per);
    free(slots);
    if (st == TDM_OK)
        atomic_fetch_add(&opt->iterations, 1);
    return st;
}

tdm_status tdm_tower_optimizer_apply(tdm_tower_optimizer *t, tdm_replica_context *rc,
                                     tdm_variable *const *vars, tdm_tensor *const *grads,
                                     size_t count)
{
    TDM_CHECK_ARG(t, apply_func);
    TDM_CHECK_ARG(rc, apply_func);
    if (tdm_replica_context_current() != rc)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: called outside this tower's replica function; every tower calls it "
                        "from its replica function with its own replica context (in "
                        "cross-replica context, call tdm_optimizer_apply)",
                        apply_func);
    if (tdm_replica_strategy(rc) != t->inner->strategy)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the replica function runs on another strategy than the "
                        "optimizer's",
                        apply_func);
    tower_item item = {.t = t, .vars = vars, .grads = grads, .count = count};
    check_tower_args(&item, rc);
    return tdm_replica_gather(rc, merge_apply, NULL, &item, NULL, apply_func);
}
