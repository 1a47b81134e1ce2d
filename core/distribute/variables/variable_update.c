/* tdm_strategy_update (Strategy.extended.update), the update context, and the
 * check_mirrored debug check that mirrored copies stay bitwise identical. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "distribute/variables/variable_impl.h"

tdm_status tdm_strategy_update(tdm_strategy *s, tdm_variable *var, tdm_update_fn fn,
                               void *user_data)
{
    static const char func[] = "tdm_strategy_update";
    TDM_CHECK_ARG(s, func);
    TDM_CHECK_ARG(var, func);
    TDM_CHECK_ARG(fn, func);
    tdm_status st = tdm_require_cross_replica(s, func);
    if (st != TDM_OK)
        return st;
    if (var->strategy != s)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: variable '%s' belongs to another strategy; update it with its own",
                        func, var->name);
    tdm_thread_mode *m = tdm_mode();
    tdm_update_context *saved = m->update;
    for (size_t i = 0; i < var->copy_count && st == TDM_OK; i++) {
        tdm_update_context uc = {.var = var, .index = i};
        m->update = &uc;
        st = fn(&uc, var->copies[i], user_data);
        m->update = saved;
        tdm_variable_wrote(var, i);
        if (st != TDM_OK)
            st = tdm_fail_context(st, "%s: variable '%s', copy %zu", func, var->name, i);
    }
    return st != TDM_OK ? st : tdm_variable_check_if_asked(var, func);
}

size_t tdm_update_index(const tdm_update_context *uc)
{
    return uc ? uc->index : 0;
}

tdm_device *tdm_update_device(const tdm_update_context *uc)
{
    return uc ? uc->var->copies[uc->index]->device : NULL;
}

tdm_variable *tdm_update_variable(const tdm_update_context *uc)
{
    return uc ? uc->var : NULL;
}

/* "0x1p+0"; NaNs with equal text get their bits, so that the two values differ. */
static void format_value(float x, float other, char *buf, size_t size)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    snprintf(buf, size, "%a", (double)x);
    if (x != x && other != other)
        snprintf(buf + strlen(buf), size - strlen(buf), " (bits 0x%08x)", (unsigned)bits);
}

/* Element e of a copy as text: a float in hex (with its bits when both are NaN), or
 * an int64. */
static void format_element(const tdm_variable *var, const unsigned char *x,
                           const unsigned char *other, char *buf, size_t size)
{
    if (var->dtype == TDM_I64) {
        int64_t v;
        memcpy(&v, x, sizeof v);
        snprintf(buf, size, "%lld", (long long)v);
        return;
    }
    float a, b;
    memcpy(&a, x, sizeof a);
    memcpy(&b, other, sizeof b);
    format_value(a, b, buf, size);
}

static tdm_status differs(const tdm_variable *var, const char *func, size_t copy, size_t e,
                          const unsigned char *want, const unsigned char *got)
{
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    if (tdm_device_describe(var->copies[copy]->device, &desc) != TDM_OK)
        snprintf(desc.id, sizeof desc.id, "?");
    char a[64], b[64];
    format_element(var, want, got, a, sizeof a);
    format_element(var, got, want, b, sizeof b);
    return tdm_fail(TDM_ERR_INVALID_STATE,
                    "%s: variable '%s': copy %zu (device %s) differs from copy 0 at element %zu: "
                    "%s vs %s (check_mirrored: copies of a mirrored variable must stay bitwise "
                    "identical; write them only through tdm_variable_assign or "
                    "tdm_strategy_update, and keep every device's arithmetic deterministic)",
                    func, var->name, copy, desc.id, e, a, b);
}

static tdm_status read_copy(const tdm_variable *var, size_t i, void *dst, const char *func)
{
    tdm_status s = tdm_tensor_read(var->copies[i], dst, tdm_variable_bytes(var));
    return s == TDM_OK ? s : tdm_fail_context(s, "%s: variable '%s', copy %zu", func, var->name, i);
}

tdm_status tdm_variable_check_copies(const tdm_variable *var, const char *func)
{
    size_t bytes = tdm_variable_bytes(var), elem = tdm_dtype_size(var->dtype);
    if (var->copy_count < 2 || bytes == 0)
        return TDM_OK;
    unsigned char *first = malloc(bytes), *other = malloc(bytes);
    tdm_status s =
        first && other ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    if (s == TDM_OK)
        s = read_copy(var, 0, first, func);
    for (size_t c = 1; s == TDM_OK && c < var->copy_count; c++) {
        s = read_copy(var, c, other, func);
        if (s != TDM_OK || !memcmp(first, other, bytes))
            continue;
        size_t e = 0;
        while (!memcmp(first + e * elem, other + e * elem, elem))
            e++;
        s = differs(var, func, c, e, first + e * elem, other + e * elem);
    }
    free(first);
    free(other);
    return s;
}

tdm_status tdm_variable_check_if_asked(const tdm_variable *var, const char *func)
{
    if (!var->strategy->opts.check_mirrored || !tdm_variable_mirrored(var))
        return TDM_OK;
    return tdm_variable_check_copies(var, func);
}

tdm_status tdm_strategy_check_mirrored(tdm_strategy *s)
{
    static const char func[] = "tdm_strategy_check_mirrored";
    TDM_CHECK_ARG(s, func);
    tdm_status st = tdm_require_cross_replica(s, func);
    if (st != TDM_OK)
        return st;
    /* The lock keeps the list still while copies are read. */
    tdm_mutex_lock(&s->lock);
    for (tdm_variable *v = s->variables; v && st == TDM_OK; v = v->next)
        if (tdm_variable_mirrored(v)) {
            st = tdm_variable_check_copies(v, func);
            if (st == TDM_OK)
                st = tdm_variable_check_across_ranks(v, func);
        }
    tdm_mutex_unlock(&s->lock);
    return st;
}

int tdm_strategy_checks_mirrored(const tdm_strategy *s)
{
    return s->opts.check_mirrored;
}
