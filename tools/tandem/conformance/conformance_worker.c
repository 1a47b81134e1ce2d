/* The worker's side of conformance_isolate.h: run the plan from where the tool says,
 * a record for each case begun and each cell done. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_isolate.h"
#include "platform/tdm_child.h"
#include "platform/tdm_thread.h"

/* TDM_CONFORMANCE_FAULT=NAME@CELL:ACTION, for the tool's tests: the worker crashes
 * (segv), aborts (abort) or hangs (hang) as it reaches that cell. NAME is a kernel,
 * a gradient check or a collective operation; CELL a device id, or a collective's
 * device set. */
typedef struct fault {
    char name[64], cell[64], action[16];
} fault;

typedef struct worker {
    const conf_plan *plan;
    FILE *records;
    size_t unit;
    fault fault;
    int faulty;
} worker;

static int parse_fault(const char *spec, fault *f)
{
    const char *at = spec ? strchr(spec, '@') : NULL, *colon = spec ? strrchr(spec, ':') : NULL;
    if (!at || !colon || colon < at)
        return 0;
    snprintf(f->name, sizeof f->name, "%.*s", (int)(at - spec), spec);
    snprintf(f->cell, sizeof f->cell, "%.*s", (int)(colon - at - 1), at + 1);
    snprintf(f->action, sizeof f->action, "%s", colon + 1);
    return 1;
}

static void hang(void)
{
    tdm_mutex m;
    tdm_cond c;
    tdm_mutex_init(&m);
    tdm_cond_init(&c);
    tdm_mutex_lock(&m);
    for (;;)
        tdm_cond_wait(&c, &m); /* never signalled */
}

static void act(const fault *f)
{
    if (!strcmp(f->action, "abort"))
        abort();
    if (!strcmp(f->action, "hang"))
        hang();
    volatile int *volatile nowhere = NULL;
    *nowhere = 1; /* segv: a write to address 0, as a broken driver's */
}

static void put(worker *w, uint32_t kind, size_t cell, uint64_t number, const conf_result *r)
{
    conf_record rec;
    memset(&rec, 0, sizeof rec);
    rec.magic = CONF_RECORD_MAGIC;
    rec.kind = kind;
    rec.unit = w->unit;
    rec.cell = cell;
    rec.number = number;
    if (r)
        rec.result = *r;
    fwrite(&rec, sizeof rec, 1, w->records);
    fflush(w->records); /* a heartbeat: the tool times each case */
}

static void before_case(void *arg, size_t cell, size_t index)
{
    worker *w = arg;
    put(w, CONF_RECORD_PROGRESS, cell, index, NULL);
    if (!w->faulty || strcmp(w->fault.name, conf_unit_name(w->plan, w->unit)))
        return;
    char name[64];
    if (w->plan->units[w->unit].kind == CONF_UNIT_COLLECTIVE)
        snprintf(name, sizeof name, "%s", conf_unit_set(w->plan, w->unit));
    else
        conf_cell_name(w->plan, w->unit, cell, name, sizeof name);
    if (!strcmp(name, w->fault.cell))
        act(&w->fault);
}

/* TDM_CONFORMANCE_WORKER=UNIT or UNIT:CELL,CELL...: where to begin, and the cells of
 * that unit to leave out (lost in an earlier worker). */
static int parse_start(const char *spec, const conf_plan *plan, size_t *from, unsigned char *skip)
{
    char *end;
    unsigned long long unit = strtoull(spec, &end, 10);
    if (end == spec || unit > plan->count)
        return 0;
    *from = (size_t)unit;
    while (*end == ':' || *end == ',') {
        const char *at = end + 1;
        unsigned long long cell = strtoull(at, &end, 10);
        if (end == at || unit >= plan->count || cell >= plan->units[unit].cells)
            return 0;
        skip[cell] = 1;
    }
    return *end == '\0';
}

int conf_worker_run(const conf_plan *plan, tdm_context *ctx)
{
    worker w = {.plan = plan};
    unsigned char skip[MAX_SELECTED + CONF_COLL_ALGORITHMS] = {0};
    size_t from = 0;
    const char *spec = getenv(CONF_WORKER_ENV);
    if (!parse_start(spec, plan, &from, skip)) {
        fprintf(stderr, "tandem conformance: %s=%s names no unit of this run\n", CONF_WORKER_ENV,
                spec);
        return 1;
    }
    w.faulty = parse_fault(getenv(CONF_FAULT_ENV), &w.fault);
    tdm_child_crash_quietly(); /* a driver's crash must reach the tool, not wait on a dialog */
    w.records = tdm_child_take_stdout();
    if (!w.records) {
        fprintf(stderr, "tandem conformance: the worker cannot keep its records apart\n");
        return 1;
    }
    for (size_t u = from; u < plan->count; u++) {
        conf_result cells[MAX_SELECTED + CONF_COLL_ALGORITHMS];
        memset(cells, 0, sizeof cells);
        w.unit = u;
        const unsigned char *left_out = u == from ? skip : NULL;
        conf_plan_run_unit(plan, u, left_out, cells, before_case, &w);
        for (size_t c = 0; c < plan->units[u].cells; c++)
            if (!left_out || !left_out[c])
                put(&w, CONF_RECORD_RESULT, c, 0, &cells[c]);
    }
    w.unit = plan->count;
    put(&w, CONF_RECORD_DONE, 0, tdm_context_validation_messages(ctx), NULL);
    fclose(w.records);
    return 0;
}
