/* Distributed values: one tensor per replica or device, or one plain tensor. */
#include <stdlib.h>

#include "base/error.h"
#include "distribute/strategy_impl.h"

static tdm_status check_components(tdm_value_kind kind, tdm_tensor *const *components,
                                   size_t count)
{
    static const char func[] = "tdm_value_create";
    if (kind != TDM_VALUE_PLAIN && kind != TDM_VALUE_PER_REPLICA && kind != TDM_VALUE_MIRRORED)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown kind %d", func, (int)kind);
    if (count == 0 || (kind == TDM_VALUE_PLAIN && count != 1))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: a %s value takes %s, not %zu", func,
                        kind == TDM_VALUE_PLAIN ? "plain" : "distributed",
                        kind == TDM_VALUE_PLAIN ? "one tensor" : "one or more tensors", count);
    TDM_CHECK_ARG(components, func);
    for (size_t i = 0; i < count; i++) {
        const tdm_tensor *t = components[i];
        if (!t)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: component %zu is NULL", func, i);
        if (t->dtype != components[0]->dtype)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: component %zu is %s, component 0 %s",
                            func, i, tdm_dtype_name(t->dtype),
                            tdm_dtype_name(components[0]->dtype));
        if (kind == TDM_VALUE_MIRRORED && !tdm_shape_equal(&t->shape, &components[0]->shape))
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: mirrored components must share a shape; component %zu differs",
                            func, i);
        for (size_t j = 0; j < i; j++)
            if (components[j]->device == t->device)
                return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                                "%s: components %zu and %zu are on the same device", func, j, i);
    }
    return TDM_OK;
}

static tdm_status make(tdm_value_kind kind, tdm_tensor *const *components, size_t count,
                       int owns, tdm_value **out)
{
    TDM_CHECK_ARG(out, "tdm_value_create");
    *out = NULL;
    tdm_status s = check_components(kind, components, count);
    if (s != TDM_OK)
        return s;
    tdm_value *v = calloc(1, sizeof *v);
    tdm_tensor **c = calloc(count, sizeof *c);
    if (!v || !c) {
        free(v);
        free(c);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_value_create: out of host memory");
    }
    for (size_t i = 0; i < count; i++)
        c[i] = components[i];
    *v = (tdm_value){.kind = kind, .count = count, .components = c, .owns = owns};
    *out = v;
    return TDM_OK;
}

tdm_status tdm_value_create(tdm_value_kind kind, tdm_tensor *const *components, size_t count,
                            tdm_value **out)
{
    return make(kind, components, count, 1, out);
}

tdm_status tdm_value_borrow(tdm_value_kind kind, tdm_tensor *const *components, size_t count,
                            tdm_value **out)
{
    return make(kind, components, count, 0, out);
}

void tdm_value_destroy(tdm_value *value)
{
    if (!value)
        return;
    for (size_t i = 0; value->owns && i < value->count; i++)
        tdm_tensor_destroy(value->components[i]);
    free(value->components);
    free(value);
}

tdm_value_kind tdm_value_kind_of(const tdm_value *value)
{
    return value ? value->kind : TDM_VALUE_PLAIN;
}

size_t tdm_value_count(const tdm_value *value)
{
    return value ? value->count : 0;
}

tdm_tensor *tdm_value_component(const tdm_value *value, size_t i)
{
    return value && i < value->count ? value->components[i] : NULL;
}

tdm_status tdm_local_results(const tdm_value *value, tdm_tensor **out, size_t capacity,
                             size_t *count)
{
    TDM_CHECK_ARG(value, "tdm_local_results");
    TDM_CHECK_ARG(count, "tdm_local_results");
    if (capacity && !out)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_local_results: argument 'out' is NULL");
    for (size_t i = 0; i < value->count && i < capacity; i++)
        out[i] = value->components[i];
    *count = value->count;
    return TDM_OK;
}
