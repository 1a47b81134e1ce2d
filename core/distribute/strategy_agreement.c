/* What the processes of a job must agree on, compared before they train: a job
 * started with another learning rate, model or data in one process would otherwise
 * train on in silence, or fail at a later collective that cannot say why. Each
 * process's items travel as "name\0value\0..."; the chief's go to every process, each
 * says whether its own differ, and the first that does sends its items, so that every
 * process names the same item and both values. The job's deadline is always among
 * them: processes that wait for each other by different deadlines (mpirun's MPMD
 * form gives -x to its first program alone) once left a server waiting minutes for a
 * worker its chief had long dropped, or a chief giving up on a server still busy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "collective/ranks.h"
#include "distribute/strategy_impl.h"
#include "distribute/variable_access.h"

#define FUNC "tdm_strategy_check_agreement"
#define MAX_LIST_BYTES ((size_t)1 << 24) /* sizes travel as floats, exact below 2^24 */
#define ABSENT "(none)"

typedef struct item_list {
    char *bytes;
    size_t size;
} item_list;

static tdm_status pack(const tdm_agreement_item *items, size_t count, item_list *out)
{
    size_t size = 0;
    for (size_t i = 0; i < count; i++) {
        if (!items[i].name || !items[i].value)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: item %zu has no %s", FUNC, i,
                            items[i].name ? "value" : "name");
        size += strlen(items[i].name) + strlen(items[i].value) + 2;
        if (size >= MAX_LIST_BYTES)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: the items pass %zu bytes", FUNC,
                            MAX_LIST_BYTES);
    }
    out->bytes = malloc(size + 1);
    if (!out->bytes)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", FUNC);
    out->size = size;
    char *p = out->bytes;
    for (size_t i = 0; i < count; i++) {
        size_t name = strlen(items[i].name) + 1, value = strlen(items[i].value) + 1;
        memcpy(p, items[i].name, name);
        memcpy(p + name, items[i].value, value);
        p += name + value;
    }
    return TDM_OK;
}

/* The string at *at, moving *at past it; NULL at the end or without its NUL. */
static const char *next(const item_list *l, size_t *at)
{
    const char *start = l->bytes + *at;
    const char *nul = *at < l->size ? memchr(start, '\0', l->size - *at) : NULL;
    if (!nul)
        return NULL;
    *at += (size_t)(nul - start) + 1;
    return start;
}

static const char *value_of(const item_list *l, const char *name)
{
    size_t at = 0;
    for (const char *n, *v; (n = next(l, &at)) && (v = next(l, &at));)
        if (!strcmp(n, name))
            return v;
    return NULL;
}

/* The first item of a (then of b) whose value the other list lacks or holds
 * otherwise: 1 with its name and both values, or 0 when the lists agree. */
static int first_difference(const item_list *a, const item_list *b, const char **name,
                            const char **in_a, const char **in_b)
{
    const item_list *lists[2] = {a, b};
    for (size_t side = 0; side < 2; side++) {
        size_t at = 0;
        for (const char *n, *v; (n = next(lists[side], &at)) && (v = next(lists[side], &at));) {
            const char *other = value_of(lists[1 - side], n);
            if (other && !strcmp(other, v))
                continue;
            *name = n;
            *in_a = side == 0 ? v : other ? other : ABSENT;
            *in_b = side == 1 ? v : other ? other : ABSENT;
            return 1;
        }
    }
    return 0;
}

static tdm_status in_check(tdm_status st)
{
    return st == TDM_OK ? st : tdm_fail_context(st, "%s", FUNC);
}

/* Every process's list size, and every process the chief's list. */
static tdm_status share_chief_list(tdm_ranks *r, const item_list *mine, float *sizes,
                                   item_list *chief)
{
    sizes[r->rank] = (float)mine->size;
    tdm_status st =
        in_check(tdm_ranks_reduce_floats(r, TDM_FOLD_SUM, sizes, r->count, FUNC ": sizes"));
    if (st != TDM_OK)
        return st;
    chief->size = (size_t)sizes[0];
    chief->bytes = malloc(chief->size + 1);
    if (!chief->bytes)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", FUNC);
    if (r->rank == 0)
        memcpy(chief->bytes, mine->bytes, mine->size);
    return in_check(
        tdm_ranks_broadcast_bytes(r, chief->bytes, chief->size, FUNC ": the chief's items"));
}

/* Names the first process whose items differ from the chief's, from its own items. */
static tdm_status name_difference(tdm_ranks *r, const item_list *mine, const item_list *chief,
                                  const float *sizes, size_t first, size_t differing)
{
    item_list theirs = {malloc((size_t)sizes[first] + 1), (size_t)sizes[first]};
    if (!theirs.bytes)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", FUNC);
    if (r->rank == first)
        memcpy(theirs.bytes, mine->bytes, mine->size);
    tdm_status st = in_check(tdm_ranks_broadcast_from(r, first, theirs.bytes, theirs.size,
                                                      FUNC ": the differing items"));
    const char *name = "?", *value = "?", *chief_value = "?";
    char others[64] = "";
    if (differing > 1)
        snprintf(others, sizeof others, "; %zu ranks differ from rank 0 in all", differing);
    if (st == TDM_OK && first_difference(&theirs, chief, &name, &value, &chief_value))
        st = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                      "%s: rank %zu differs from rank 0 in %s: %s against %s (every process "
                      "of a job must agree on it%s)",
                      FUNC, first, name, value, chief_value, others);
    free(theirs.bytes);
    return st;
}

tdm_status tdm_strategy_check_agreement(tdm_strategy *s, const tdm_agreement_item *items,
                                        size_t count)
{
    TDM_CHECK_ARG(s, FUNC);
    if (count)
        TDM_CHECK_ARG(items, FUNC);
    tdm_ranks *r = s->ranks ? s->ranks : s->job;
    item_list mine = {0}, chief = {0};
    tdm_agreement_item *all = malloc((count + 1) * sizeof *all);
    char deadline[32];
    snprintf(deadline, sizeof deadline, "%g s", s->opts.collective_timeout);
    if (all) {
        memcpy(all, items, count * sizeof *all);
        all[count] = (tdm_agreement_item){"the job's deadline (collective_timeout, "
                                          "TDM_COLLECTIVE_TIMEOUT)",
                                          deadline};
    }
    tdm_status st = all ? pack(all, count + 1, &mine)
                        : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", FUNC);
    free(all);
    if (st != TDM_OK || !r || r->count < 2) {
        free(mine.bytes);
        return st;
    }
    float *sizes = calloc(r->count, sizeof *sizes), *differs = calloc(r->count, sizeof *differs);
    st = sizes && differs ? share_chief_list(r, &mine, sizes, &chief)
                          : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", FUNC);
    const char *unused;
    if (st == TDM_OK) {
        differs[r->rank] = (float)first_difference(&mine, &chief, &unused, &unused, &unused);
        st = in_check(
            tdm_ranks_reduce_floats(r, TDM_FOLD_MAX, differs, r->count, FUNC ": differences"));
    }
    size_t first = 0, differing = 0;
    for (size_t k = r->count; st == TDM_OK && k-- > 1;)
        if (differs[k] > 0) {
            first = k;
            differing++;
        }
    if (differing)
        st = name_difference(r, &mine, &chief, sizes, first, differing);
    free(mine.bytes);
    free(chief.bytes);
    free(sizes);
    free(differs);
    return st;
}

tdm_status tdm_strategy_job_any(tdm_strategy *s, int mine, int *any)
{
    tdm_ranks *r = s->ranks ? s->ranks : s->job;
    *any = mine != 0;
    if (!r || r->count < 2)
        return TDM_OK;
    float *flags = calloc(r->count, sizeof *flags);
    if (!flags)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_strategy_job_any: out of host memory");
    flags[r->rank] = mine != 0;
    tdm_status st = tdm_ranks_reduce_floats(r, TDM_FOLD_MAX, flags, r->count,
                                            "a stop asked in the job");
    for (size_t k = 0; st == TDM_OK && k < r->count; k++)
        *any |= flags[k] > 0.0f;
    free(flags);
    return st;
}
