/* Faults in the middle of training, injected by tests/fault_backend.c: the Nth buffer
 * allocation, the Nth kernel launch, or the device lost at its Nth call, at points
 * spread over a whole run (building it, its steps and its checkpoints). Each fault
 * fails the run with a clear status naming it; what was built is freed without a
 * leak (LeakSanitizer in the sanitizer build); a device that is not lost still holds
 * bitwise identical mirrored copies once the run is restored; and a new run resumes
 * from the last checkpoint and ends with exactly the weights of a run that never
 * failed. argv[1]: a scenario of harness.h; argv[2]: trials per kind of fault. Only
 * a lost device gets a context of its own: the others share one, which is faster. */
#include <stdlib.h>

#include "fault_backend.h"
#include "harness.h"
#include "scratch.h"
#include "train_fixture.h"

#define MAX_WEIGHTS 1024
#define STEPS 24 /* 4 epochs of 6 */

static const char *scenario;
static float clean[MAX_WEIGHTS];
static size_t clean_count;

typedef struct setup {
    tdm_context *ctx;
    tdm_device *devs[3];
    size_t n;
} setup;

static void setup_open(setup *s)
{
    s->ctx = test_context(test_scenario_backends(scenario));
    s->n = test_scenario_devices(s->ctx, scenario, s->devs);
    fault_wrap(s->ctx);
}

static int any_lost(const setup *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (tdm_device_finish(s->devs[i]) == TDM_ERR_DEVICE_LOST)
            return 1;
    return 0;
}

static tdm_status open_run(fixture *f, const setup *s, const char *dir)
{
    fixture_options o = FIXTURE_OPTIONS_INIT;
    o.checkpoint_dir = dir;
    o.checkpoint_every = 2;
    return fixture_open(f, s->ctx, s->devs, s->n, &o);
}

/* Restores dir, runs to the end; the first failure. */
static tdm_status run(fixture *f, const setup *s, const char *dir, uint64_t *restored_step)
{
    int restored = 0;
    *restored_step = 0;
    tdm_status st = open_run(f, s, dir);
    if (st == TDM_OK)
        st = tdm_monitor_restore(f->monitor, &restored, restored_step);
    if (st == TDM_OK)
        st = tdm_monitor_run_steps(f->monitor, 0, NULL);
    return st;
}

static const char *const kind_names[] = {"allocation", "launch", "device loss"};
static const tdm_status kind_status[] = {TDM_ERR_OUT_OF_MEMORY, TDM_ERR_BACKEND,
                                         TDM_ERR_DEVICE_LOST};

/* Devices that stay healthy, for every run but the one that loses a device. */
static setup live;

/* A whole run that never fails: the weights every resumed run must end with, and how
 * many calls of `kind` it makes. */
static unsigned long clean_run(fault_kind kind)
{
    char dir[SCRATCH_PATH], name[32];
    snprintf(name, sizeof name, "clean-%d", (int)kind);
    scratch_path(dir, name, 0);
    fixture f;
    uint64_t step = 0;
    fault_arm(kind, 0);
    CHECK_OK(run(&f, &live, dir, &step));
    unsigned long calls = fault_calls(kind);
    if (!clean_count)
        clean_count = fixture_weights(&f, clean, MAX_WEIGHTS);
    fixture_close(&f);
    return calls;
}

/* One fault at call `nth` of its kind, then a resume on healthy devices. */
static void trial(fault_kind kind, unsigned long nth)
{
    char dir[SCRATCH_PATH], name[64];
    snprintf(name, sizeof name, "%s-%d-%lu", scenario, (int)kind, nth);
    scratch_path(dir, name, 0);
    setup lost, *s = &live;
    if (kind == FAULT_LOSE) { /* a lost device stays lost: a context of its own */
        setup_open(&lost);
        s = &lost;
    }
    fixture f;
    uint64_t step = 0;
    fault_arm(kind, nth);
    tdm_status st = run(&f, s, dir, &step);
    /* A loss in a call whose work was done (a free's wait, at the end) cannot fail the
     * run, but the device must know it is lost. */
    int lost_late = kind == FAULT_LOSE && st == TDM_OK && f.op &&
                    tdm_train_op_global_step(f.op) == STEPS && any_lost(s);
    /* An allocation the library can do without (a replica's update arena: it keeps
     * one launch per variable instead) leaves the run whole; the resumed run below
     * still has to end with the clean run's weights. */
    int absorbed =
        kind == FAULT_ALLOC && st == TDM_OK && f.op && tdm_train_op_global_step(f.op) == STEPS;
    /* The message names the fault, or the device that a free found lost before it. */
    const char *why = tdm_last_error();
    int named =
        strstr(why, "fault injection") || (kind == FAULT_LOSE && strstr(why, "was lost earlier"));
    if (!fault_fired() || (!lost_late && !absorbed && (st != kind_status[kind] || !named))) {
        test_failures++;
        fprintf(stderr, "%s %lu: fired %d, run returned %s: %s\n", kind_names[kind], nth,
                fault_fired(), tdm_status_str(st), tdm_last_error());
    }
    fault_arm(kind, 0);
    if (kind != FAULT_LOSE && f.monitor) {
        /* A step that failed half-way through its update has made the copies one again,
         * and so does the last checkpoint. */
        int restored = 0, after_fault = fixture_copies_identical(&f);
        CHECK_OK(tdm_monitor_restore(f.monitor, &restored, &step));
        if (!after_fault || !fixture_copies_identical(&f)) {
            test_failures++;
            fprintf(stderr, "%s %lu: mirrored copies differ after the fault (%d) or restore\n",
                    kind_names[kind], nth, after_fault);
        }
    }
    fixture_close(&f);
    if (s == &lost)
        tdm_context_destroy(lost.ctx);

    /* A new run does this: resume from the last checkpoint, to the end. */
    CHECK_OK(run(&f, &live, dir, &step));
    float w[MAX_WEIGHTS];
    size_t n = f.model ? fixture_weights(&f, w, MAX_WEIGHTS) : 0;
    if (n != clean_count || memcmp(w, clean, n * sizeof *w) != 0 ||
        tdm_train_op_global_step(f.op) != STEPS) {
        test_failures++;
        fprintf(stderr, "%s %lu: resumed from step %llu, the weights differ from a clean run\n",
                kind_names[kind], nth, (unsigned long long)step);
    }
    fixture_close(&f);
}

void test_case_faults(const test_run *run)
{
    scenario = run->argv[0];
    unsigned long trials = strtoul(run->argv[1], NULL, 10);
    scratch_root("tdm-faults");
    setup_open(&live);
    for (int kind = FAULT_ALLOC; kind <= FAULT_LOSE; kind++) {
        unsigned long calls = clean_run((fault_kind)kind);
        CHECK(calls > trials);
        /* The first call, the last, and points spread between them. */
        for (unsigned long t = 0; t < trials && calls; t++)
            trial((fault_kind)kind, 1 + t * (calls - 1) / (trials > 1 ? trials - 1 : 1));
        fprintf(stderr, "%s: %lu %s faults among %lu calls\n", scenario, trials, kind_names[kind],
                calls);
    }
    CHECK(tdm_context_validation_messages(live.ctx) == 0);
    tdm_context_destroy(live.ctx);
    scratch_remove();
}
