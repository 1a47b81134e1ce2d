/* The calling thread's mode (default, cross-replica, replica) and strategy scopes.
 * Thread-local: replicas run on their own threads, each in replica mode, while the
 * thread that called run stays in cross-replica mode for merge functions. */
#include "base/error.h"
#include "distribute/strategy_impl.h"

static _Thread_local tdm_thread_mode mode;

tdm_thread_mode *tdm_mode(void)
{
    return &mode;
}

static tdm_status mixing(const char *func, const tdm_strategy *entered)
{
    return tdm_fail(TDM_ERR_INVALID_STATE,
                    "%s: another strategy (%zu replicas) is entered on this thread: mixing "
                    "strategies is not allowed; exit its scope first",
                    func, entered->replica_count);
}

tdm_status tdm_require_cross_replica(const tdm_strategy *s, const char *func)
{
    TDM_CHECK_ARG(s, func);
    if (mode.replica)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s is a cross-replica operation, called from replica %zu's function: "
                        "use tdm_replica_merge_call to run it once for all replicas",
                        func, mode.replica->id);
    if (mode.scope && mode.scope != s)
        return mixing(func, mode.scope);
    return TDM_OK;
}

tdm_status tdm_strategy_scope_enter(tdm_strategy *s)
{
    TDM_CHECK_ARG(s, "tdm_strategy_scope_enter");
    if (mode.scope && mode.scope != s)
        return mixing("tdm_strategy_scope_enter", mode.scope);
    mode.scope = s;
    mode.depth++;
    atomic_fetch_add(&s->entered, 1);
    return TDM_OK;
}

tdm_status tdm_strategy_scope_exit(tdm_strategy *s)
{
    TDM_CHECK_ARG(s, "tdm_strategy_scope_exit");
    if (mode.scope != s || mode.depth == 0 || (mode.replica && mode.depth == 1))
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "tdm_strategy_scope_exit: the strategy's scope is not entered on this "
                        "thread");
    if (--mode.depth == 0)
        mode.scope = NULL;
    atomic_fetch_sub(&s->entered, 1);
    return TDM_OK;
}

tdm_replica_context *tdm_replica_context_current(void)
{
    return mode.replica;
}

int tdm_in_cross_replica_context(void)
{
    return mode.scope && !mode.replica;
}

/* The strategy the thread works under: its replica function's, else its scope's. */
static tdm_strategy *current(void)
{
    return mode.replica ? mode.replica->strategy : mode.scope;
}

int tdm_has_strategy(void)
{
    return current() && current()->kind != TDM_STRATEGY_DEFAULT;
}

tdm_status tdm_require_replica_context(const tdm_replica_context *rc)
{
    static const char func[] = "tdm_require_replica_context";
    TDM_CHECK_ARG(rc, func);
    if (mode.replica == rc)
        return TDM_OK;
    return tdm_fail(TDM_ERR_INVALID_STATE, "%s: called in %s, not in the given replica's function",
                    func,
                    mode.replica ? "another replica's function"
                    : mode.scope ? "cross-replica mode"
                                 : "default mode (no strategy entered)");
}

void tdm_strategy_note_loss_reduction(tdm_strategy *s, tdm_loss_reduction reduction)
{
    if (s)
        atomic_store(&s->loss_reduction, (int)reduction + 1);
}

tdm_reduce_op tdm_get_loss_reduction(void)
{
    tdm_strategy *s = current();
    if (!s || s->kind == TDM_STRATEGY_DEFAULT)
        return TDM_REDUCE_SUM;
    int noted = atomic_load(&s->loss_reduction);
    return noted == TDM_LOSS_SUM_OVER_BATCH_SIZE + 1 ? TDM_REDUCE_MEAN : TDM_REDUCE_SUM;
}

int tdm_in_update_function(void)
{
    return mode.update != NULL;
}

tdm_variable *tdm_colocate_swap(tdm_variable *var)
{
    tdm_variable *previous = mode.colocate;
    mode.colocate = var;
    return previous;
}
