/* Conformance apart from its drivers (docs/design/012-conformance-that-survives.md):
 * the tool runs its checks in a worker, the same program started again with
 * TDM_CONFORMANCE_WORKER in its environment, which sends its results as records
 * through a pipe; a worker that crashes or hangs costs the cell it was running, and
 * a new one goes on from there. */
#ifndef TANDEM_CLI_CONFORMANCE_ISOLATE_H
#define TANDEM_CLI_CONFORMANCE_ISOLATE_H

#include <stdint.h>

#include "conformance_plan.h"

#define CONF_WORKER_ENV "TDM_CONFORMANCE_WORKER"
#define CONF_FAULT_ENV "TDM_CONFORMANCE_FAULT"

enum { CONF_RECORD_PROGRESS = 1, CONF_RECORD_RESULT, CONF_RECORD_DONE };

/* A worker's record, written whole: PROGRESS before each case of a cell (number: the
 * case), RESULT for each cell when its unit ends, DONE at the end (number: the Vulkan
 * validation messages the worker counted). */
typedef struct conf_record {
    uint32_t magic, kind;
    uint64_t unit, cell, number;
    conf_result result;
} conf_record;

#define CONF_RECORD_MAGIC 0x544d4443u

/* In the worker: the units from the one its environment names on, into the records
 * stream; DONE carries ctx's validation messages. 0, or 1 after printing why to
 * stderr. */
int conf_worker_run(const conf_plan *plan, tdm_context *ctx);

/* A unit of the plan and its cells' results, as they complete, in order. */
typedef void (*conf_emit)(void *arg, size_t unit, const conf_result *cells);

/* In the tool: runs the plan in workers started as `program conformance ARGS...`
 * (argv: the command's own, argv[0] "conformance"), a case's time limit timeout_s;
 * emits every unit, cells lost to a crash or a hang marked so. *validation: the
 * workers' Vulkan validation messages. 0, or 1 after printing why the run could not
 * go on (a worker that cannot start, or one that ends before its first case). */
int conf_supervise(const conf_plan *plan, int argc, char **argv, unsigned timeout_s,
                   conf_emit emit, void *arg, size_t *validation);

#endif
