/* merge_call and all_reduce in replica context, built on the replicas' gather. */
#include <stdlib.h>

#include "base/error.h"
#include "distribute/strategy_impl.h"

/* What each replica brings to a merge call. */
typedef struct merge_item {
    tdm_merge_fn fn;
    tdm_tensor *value;
} merge_item;

static tdm_status check_merge_items(const tdm_strategy *s, merge_item *const *items)
{
    for (size_t i = 1; i < s->replica_count; i++) {
        if (items[i]->fn != items[0]->fn)
            return tdm_fail(TDM_ERR_INVALID_STATE,
                            "replicas 0 and %zu passed different merge functions", i);
        if (!items[i]->value != !items[0]->value)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "replica %zu passed %s value, replica 0 %s: all or none must", i,
                            items[i]->value ? "a" : "no", items[0]->value ? "one" : "none");
    }
    return TDM_OK;
}

/* Hands component i of the merge function's result to replica i. */
static tdm_status scatter_result(const tdm_strategy *s, tdm_value *result, void **results)
{
    if (!result)
        return TDM_OK;
    if (result->count != s->replica_count || !result->owns) {
        tdm_value_destroy(result);
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "the merge function's result has %zu components for %zu replicas",
                        result->count, s->replica_count);
    }
    for (size_t i = 0; i < result->count; i++)
        results[i] = result->components[i];
    result->owns = 0;
    tdm_value_destroy(result);
    return TDM_OK;
}

static tdm_status merge_gathered(tdm_strategy *s, void *const *items, void *user_data,
                                 void **results)
{
    merge_item *const *mi = (merge_item *const *)items;
    tdm_status st = check_merge_items(s, mi);
    if (st != TDM_OK)
        return st;
    tdm_value *gathered = NULL, *result = NULL;
    if (mi[0]->value) {
        tdm_tensor **tensors = malloc(s->replica_count * sizeof *tensors);
        for (size_t i = 0; tensors && i < s->replica_count; i++)
            tensors[i] = mi[i]->value;
        st = tensors ? tdm_value_borrow(TDM_VALUE_PER_REPLICA, tensors, s->replica_count,
                                        &gathered)
                     : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
        free(tensors);
    }
    if (st == TDM_OK)
        st = mi[0]->fn(s, gathered, user_data, &result);
    tdm_value_destroy(gathered);
    if (st != TDM_OK) {
        tdm_value_destroy(result);
        return st;
    }
    return scatter_result(s, result, results);
}

tdm_status tdm_replica_merge_call(tdm_replica_context *rc, tdm_merge_fn fn, void *user_data,
                                  tdm_tensor *value, tdm_tensor **out)
{
    static const char func[] = "tdm_replica_merge_call";
    if (out)
        *out = NULL;
    TDM_CHECK_ARG(rc, func);
    TDM_CHECK_ARG(fn, func);
    if (tdm_mode()->replica != rc)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: called outside this replica's function (in cross-replica mode, "
                        "call the function directly)",
                        func);
    merge_item item = {fn, value};
    void *mine = NULL;
    tdm_status st = tdm_replica_gather(rc, merge_gathered, user_data, &item, &mine, func);
    if (out)
        *out = mine;
    else
        tdm_tensor_destroy(mine);
    return st;
}
