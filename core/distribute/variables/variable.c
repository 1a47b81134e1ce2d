/* Variables: creation with a copy per device, the strategy's list of them, accessors
 * and colocate_vars_with. Reads, writes and updates live in variable_*.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/options.h"
#include "distribute/variables/variable_impl.h"

static const char create_func[] = "tdm_variable_create";

int tdm_variable_copy_index(const tdm_variable *var, const tdm_device *dev)
{
    for (size_t i = 0; i < var->copy_count; i++)
        if (var->copies[i]->device == dev)
            return (int)i;
    return -1;
}

uint64_t tdm_variable_writes(const tdm_variable *var, size_t c)
{
    return atomic_load(&var->writes[c]);
}

void tdm_variable_wrote(tdm_variable *var, size_t c)
{
    for (size_t i = 0; i < var->copy_count; i++)
        if (c == TDM_EVERY_COPY || c == i)
            atomic_fetch_add(&var->writes[i], 1);
}

int tdm_variable_mirrored(const tdm_variable *var)
{
    return var->sync == TDM_SYNC_ON_WRITE;
}

int tdm_variable_distributed(const tdm_variable *var)
{
    tdm_strategy_kind k = var->strategy->kind;
    return k != TDM_STRATEGY_DEFAULT && k != TDM_STRATEGY_ONE_DEVICE;
}

size_t tdm_variable_primary(const tdm_variable *var)
{
    return var->home >= 0 ? (size_t)var->home : 0;
}

int tdm_variable_has_home(const tdm_variable *var)
{
    return var->home >= 0;
}

const char *tdm_assign_op_name(tdm_assign_op op)
{
    return op == TDM_ASSIGN ? "assign" : op == TDM_ASSIGN_ADD ? "assign_add" : "assign_sub";
}

/* int64 variables are exact counters: mirrored, never trained, set from int64s. */
static tdm_status check_dtype(const tdm_variable_options *o, const char *name)
{
    if (o->dtype != TDM_F32 && o->dtype != TDM_I64)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s': dtype %s; variables are TDM_F32 or TDM_I64",
                        create_func, name, tdm_dtype_name(o->dtype));
    if (o->dtype == TDM_F32 && o->initial_int64)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s': initial_int64 is for TDM_I64 variables; give a "
                        "float32 variable initial_value",
                        create_func, name);
    if (o->dtype != TDM_I64)
        return TDM_OK;
    const char *wrong = o->initial_value                           ? "initial_value (floats)"
                        : o->trainable == 1                        ? "trainable"
                        : o->synchronization == TDM_SYNC_ON_READ   ? "synchronization ON_READ"
                                                                   : NULL;
    if (wrong)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: int64 variable '%s' cannot be %s: int64 variables are mirrored "
                        "counters, not trained, with initial_int64 as their initial value",
                        create_func, name, wrong);
    return TDM_OK;
}

/* Reads the caller's options over the defaults and checks the enums. */
static tdm_status read_options(const tdm_variable_options *opts, tdm_variable_options *o)
{
    tdm_variable_options defaults = TDM_VARIABLE_OPTIONS_INIT;
    *o = defaults;
    tdm_status s = tdm_options_read(o, sizeof *o, opts, create_func);
    if (s == TDM_OK)
        s = tdm_check_shape(&o->shape, create_func);
    if (s != TDM_OK)
        return s;
    const char *name = o->name ? o->name : "variable";
    if ((unsigned)o->synchronization > TDM_SYNC_NONE)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: variable '%s': unknown synchronization %d",
                        create_func, name, (int)o->synchronization);
    if ((unsigned)o->aggregation > TDM_AGG_ONLY_FIRST_REPLICA)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: variable '%s': unknown aggregation %d",
                        create_func, name, (int)o->aggregation);
    if (o->trainable < -1 || o->trainable > 1)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s': trainable is %d; use 1, 0 or -1 (the default)",
                        create_func, name, o->trainable);
    return check_dtype(o, name);
}

/* Creation is cross-replica: a replica function runs N times and would make N
 * variables. */
static tdm_status check_mode(const tdm_strategy *s, const char *name)
{
    const tdm_thread_mode *m = tdm_mode();
    if (m->replica)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: variable '%s' created in replica %zu's function; create variables "
                        "outside the replica function (in the strategy's scope), or in a "
                        "merge function through tdm_replica_merge_call",
                        create_func, name, m->replica->id);
    return tdm_require_cross_replica(s, create_func);
}

/* Where the copies go, and which is the home (-1: none):
 *  - colocated with a variable of s (tdm_strategy_colocate_vars_with): on its home's
 *    device alone when it has one (optimizer slots live at the home), else on its
 *    devices;
 *  - a mirrored variable of a parameter-server strategy: a cache on every worker
 *    device, then its home on the next parameter device, round-robin;
 *  - else on the strategy's devices, in replica order.
 * *devs is malloc'ed. */
static tdm_status placement(tdm_strategy *s, const tdm_variable_options *o, tdm_device ***devs,
                            size_t *count, int *home)
{
    const tdm_variable *target = tdm_mode()->colocate;
    int colocated = target && target->strategy == s;
    int at_home = colocated && target->home >= 0;
    int placed = !colocated && s->ps_count && o->synchronization != TDM_SYNC_ON_READ;
    *count = at_home     ? 1
             : colocated ? target->copy_count
                         : s->replica_count + (placed ? 1 : 0);
    *home = at_home ? 0 : placed ? (int)s->replica_count : -1;
    *devs = malloc(*count * sizeof **devs);
    if (!*devs)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", create_func);
    for (size_t i = 0; i < *count; i++)
        (*devs)[i] = at_home     ? target->copies[target->home]->device
                     : colocated ? target->copies[i]->device
                     : i < s->replica_count ? s->devices[i]
                                            : NULL;
    if (placed) {
        tdm_mutex_lock(&s->lock);
        (*devs)[s->replica_count] = s->ps_devices[s->next_home++ % s->ps_count];
        tdm_mutex_unlock(&s->lock);
    }
    return TDM_OK;
}

static void free_variable(tdm_variable *var)
{
    for (size_t i = 0; var->copies && i < var->copy_count; i++)
        tdm_tensor_destroy(var->copies[i]);
    free(var->copies);
    free(var->writes);
    free(var->name);
    free(var);
}

/* Allocates the copies on the given devices, each holding the initial value (NULL:
 * zeros, which are zero bytes in either dtype). */
static tdm_status make_copies(tdm_variable *var, tdm_device *const *devs, const void *init)
{
    size_t bytes = tdm_variable_bytes(var);
    static const float zero = 0.0f;
    for (size_t i = 0; i < var->copy_count; i++) {
        tdm_status s = tdm_tensor_create(devs[i], var->dtype, &var->shape, &var->copies[i]);
        if (s == TDM_OK && bytes) {
            tdm_buffer_view v = tdm_tensor_view(var->copies[i]);
            s = init ? tdm_tensor_write(var->copies[i], init, bytes)
                     : tdm_buffer_fill(v.buffer, 0, &zero, sizeof zero, bytes);
        }
        if (s != TDM_OK)
            return tdm_fail_context(s, "%s: variable '%s', copy %zu", create_func, var->name, i);
    }
    return TDM_OK;
}

/* Resolves the defaults: AUTO is ON_WRITE, ON_READ variables are not trainable
 * unless asked. */
static tdm_status fill_variable(tdm_variable *var, tdm_strategy *s, const tdm_variable_options *o,
                                size_t copy_count)
{
    var->strategy = s;
    var->name = strdup(o->name ? o->name : "variable");
    var->shape = o->shape;
    var->count = tdm_shape_count(&o->shape);
    var->dtype = o->dtype;
    var->sync = o->synchronization == TDM_SYNC_AUTO ? TDM_SYNC_ON_WRITE : o->synchronization;
    var->aggregation = o->aggregation;
    var->trainable = o->trainable >= 0 ? o->trainable
                                       : var->sync != TDM_SYNC_ON_READ && var->dtype == TDM_F32;
    var->copy_count = copy_count;
    var->copies = calloc(copy_count, sizeof *var->copies);
    var->writes = calloc(copy_count, sizeof *var->writes);
    if (!var->name || !var->copies || !var->writes)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", create_func);
    return TDM_OK;
}

static void link_variable(tdm_strategy *s, tdm_variable *var)
{
    tdm_mutex_lock(&s->lock);
    var->prev = s->last_variable;
    if (s->last_variable)
        s->last_variable->next = var;
    else
        s->variables = var;
    s->last_variable = var;
    tdm_mutex_unlock(&s->lock);
}

/* Every process of a multi-worker job starts from the chief's values. */
static tdm_status broadcast_initial(tdm_variable *var)
{
    tdm_buffer_view *views = malloc(var->copy_count * sizeof *views);
    if (!views)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", create_func);
    for (size_t i = 0; i < var->copy_count; i++)
        views[i] = tdm_tensor_view(var->copies[i]);
    char what[96];
    snprintf(what, sizeof what, "%s '%s'", create_func, var->name);
    tdm_status s = tdm_strategy_broadcast_from_chief(var->strategy, views, var->copy_count, what);
    free(views);
    return s;
}

tdm_status tdm_variable_create(tdm_strategy *s, const tdm_variable_options *opts,
                               tdm_variable **out)
{
    TDM_CHECK_ARG(out, create_func);
    *out = NULL;
    TDM_CHECK_ARG(s, create_func);
    tdm_variable_options o;
    tdm_status st = read_options(opts, &o);
    if (st == TDM_OK)
        st = check_mode(s, o.name ? o.name : "variable");
    if (st != TDM_OK)
        return st;
    tdm_device **devs;
    size_t count;
    int home;
    st = placement(s, &o, &devs, &count, &home);
    if (st != TDM_OK)
        return st;
    if (o.synchronization == TDM_SYNC_NONE && (count > 1 || s->replica_count > 1))
        st = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                      "%s: variable '%s': mirrored strategies reject synchronization NONE "
                      "(the strategy has %zu devices); use ON_WRITE (AUTO) or ON_READ",
                      create_func, o.name ? o.name : "variable", s->replica_count);
    tdm_variable *var = st == TDM_OK ? calloc(1, sizeof *var) : NULL;
    if (st == TDM_OK && !var)
        st = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", create_func);
    if (st == TDM_OK)
        st = fill_variable(var, s, &o, count);
    if (var)
        var->home = home;
    if (st == TDM_OK)
        st = make_copies(var, devs,
                         o.dtype == TDM_I64 ? (const void *)o.initial_int64 : o.initial_value);
    if (st == TDM_OK)
        st = broadcast_initial(var);
    if (st == TDM_OK)
        tdm_variable_wrote(var, TDM_EVERY_COPY);
    free(devs);
    if (st != TDM_OK) {
        if (var)
            free_variable(var);
        return st;
    }
    link_variable(s, var);
    *out = var;
    return TDM_OK;
}

/* Unlinks var from its strategy's list; the caller holds s->lock. */
static void unlink_locked(tdm_strategy *s, tdm_variable *var)
{
    if (var->prev)
        var->prev->next = var->next;
    else
        s->variables = var->next;
    if (var->next)
        var->next->prev = var->prev;
    else
        s->last_variable = var->prev;
    var->prev = var->next = NULL;
}

void tdm_variable_destroy(tdm_variable *var)
{
    if (!var)
        return;
    tdm_strategy *s = var->strategy;
    tdm_mutex_lock(&s->lock);
    unlink_locked(s, var);
    tdm_mutex_unlock(&s->lock);
    /* A colocate block on this thread must not keep a dangling target. */
    if (tdm_mode()->colocate == var)
        tdm_mode()->colocate = NULL;
    free_variable(var);
}

void tdm_strategy_free_variables(tdm_strategy *s)
{
    tdm_mutex_lock(&s->lock);
    tdm_variable *var = s->variables;
    s->variables = s->last_variable = NULL;
    tdm_mutex_unlock(&s->lock);
    while (var) {
        tdm_variable *next = var->next;
        if (tdm_mode()->colocate == var)
            tdm_mode()->colocate = NULL;
        free_variable(var);
        var = next;
    }
}

const char *tdm_variable_name(const tdm_variable *var)
{
    return var ? var->name : NULL;
}

tdm_shape tdm_variable_shape(const tdm_variable *var)
{
    return var ? var->shape : TDM_SCALAR;
}

tdm_synchronization tdm_variable_synchronization(const tdm_variable *var)
{
    return var ? var->sync : TDM_SYNC_AUTO;
}

tdm_aggregation tdm_variable_aggregation(const tdm_variable *var)
{
    return var ? var->aggregation : TDM_AGG_NONE;
}

int tdm_variable_trainable(const tdm_variable *var)
{
    return var ? var->trainable : 0;
}

tdm_dtype tdm_variable_dtype(const tdm_variable *var)
{
    return var ? var->dtype : TDM_F32;
}

size_t tdm_variable_bytes(const tdm_variable *var)
{
    return var->count * tdm_dtype_size(var->dtype);
}

size_t tdm_variable_copy_count(const tdm_variable *var)
{
    return var ? var->copy_count : 0;
}

tdm_tensor *tdm_variable_copy(const tdm_variable *var, size_t i)
{
    return var && i < var->copy_count ? var->copies[i] : NULL;
}

tdm_device *tdm_variable_home(const tdm_variable *var)
{
    return var && var->home >= 0 ? var->copies[var->home]->device : NULL;
}

tdm_tensor *tdm_variable_local(const tdm_variable *var, const tdm_replica_context *rc)
{
    if (!var || !rc)
        return NULL;
    int i = tdm_variable_copy_index(var, tdm_replica_device(rc));
    return i >= 0 ? var->copies[i] : NULL;
}

tdm_status tdm_strategy_colocate_vars_with(tdm_strategy *s, tdm_variable *var)
{
    static const char func[] = "tdm_strategy_colocate_vars_with";
    TDM_CHECK_ARG(s, func);
    TDM_CHECK_ARG(var, func);
    tdm_thread_mode *m = tdm_mode();
    if (var->strategy != s)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s' belongs to another strategy; colocate with a "
                        "variable of this strategy",
                        func, var->name);
    if (m->colocate)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: this thread is already colocating variables with '%s'; call "
                        "tdm_strategy_colocate_end first (blocks do not nest)",
                        func, m->colocate->name);
    m->colocate = var;
    return TDM_OK;
}

tdm_status tdm_strategy_colocate_end(tdm_strategy *s)
{
    static const char func[] = "tdm_strategy_colocate_end";
    TDM_CHECK_ARG(s, func);
    tdm_thread_mode *m = tdm_mode();
    if (!m->colocate || m->colocate->strategy != s)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: no tdm_strategy_colocate_vars_with of this strategy is in effect "
                        "on this thread",
                        func);
    m->colocate = NULL;
    return TDM_OK;
}

size_t tdm_strategy_trainable_variables(tdm_strategy *s, tdm_variable **out, size_t capacity)
{
    if (!s)
        return 0;
    size_t n = 0;
    tdm_mutex_lock(&s->lock);
    for (tdm_variable *v = s->variables; v; v = v->next)
        if (v->trainable && n++ < capacity && out)
            out[n - 1] = v;
    tdm_mutex_unlock(&s->lock);
    return n;
}

tdm_strategy *tdm_variable_strategy(const tdm_variable *var)
{
    return var->strategy;
}

size_t tdm_variable_count(const tdm_variable *var)
{
    return var->count;
}
