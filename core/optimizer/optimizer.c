/* Optimizers: options and their checks, names, slot variables and iterations. The
 * updates are in optimizer_apply.c, the tower optimizer in tower_optimizer.c. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "optimizer/optimizer_impl.h"
#include "base/options.h"
#include "distribute/variable_access.h"
#include "platform/tdm_text.h"

static const char create_func[] = "tdm_optimizer_create";

/* ---- kinds and names ---- */

/* The names tdm_optimizer_kind_parse reads (and tdm_optimizer_kind_names lists), and
 * what each means, index by index. */
static const char *const parse_names[] = {"sgd",     "momentum", "nesterov", "adagrad",
                                          "rmsprop", "adam",     "adamw",    NULL};
static const struct {
    tdm_optimizer_kind kind;
    int nesterov;
} parse_kinds[] = {
    {TDM_OPT_SGD, 0},     {TDM_OPT_MOMENTUM, 0}, {TDM_OPT_MOMENTUM, 1}, {TDM_OPT_ADAGRAD, 0},
    {TDM_OPT_RMSPROP, 0}, {TDM_OPT_ADAM, 0},     {TDM_OPT_ADAMW, 0},
};
_Static_assert(sizeof parse_names / sizeof parse_names[0] ==
                   sizeof parse_kinds / sizeof parse_kinds[0] + 1,
               "one meaning per name");

const char *const *tdm_optimizer_kind_names(void)
{
    return parse_names;
}

tdm_status tdm_optimizer_kind_parse(const char *name, tdm_optimizer_options *opts)
{
    static const char func[] = "tdm_optimizer_kind_parse";
    TDM_CHECK_ARG(name, func);
    TDM_CHECK_ARG(opts, func);
    for (size_t i = 0; parse_names[i]; i++)
        if (!tdm_strcasecmp(name, parse_names[i])) {
            opts->kind = parse_kinds[i].kind;
            if (opts->kind == TDM_OPT_MOMENTUM)
                opts->nesterov = parse_kinds[i].nesterov;
            return TDM_OK;
        }
    return tdm_fail_name(func, "optimizer", name, parse_names);
}

const char *tdm_optimizer_name(const tdm_optimizer *opt)
{
    if (!opt)
        return NULL;
    switch (opt->opts.kind) {
    case TDM_OPT_SGD: return "SGD";
    case TDM_OPT_MOMENTUM: return opt->opts.nesterov ? "Nesterov" : "Momentum";
    case TDM_OPT_ADAGRAD: return "Adagrad";
    case TDM_OPT_RMSPROP: return "RMSProp";
    case TDM_OPT_ADAM: return "Adam";
    case TDM_OPT_ADAMW: return "AdamW";
    }
    return "?";
}

/* The slots of the kind, in the kernel's buffer order after w and g. */
static size_t kind_slots(const tdm_optimizer_options *o, const char **names)
{
    switch (o->kind) {
    case TDM_OPT_SGD: return 0;
    case TDM_OPT_MOMENTUM: names[0] = "momentum"; return 1;
    case TDM_OPT_ADAGRAD: names[0] = "accumulator"; return 1;
    case TDM_OPT_RMSPROP:
        names[0] = "rms";
        names[1] = "momentum";
        names[2] = "mg";
        return o->centered ? 3 : 2;
    case TDM_OPT_ADAM:
    case TDM_OPT_ADAMW:
        names[0] = "m";
        names[1] = "v";
        return 2;
    }
    return 0;
}

/* ---- options ---- */

static tdm_status bad_option(const char *field, float value, const char *range)
{
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: '%s' is %g; it must be %s", create_func, field,
                    (double)value, range);
}

static tdm_status check_unit(const char *field, float x, int closed)
{
    int ok = isfinite(x) && x >= 0.0f && (closed ? x <= 1.0f : x < 1.0f);
    return ok ? TDM_OK : bad_option(field, x, closed ? "in [0, 1]" : "in [0, 1)");
}

static tdm_status check_nonnegative(const char *field, float x)
{
    return isfinite(x) && x >= 0.0f ? TDM_OK : bad_option(field, x, "finite and >= 0");
}

static tdm_status check_flag(const char *field, int x)
{
    return x == 0 || x == 1 ? TDM_OK
                            : tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                                       "%s: '%s' is %d; it must be 0 or 1", create_func, field, x);
}

/* Resolves the kind's defaults and checks what the kind uses; clears the flags of
 * other kinds so that the options in force read true. */
static tdm_status resolve_options(tdm_optimizer_options *o)
{
    if ((unsigned)o->kind > TDM_OPT_ADAMW)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: unknown 'kind' %d (SGD, MOMENTUM, ADAGRAD, RMSPROP, ADAM or ADAMW)",
                        create_func, (int)o->kind);
    if (tdm_lr_schedule_check(&o->learning_rate) != TDM_OK)
        return tdm_fail_context(TDM_ERR_INVALID_ARGUMENT, "%s: 'learning_rate'", create_func);
    if (o->momentum < 0.0f)
        o->momentum = o->kind == TDM_OPT_MOMENTUM ? 0.9f : 0.0f;
    tdm_status s = TDM_OK;
    if (o->kind != TDM_OPT_MOMENTUM)
        o->nesterov = 0;
    if (o->kind != TDM_OPT_RMSPROP)
        o->centered = 0;
    switch (o->kind) {
    case TDM_OPT_SGD: break;
    case TDM_OPT_MOMENTUM:
        s = check_unit("momentum", o->momentum, 1);
        if (s == TDM_OK)
            s = check_flag("nesterov", o->nesterov);
        break;
    case TDM_OPT_ADAGRAD:
        s = check_nonnegative("epsilon", o->epsilon);
        if (s == TDM_OK)
            s = check_nonnegative("initial_accumulator", o->initial_accumulator);
        break;
    case TDM_OPT_RMSPROP:
        s = check_unit("momentum", o->momentum, 1);
        if (s == TDM_OK)
            s = check_unit("rho", o->rho, 0);
        if (s == TDM_OK)
            s = check_flag("centered", o->centered);
        if (s == TDM_OK)
            s = check_nonnegative("epsilon", o->epsilon);
        break;
    case TDM_OPT_ADAM:
    case TDM_OPT_ADAMW:
        s = check_unit("beta1", o->beta1, 0);
        if (s == TDM_OK)
            s = check_unit("beta2", o->beta2, 0);
        if (s == TDM_OK)
            s = check_nonnegative("epsilon", o->epsilon);
        if (s == TDM_OK && o->kind == TDM_OPT_ADAMW)
            s = check_nonnegative("weight_decay", o->weight_decay);
        break;
    }
    return s;
}

tdm_status tdm_optimizer_create(tdm_strategy *s, const tdm_optimizer_options *opts,
                                tdm_optimizer **out)
{
    TDM_CHECK_ARG(out, create_func);
    *out = NULL;
    TDM_CHECK_ARG(s, create_func);
    tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
    tdm_status st = tdm_options_read(&o, sizeof o, opts, create_func);
    if (st == TDM_OK)
        st = resolve_options(&o);
    if (st != TDM_OK)
        return st;
    o.size = sizeof o;
    tdm_optimizer *opt = calloc(1, sizeof *opt);
    if (!opt)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", create_func);
    if (tdm_mutex_init(&opt->lock)) {
        free(opt);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: cannot create a mutex", create_func);
    }
    opt->strategy = s;
    opt->opts = o;
    opt->slot_count = kind_slots(&o, opt->slot_names);
    atomic_init(&opt->iterations, 0);
    *out = opt;
    return TDM_OK;
}

void tdm_optimizer_destroy(tdm_optimizer *opt)
{
    if (!opt)
        return;
    for (size_t i = 0; i < opt->entry_count; i++) {
        tdm_slot_entry *e = &opt->entries[i];
        for (size_t k = 0; k < opt->slot_count; k++)
            tdm_variable_destroy(e->slots[k]);
        for (size_t c = 0; c < e->elsewhere_count; c++)
            for (size_t b = 0; b < 2 + opt->slot_count; b++)
                tdm_tensor_destroy(e->elsewhere[c].scratch[b]);
        free(e->elsewhere);
    }
    free(opt->entries);
    tdm_mutex_destroy(&opt->lock);
    free(opt);
}

tdm_status tdm_optimizer_get_options(const tdm_optimizer *opt, tdm_optimizer_options *out)
{
    TDM_CHECK_ARG(opt, "tdm_optimizer_get_options");
    TDM_CHECK_ARG(out, "tdm_optimizer_get_options");
    *out = opt->opts;
    return TDM_OK;
}

tdm_strategy *tdm_optimizer_strategy(const tdm_optimizer *opt)
{
    return opt ? opt->strategy : NULL;
}

size_t tdm_optimizer_slot_names(const tdm_optimizer *opt, const char **names, size_t capacity)
{
    if (!opt)
        return 0;
    for (size_t k = 0; names && k < opt->slot_count && k < capacity; k++)
        names[k] = opt->slot_names[k];
    return opt->slot_count;
}

/* ---- iterations and the rate ---- */

uint64_t tdm_optimizer_iterations(const tdm_optimizer *opt)
{
    return opt ? atomic_load(&opt->iterations) : 0;
}

tdm_status tdm_optimizer_set_iterations(tdm_optimizer *opt, uint64_t n)
{
    static const char func[] = "tdm_optimizer_set_iterations";
    TDM_CHECK_ARG(opt, func);
    const tdm_replica_context *rc = tdm_replica_context_current();
    if (rc)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: called from replica %zu's function: iterations count steps, not "
                        "replicas; set them in cross-replica context (e.g. a merge function "
                        "through tdm_replica_merge_call)",
                        func, tdm_replica_local_id(rc));
    atomic_store(&opt->iterations, n);
    return TDM_OK;
}

tdm_status tdm_optimizer_set_learning_rate(tdm_optimizer *opt, float rate)
{
    static const char func[] = "tdm_optimizer_set_learning_rate";
    TDM_CHECK_ARG(opt, func);
    if (!(rate > 0.0f) || isinf(rate))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: rate %g is not a positive finite number",
                        func, (double)rate);
    tdm_lr_schedule *schedule = &opt->opts.learning_rate;
    if (schedule->kind != TDM_LR_CONSTANT)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: the rate follows its %s schedule; only a constant rate is set",
                        func, tdm_lr_kind_name(schedule->kind));
    if (tdm_replica_context_current())
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: called from a replica's function: the rate is the optimizer's, "
                        "set in cross-replica context between steps",
                        func);
    schedule->initial = rate;
    return TDM_OK;
}

float tdm_optimizer_learning_rate(const tdm_optimizer *opt)
{
    return opt ? tdm_lr_schedule_value(&opt->opts.learning_rate, tdm_optimizer_iterations(opt))
               : NAN;
}

/* ---- slots ---- */

/* The entry of var, or NULL; the caller holds the lock. *hint: where to look first
 * (callers pass variables in a stable order, so the next one is usually next). */
static tdm_slot_entry *find_entry(const tdm_optimizer *opt, const tdm_variable *var, size_t *hint)
{
    size_t n = opt->entry_count;
    for (size_t j = 0; j < n; j++) {
        size_t e = (*hint + j) % n;
        if (opt->entries[e].var == var) {
            *hint = e + 1;
            return &opt->entries[e];
        }
    }
    return NULL;
}

tdm_status tdm_optimizer_check_vars(const tdm_optimizer *opt, tdm_variable *const *vars,
                                    size_t count, const char *func)
{
    if (count)
        TDM_CHECK_ARG(vars, func);
    for (size_t i = 0; i < count; i++) {
        if (!vars[i])
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: vars[%zu] is NULL", func, i);
        if (tdm_variable_strategy(vars[i]) != opt->strategy)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: variable '%s' belongs to another strategy than the "
                            "optimizer's; create the optimizer on the variable's strategy",
                            func, tdm_variable_name(vars[i]));
        if (tdm_variable_dtype(vars[i]) != TDM_F32)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: variable '%s' is %s; optimizers update float32 variables", func,
                            tdm_variable_name(vars[i]),
                            tdm_dtype_name(tdm_variable_dtype(vars[i])));
    }
    return TDM_OK;
}

static tdm_status missing_slots(const tdm_optimizer *opt, const tdm_variable *var, const char *func)
{
    return tdm_fail(TDM_ERR_INVALID_STATE,
                    "%s: variable '%s' has no slots of this %s optimizer; call "
                    "tdm_optimizer_create_slots with it first (in cross-replica context, "
                    "before the step)",
                    func, tdm_variable_name(var), tdm_optimizer_name(opt));
}

tdm_status tdm_optimizer_lookup_slots(const tdm_optimizer *opt, tdm_variable *const *vars,
                                      size_t count, tdm_variable **slots, const char *func)
{
    tdm_optimizer *o = (tdm_optimizer *)opt; /* the lock only */
    tdm_status st = TDM_OK;
    size_t hint = 0;
    tdm_mutex_lock(&o->lock);
    for (size_t i = 0; i < count && st == TDM_OK; i++) {
        const tdm_slot_entry *e = find_entry(opt, vars[i], &hint);
        if (!e)
            st = missing_slots(opt, vars[i], func);
        for (size_t k = 0; e && k < opt->slot_count; k++)
            slots[i * opt->slot_count + k] = e->slots[k];
    }
    tdm_mutex_unlock(&o->lock);
    return st;
}

tdm_status tdm_optimizer_elsewhere_scratch(tdm_optimizer *opt, const tdm_variable *var, size_t copy,
                                           tdm_elsewhere **out)
{
    size_t hint = 0;
    tdm_status st = TDM_OK;
    tdm_mutex_lock(&opt->lock);
    tdm_slot_entry *e = find_entry(opt, var, &hint);
    if (!e)
        st = missing_slots(opt, var, "tdm_optimizer_apply_local");
    else if (!e->elsewhere) {
        e->elsewhere = calloc(tdm_variable_copy_count(var), sizeof *e->elsewhere);
        e->elsewhere_count = e->elsewhere ? tdm_variable_copy_count(var) : 0;
        if (!e->elsewhere)
            st = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_optimizer_apply_local: out of host memory");
    }
    if (st == TDM_OK)
        *out = &e->elsewhere[copy];
    tdm_mutex_unlock(&opt->lock);
    return st;
}

static tdm_status grow_entries(tdm_optimizer *opt, const char *func)
{
    if (opt->entry_count < opt->entry_capacity)
        return TDM_OK;
    size_t cap = opt->entry_capacity ? 2 * opt->entry_capacity : 16;
    tdm_slot_entry *e = realloc(opt->entries, cap * sizeof *e);
    if (!e)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    opt->entries = e;
    opt->entry_capacity = cap;
    return TDM_OK;
}

float tdm_optimizer_slot_init(const tdm_optimizer *opt)
{
    return opt->opts.kind == TDM_OPT_ADAGRAD ? opt->opts.initial_accumulator : 0.0f;
}

char *tdm_optimizer_slot_var_name(const tdm_optimizer *opt, const tdm_variable *var, size_t k)
{
    size_t len = strlen(tdm_variable_name(var)) + strlen(opt->slot_names[k]) + 2;
    char *name = malloc(len);
    if (name)
        snprintf(name, len, "%s/%s", tdm_variable_name(var), opt->slot_names[k]);
    return name;
}

/* Slot k of var, on var's devices, holding `value` everywhere. */
static tdm_status make_slot(tdm_optimizer *opt, tdm_variable *var, size_t k, float value,
                            tdm_variable **out, const char *func)
{
    char *name = tdm_optimizer_slot_var_name(opt, var, k);
    if (!name)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    tdm_variable_options vo = TDM_VARIABLE_OPTIONS_INIT;
    vo.name = name;
    vo.shape = tdm_variable_shape(var);
    vo.synchronization = tdm_variable_synchronization(var);
    vo.trainable = 0;
    /* A slot lives where its variable lives (TensorFlow colocates them): the same
     * devices in the same order, so copy c of a slot sits beside copy c of var; a
     * parameter-server variable's slots live at its home alone. */
    tdm_variable *saved = tdm_colocate_swap(var);
    tdm_status st = tdm_variable_create(opt->strategy, &vo, out);
    tdm_colocate_swap(saved);
    for (size_t c = 0; st == TDM_OK && value != 0.0f && tdm_variable_count(var) &&
                       c < tdm_variable_copy_count((*out));
         c++) {
        tdm_buffer_view v = tdm_tensor_view(tdm_variable_copy((*out), c));
        st = tdm_buffer_fill(v.buffer, v.offset, &value, sizeof value,
                             tdm_variable_count(var) * sizeof value);
        tdm_variable_wrote(*out, c);
    }
    if (st != TDM_OK) {
        tdm_variable_destroy(*out);
        *out = NULL;
        tdm_fail_context(st, "%s: slot '%s'", func, name);
    }
    free(name);
    return st;
}

static tdm_status check_slot_var(const tdm_optimizer *opt, const tdm_variable *var,
                                 const char *func)
{
    if (tdm_variable_synchronization(var) == TDM_SYNC_ON_READ)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s' is sync-on-read: its copies differ, so an optimizer "
                        "cannot keep them (and its slots) in step; train mirrored (ON_WRITE) "
                        "variables",
                        func, tdm_variable_name(var));
    (void)opt;
    return TDM_OK;
}

/* Creates var's slots unless it has them; the caller holds the lock. */
static tdm_status add_entry(tdm_optimizer *opt, tdm_variable *var, size_t *hint, const char *func)
{
    if (find_entry(opt, var, hint))
        return TDM_OK;
    tdm_status st = check_slot_var(opt, var, func);
    if (st == TDM_OK)
        st = grow_entries(opt, func);
    if (st != TDM_OK)
        return st;
    tdm_slot_entry e = {.var = var};
    for (size_t k = 0; k < opt->slot_count && st == TDM_OK; k++) {
        st = make_slot(opt, var, k, tdm_optimizer_slot_init(opt), &e.slots[k], func);
    }
    if (st != TDM_OK) {
        for (size_t k = 0; k < opt->slot_count; k++)
            tdm_variable_destroy(e.slots[k]);
        return st;
    }
    opt->entries[opt->entry_count++] = e;
    return TDM_OK;
}

tdm_status tdm_optimizer_create_slots(tdm_optimizer *opt, tdm_variable *const *vars, size_t count)
{
    static const char func[] = "tdm_optimizer_create_slots";
    TDM_CHECK_ARG(opt, func);
    tdm_status st = tdm_optimizer_check_vars(opt, vars, count, func);
    if (st != TDM_OK)
        return st;
    const tdm_replica_context *rc = tdm_replica_context_current();
    if (rc)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: called from replica %zu's function: slots are variables, created "
                        "once for all replicas; create them in cross-replica context (before "
                        "tdm_strategy_run, or in a merge function)",
                        func, tdm_replica_local_id(rc));
    st = tdm_require_cross_replica(opt->strategy, func);
    size_t hint = 0;
    tdm_mutex_lock(&opt->lock);
    for (size_t i = 0; i < count && st == TDM_OK; i++)
        st = add_entry(opt, vars[i], &hint, func);
    tdm_mutex_unlock(&opt->lock);
    return st;
}

static void list_slots(const tdm_optimizer *opt, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < opt->slot_count && used < size; k++)
        used +=
            (size_t)snprintf(buf + used, size - used, "%s'%s'", k ? ", " : "", opt->slot_names[k]);
}

tdm_status tdm_optimizer_get_slot(const tdm_optimizer *opt, const tdm_variable *var,
                                  const char *name, tdm_variable **out)
{
    static const char func[] = "tdm_optimizer_get_slot";
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(opt, func);
    TDM_CHECK_ARG(var, func);
    TDM_CHECK_ARG(name, func);
    char valid[128];
    list_slots(opt, valid, sizeof valid);
    int k = -1;
    for (size_t j = 0; j < opt->slot_count; j++)
        if (!strcmp(opt->slot_names[j], name))
            k = (int)j;
    if (k < 0)
        return opt->slot_count
                   ? tdm_fail(TDM_ERR_NOT_FOUND,
                              "%s: variable '%s' has no slot '%s': the slots of %s are %s", func,
                              tdm_variable_name(var), name, tdm_optimizer_name(opt), valid)
                   : tdm_fail(TDM_ERR_NOT_FOUND,
                              "%s: variable '%s' has no slot '%s': %s keeps no slots", func,
                              tdm_variable_name(var), name, tdm_optimizer_name(opt));
    tdm_optimizer *o = (tdm_optimizer *)opt; /* the lock only */
    size_t hint = 0;
    tdm_mutex_lock(&o->lock);
    const tdm_slot_entry *e = find_entry(opt, var, &hint);
    if (e)
        *out = e->slots[k];
    tdm_mutex_unlock(&o->lock);
    if (!e)
        return tdm_fail(TDM_ERR_NOT_FOUND,
                        "%s: variable '%s' has no slot '%s' yet: the slots of %s (%s) are made "
                        "by tdm_optimizer_create_slots",
                        func, tdm_variable_name(var), name, tdm_optimizer_name(opt), valid);
    return TDM_OK;
}
