/* The plan of a conformance run and running one of its units (conformance_plan.h). */
#include <stdlib.h>
#include <string.h>

#include "conformance_grad.h"
#include "conformance_plan.h"

static void all_reduce(const conf_coll_set *set, int unused, int large, conf_result *row)
{
    (void)unused;
    conf_coll_run(set, large, row);
}

/* The collectives' checks, in the table's order. */
static const struct {
    const char *operation;
    void (*run)(const conf_coll_set *set, int which, int large, conf_result *row);
    int which; /* all-gather, not reduce-scatter; broadcast, not reduce */
} collective_checks[CONF_COLL_OPERATIONS] = {
    {"all-reduce", all_reduce, 0},
    {"all-gather", conf_coll_run_shards, 1},
    {"reduce-scatter", conf_coll_run_shards, 0},
    {"reduce", conf_coll_run_roots, 0},
    {"broadcast", conf_coll_run_roots, 1},
};

static int add(conf_plan *p, size_t *cap, conf_unit unit)
{
    if (p->count == *cap) {
        size_t grown = *cap ? 2 * *cap : 64;
        conf_unit *units = realloc(p->units, grown * sizeof *units);
        if (!units)
            return -1;
        p->units = units;
        *cap = grown;
    }
    p->units[p->count++] = unit;
    return 0;
}

int conf_plan_build(tdm_context *ctx, const conf_suite *suite, const conf_request *request,
                    conf_plan *out)
{
    memset(out, 0, sizeof *out);
    out->suite = suite;
    size_t cap = 0;
    for (int k = 0; k < request->kernel_count; k++)
        if (add(out, &cap,
                (conf_unit){CONF_UNIT_KERNEL, (size_t)request->kernels[k], 0, suite->device_count}))
            return -1;
    out->gradients = request->gradients;
    if (request->gradients) {
        /* the reference first: its derivatives are checked too */
        out->grad_devices[out->grad_device_count++] = suite->reference;
        for (size_t d = 0; d < suite->device_count; d++)
            if (suite->devices[d] != suite->reference)
                out->grad_devices[out->grad_device_count++] = suite->devices[d];
        for (size_t check = 0; check < conf_grad_count(); check++) {
            int wanted = !request->kernels_named;
            for (int k = 0; k < request->kernel_count; k++)
                wanted |= conf_grad_uses(check, request->kernels[k]);
            if (wanted &&
                add(out, &cap, (conf_unit){CONF_UNIT_GRADIENT, check, 0, out->grad_device_count}))
                return -1;
        }
    }
    out->collectives = request->collectives;
    if (request->collectives) {
        conf_coll_devices named = {suite->devices, suite->device_count};
        out->set_count = conf_coll_sets(ctx, request->devices_named ? &named : NULL, out->sets);
        for (size_t s = 0; s < out->set_count; s++)
            for (size_t c = 0; c < CONF_COLL_OPERATIONS; c++)
                if (add(out, &cap, (conf_unit){CONF_UNIT_COLLECTIVE, s, c, CONF_COLL_ALGORITHMS}))
                    return -1;
    }
    return 0;
}

void conf_plan_free(conf_plan *plan)
{
    free(plan->units);
    plan->units = NULL;
    plan->count = 0;
}

const char *conf_unit_name(const conf_plan *plan, size_t unit)
{
    const conf_unit *u = &plan->units[unit];
    switch (u->kind) {
    case CONF_UNIT_KERNEL: return tdm_kernel_get((tdm_kernel)u->index)->name;
    case CONF_UNIT_GRADIENT: return conf_grad_name(u->index);
    default: return collective_checks[u->operation].operation;
    }
}

const char *conf_coll_operation_name(size_t c)
{
    return collective_checks[c].operation;
}

const char *conf_unit_set(const conf_plan *plan, size_t unit)
{
    const conf_unit *u = &plan->units[unit];
    return u->kind == CONF_UNIT_COLLECTIVE ? plan->sets[u->index].name : "";
}

void conf_cell_name(const conf_plan *plan, size_t unit, size_t cell, char *out, size_t size)
{
    const conf_unit *u = &plan->units[unit];
    if (u->kind == CONF_UNIT_COLLECTIVE) {
        snprintf(out, size, "%s", conf_coll_algorithm_name((tdm_collective_algorithm)cell));
        return;
    }
    const tdm_device *dev =
        u->kind == CONF_UNIT_KERNEL ? plan->suite->devices[cell] : plan->grad_devices[cell];
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    snprintf(out, size, "%s", tdm_device_describe(dev, &d) == TDM_OK ? d.id : "?");
}

/* The kernel row over the cells not skipped: a suite of those devices alone, whose
 * cases still run each reference answer once for all of them. */
typedef struct hook {
    void (*before_case)(void *arg, size_t cell, size_t index);
    void *arg;
    const size_t *cell_of; /* the sub-suite's device index -> the unit's cell */
} hook;

static void before_subcase(void *arg, size_t device, size_t index)
{
    const hook *h = arg;
    h->before_case(h->arg, h->cell_of[device], index);
}

static void run_kernel(const conf_plan *plan, const conf_unit *u, const unsigned char *skip,
                       conf_result *out, const hook *h)
{
    tdm_device *devices[MAX_SELECTED];
    size_t cell_of[MAX_SELECTED], n = 0;
    for (size_t d = 0; d < u->cells; d++)
        if (!skip || !skip[d]) {
            cell_of[n] = d;
            devices[n++] = plan->suite->devices[d];
        }
    conf_suite sub = *plan->suite;
    sub.devices = devices;
    sub.device_count = n;
    hook mapped = *h;
    mapped.cell_of = cell_of;
    sub.before_case = h->before_case ? before_subcase : NULL;
    sub.before_case_arg = &mapped;
    conf_result row[MAX_SELECTED];
    conf_suite_run_kernel(&sub, (tdm_kernel)u->index, row);
    for (size_t i = 0; i < n; i++)
        out[cell_of[i]] = row[i];
}

void conf_plan_run_unit(const conf_plan *plan, size_t unit, const unsigned char *skip,
                        conf_result *out, void (*before_case)(void *arg, size_t cell, size_t index),
                        void *arg)
{
    const conf_unit *u = &plan->units[unit];
    const hook h = {before_case, arg, NULL};
    if (u->kind == CONF_UNIT_KERNEL) {
        run_kernel(plan, u, skip, out, &h);
    } else if (u->kind == CONF_UNIT_GRADIENT) {
        for (size_t d = 0; d < u->cells; d++)
            if (!skip || !skip[d]) {
                if (before_case)
                    before_case(arg, d, 0);
                conf_grad_run(plan->grad_devices[d], u->index, &out[d]);
            }
    } else { /* a collective's algorithms run together: one cell stands for all */
        if (before_case)
            before_case(arg, 0, 0);
        collective_checks[u->operation].run(&plan->sets[u->index],
                                            collective_checks[u->operation].which,
                                            plan->suite->large, out);
    }
}
