/* batch_reduce_to: many values at once. Values on their own devices are all-reduced
 * in packs (fewer, larger collectives); other destinations take one reduce each. */
#include <stdlib.h>

#include "distribute/cross_device.h"
#include "base/error.h"

/* Whether every value is f32 with one component per device of values[0], in order. */
static int packable(const tdm_value *const *values, size_t count)
{
    for (size_t k = 0; k < count; k++) {
        if (values[k]->count != values[0]->count)
            return 0;
        for (size_t i = 0; i < values[k]->count; i++)
            if (values[k]->components[i]->device != values[0]->components[i]->device ||
                values[k]->components[i]->dtype != TDM_F32)
                return 0;
    }
    return 1;
}

/* Copies of every component, all-reduced in place with the strategy's packing. */
static tdm_status all_reduce_packed(tdm_strategy *s, tdm_reduce_op op,
                                    const tdm_value *const *values, size_t count,
                                    tdm_tensor **copies, const char *func)
{
    size_t n = values[0]->count;
    tdm_buffer_view *views = malloc(count * n * sizeof *views);
    if (!views)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    tdm_status st = TDM_OK;
    for (size_t k = 0; k < count && st == TDM_OK; k++)
        for (size_t i = 0; i < n && st == TDM_OK; i++) {
            const tdm_tensor *src = values[k]->components[i];
            st = tdm_tensor_create_like(src->device, src, &copies[k * n + i]);
            if (st == TDM_OK)
                st = tdm_tensor_copy(copies[k * n + i], src);
            views[k * n + i] = tdm_tensor_view(copies[k * n + i]);
        }
    tdm_packing packing = TDM_PACKING_INIT;
    packing.num_packs = s->opts.num_packs;
    packing.bytes_per_pack = s->opts.bytes_per_pack;
    tdm_collective_options o = tdm_strategy_collective_options(s);
    if (o.reduce_on >= (int)n)
        o.reduce_on = -1;
    if (st == TDM_OK)
        st = tdm_batch_all_reduce(op, views, count, n, &packing, &o);
    free(views);
    return st == TDM_OK ? st : tdm_fail_context(st, "%s", func);
}

/* Splits the copies into one MIRRORED value per tensor. */
static tdm_status wrap_each(tdm_tensor **copies, size_t count, size_t n, const char *func,
                            tdm_value **out)
{
    tdm_status st = TDM_OK;
    for (size_t k = 0; k < count; k++) {
        tdm_tensor **t = malloc(n * sizeof *t);
        if (!t) {
            st = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
            for (size_t i = 0; i < n; i++)
                tdm_tensor_destroy(copies[k * n + i]);
            continue;
        }
        for (size_t i = 0; i < n; i++)
            t[i] = copies[k * n + i];
        tdm_status one = xd_mirrored(t, n, func, &out[k]);
        st = st == TDM_OK ? one : st;
    }
    return st;
}

static tdm_status check_values(tdm_strategy *s, tdm_reduce_op op, const tdm_value *const *values,
                               size_t count, const char *func)
{
    if (!values || !count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: no values (count %zu)", func, count);
    tdm_status st = xd_check_op(op, func);
    for (size_t k = 0; k < count && st == TDM_OK; k++)
        st = values[k] ? xd_check_plain(s, op, values[k], func)
                       : tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: values[%zu] is NULL", func, k);
    return st;
}

static void destroy_values(tdm_value **out, size_t count)
{
    for (size_t k = 0; k < count; k++) {
        tdm_value_destroy(out[k]);
        out[k] = NULL;
    }
}

tdm_status tdm_strategy_batch_reduce_to(tdm_strategy *s, tdm_reduce_op op,
                                        const tdm_value *const *values, size_t count,
                                        tdm_device *const *dests, size_t dest_count,
                                        tdm_value **out)
{
    static const char func[] = "tdm_strategy_batch_reduce_to";
    TDM_CHECK_ARG(out, func);
    tdm_status st = tdm_require_cross_replica(s, func);
    if (st == TDM_OK)
        st = check_values(s, op, values, count, func);
    if (st != TDM_OK)
        return st;
    for (size_t k = 0; k < count; k++)
        out[k] = NULL;
    if (dests || !packable(values, count)) {
        for (size_t k = 0; k < count && st == TDM_OK; k++)
            st = tdm_strategy_reduce_to(s, op, values[k], dests, dest_count, &out[k]);
    } else {
        size_t n = values[0]->count;
        tdm_tensor **copies = calloc(count * n, sizeof *copies);
        st = copies ? all_reduce_packed(s, op, values, count, copies, func)
                    : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
        if (st == TDM_OK)
            st = wrap_each(copies, count, n, func, out);
        else
            for (size_t k = 0; copies && k < count * n; k++)
                tdm_tensor_destroy(copies[k]);
        free(copies);
    }
    if (st != TDM_OK)
        destroy_values(out, count);
    return st;
}
