/* The tool's side of conformance_isolate.h: workers started one after another, their
 * records read against a case's time limit, a cell lost to a crash or a hang
 * recorded as such, and the units emitted in order as they complete. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_isolate.h"
#include "platform/tdm_child.h"
#include "platform/tdm_host.h"

enum { PENDING, GOT, LOST };

typedef struct supervisor {
    const conf_plan *plan;
    conf_result *results; /* each unit's cells, at offset[unit] */
    unsigned char *state;
    size_t *offset;
    size_t emitted; /* units emitted so far */
    conf_emit emit;
    void *arg;
} supervisor;

static int unit_complete(const supervisor *s, size_t u)
{
    for (size_t c = 0; c < s->plan->units[u].cells; c++)
        if (s->state[s->offset[u] + c] == PENDING)
            return 0;
    return 1;
}

static void emit_ready(supervisor *s)
{
    while (s->emitted < s->plan->count && unit_complete(s, s->emitted)) {
        s->emit(s->arg, s->emitted, &s->results[s->offset[s->emitted]]);
        s->emitted++;
    }
}

/* A cell lost with its worker: CRASH or TIMEOUT, with how; a collective's cells
 * ran together, so all of them. */
static void lose(supervisor *s, size_t u, size_t cell, int ended, const char *how,
                 uint64_t case_index)
{
    const conf_unit *unit = &s->plan->units[u];
    for (size_t c = 0; c < unit->cells; c++) {
        if (unit->kind != CONF_UNIT_COLLECTIVE && c != cell)
            continue;
        conf_result *r = &s->results[s->offset[u] + c];
        memset(r, 0, sizeof *r);
        r->supported = 1;
        r->cases = 1;
        r->failed_cases = 1;
        r->ended = ended;
        snprintf(r->end_detail, sizeof r->end_detail, "%s", how);
        if (unit->kind == CONF_UNIT_KERNEL)
            r->end_case = (int)case_index + 1;
        s->state[s->offset[u] + c] = LOST;
    }
}

/* The environment's start for a worker: the first unit not complete, and its cells
 * lost before. */
static void start_spec(const supervisor *s, size_t from, char *out, size_t size)
{
    size_t used = (size_t)snprintf(out, size, "%zu", from);
    char sep = ':';
    for (size_t c = 0; from < s->plan->count && c < s->plan->units[from].cells && used < size; c++)
        if (s->state[s->offset[from] + c] == LOST) {
            used += (size_t)snprintf(out + used, size - used, "%c%zu", sep, c);
            sep = ',';
        }
}

/* Where the worker was when it was lost: its last PROGRESS, or, when that cell had
 * its result already (lost between units), the next unit's first cell pending. */
static void place_loss(const supervisor *s, int progressed, size_t unit, size_t cell,
                       size_t *out_unit, size_t *out_cell)
{
    *out_unit = unit;
    *out_cell = cell;
    if (progressed && s->state[s->offset[unit] + cell] == PENDING)
        return;
    for (size_t u = progressed ? unit : s->emitted; u < s->plan->count; u++)
        for (size_t c = 0; c < s->plan->units[u].cells; c++)
            if (s->state[s->offset[u] + c] == PENDING) {
                *out_unit = u;
                *out_cell = c;
                return;
            }
}

typedef struct worker_run {
    int done;            /* DONE came */
    int progressed;      /* a PROGRESS came */
    uint64_t unit, cell, case_index;
    size_t validation;
} worker_run;

static int take(supervisor *s, const conf_record *rec, worker_run *w)
{
    if (rec->magic != CONF_RECORD_MAGIC || (rec->kind != CONF_RECORD_DONE &&
                                            (rec->unit >= s->plan->count ||
                                             rec->cell >= s->plan->units[rec->unit].cells)))
        return -1;
    if (rec->kind == CONF_RECORD_PROGRESS) {
        w->progressed = 1;
        w->unit = rec->unit;
        w->cell = rec->cell;
        w->case_index = rec->number;
    } else if (rec->kind == CONF_RECORD_RESULT) {
        s->results[s->offset[rec->unit] + rec->cell] = rec->result;
        s->state[s->offset[rec->unit] + rec->cell] = GOT;
        emit_ready(s);
    } else if (rec->kind == CONF_RECORD_DONE) {
        w->done = 1;
        w->validation = (size_t)rec->number;
    } else {
        return -1;
    }
    return 0;
}

/* One worker from the first unit not complete; 0, or -1 after printing why the run
 * cannot go on. */
static int run_worker(supervisor *s, const char *program, const char **argv, unsigned timeout_s,
                      size_t *validation)
{
    size_t from = s->emitted;
    while (from < s->plan->count && unit_complete(s, from))
        from++;
    char spec[512], why[512];
    start_spec(s, from, spec, sizeof spec);
    tdm_child *child;
    if (tdm_child_start(program, argv, CONF_WORKER_ENV, spec, &child, why, sizeof why) != 0) {
        fprintf(stderr, "tandem conformance: %s\n", why);
        return -1;
    }
    worker_run w = {0};
    conf_record rec;
    size_t have = 0;
    int timed_out = 0, garbled = 0;
    while (!w.done) {
        long n = tdm_child_read(child, (char *)&rec + have, sizeof rec - have,
                                (int)(timeout_s > 2000000 ? 2000000000 : timeout_s * 1000));
        if (n == -2) {
            timed_out = 1;
            tdm_child_kill(child);
            break;
        }
        if (n <= 0)
            break;
        have += (size_t)n;
        if (have < sizeof rec)
            continue;
        have = 0;
        if (take(s, &rec, &w) != 0) {
            garbled = 1;
            tdm_child_kill(child);
            break;
        }
    }
    char ended[128];
    int failed = tdm_child_wait(child, ended, sizeof ended);
    if (w.done) {
        *validation += w.validation;
        if (s->emitted == s->plan->count)
            return 0;
        fprintf(stderr, "tandem conformance: a worker finished without every result; stopping\n");
        return -1;
    }
    if (garbled) {
        fprintf(stderr, "tandem conformance: a worker's records were garbled; stopping\n");
        return -1;
    }
    if (!w.progressed && !timed_out && s->emitted == from) {
        fprintf(stderr,
                "tandem conformance: the worker ended before its first case (%s): a driver "
                "that fails as it opens takes every check with it\n",
                failed ? ended : "exit status 0");
        return -1;
    }
    size_t unit, cell;
    place_loss(s, w.progressed, (size_t)w.unit, (size_t)w.cell, &unit, &cell);
    if (timed_out) {
        char how[64];
        snprintf(how, sizeof how, "after %u s", timeout_s);
        lose(s, unit, cell, CONF_TIMED_OUT, how, w.case_index);
    } else {
        lose(s, unit, cell, CONF_CRASHED, failed ? ended : "exit status 0", w.case_index);
    }
    emit_ready(s);
    return 0;
}

int conf_supervise(const conf_plan *plan, int argc, char **argv, unsigned timeout_s,
                   conf_emit emit, void *arg, size_t *validation)
{
    char program[4096];
    if (!tdm_host_program_path(program, sizeof program)) {
        fprintf(stderr, "tandem conformance: cannot find this program to start its worker\n");
        return 1;
    }
    supervisor s = {.plan = plan, .emit = emit, .arg = arg};
    size_t cells = 0;
    s.offset = malloc((plan->count + 1) * sizeof *s.offset);
    for (size_t u = 0; s.offset && u < plan->count; u++) {
        s.offset[u] = cells;
        cells += plan->units[u].cells;
    }
    s.results = calloc(cells ? cells : 1, sizeof *s.results);
    s.state = calloc(cells ? cells : 1, 1);
    const char **args = calloc((size_t)argc + 2, sizeof *args);
    int rc = 1;
    if (s.offset && s.results && s.state && args) {
        args[0] = tdm_host_program_name();
        for (int i = 0; i < argc; i++)
            args[i + 1] = argv[i];
        rc = 0;
        while (rc == 0 && s.emitted < plan->count)
            rc = run_worker(&s, program, args, timeout_s, validation) ? 1 : 0;
    } else {
        fprintf(stderr, "tandem conformance: out of memory\n");
    }
    free(args);
    free(s.state);
    free(s.results);
    free(s.offset);
    return rc;
}
