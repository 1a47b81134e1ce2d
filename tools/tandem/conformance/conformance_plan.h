/* The checks of one `tandem conformance` run as a list of units in the report's
 * order: a unit per kernel row, per gradient check, per collective operation on a
 * device set, each a row of cells (devices, or a collective's algorithms). The tool
 * that prints the report and the worker that runs the checks build the same plan
 * from the same options (docs/design/012-conformance-that-survives.md). */
#ifndef TANDEM_CLI_CONFORMANCE_PLAN_H
#define TANDEM_CLI_CONFORMANCE_PLAN_H

#include "conformance_collectives.h"
#include "conformance_suite.h"
#include "device_select.h"

#define CONF_COLL_OPERATIONS 5 /* all-reduce, all-gather, reduce-scatter, reduce, broadcast */

typedef enum { CONF_UNIT_KERNEL, CONF_UNIT_GRADIENT, CONF_UNIT_COLLECTIVE } conf_unit_kind;

typedef struct conf_unit {
    conf_unit_kind kind;
    size_t index;     /* the kernel (tdm_kernel), the gradient check or the device set */
    size_t operation; /* a collective unit's operation */
    size_t cells;     /* devices, or algorithms */
} conf_unit;

/* What the run asks for, from the command's options. */
typedef struct conf_request {
    const tdm_kernel *kernels; /* the kernel rows, in order */
    int kernel_count;
    int kernels_named;  /* --kernel given: only their gradient checks */
    int gradients;      /* the gradient section */
    int collectives;    /* the collectives section */
    int devices_named;  /* --device given: the collectives of their sets only */
} conf_request;

typedef struct conf_plan {
    const conf_suite *suite;
    tdm_device *grad_devices[MAX_SELECTED + 1]; /* the reference first */
    size_t grad_device_count;
    conf_coll_set sets[CONF_COLL_MAX_SETS];
    size_t set_count;
    int gradients, collectives; /* sections present, if empty: their headers print */
    conf_unit *units;
    size_t count;
} conf_plan;

/* The plan of the request over the suite's devices (the collectives' sets split
 * devices of ctx); 0, or -1 when out of memory. */
int conf_plan_build(tdm_context *ctx, const conf_suite *suite, const conf_request *request,
                    conf_plan *out);
void conf_plan_free(conf_plan *plan);

/* A unit's name (kernel, gradient check or operation) and a cell's (a device's id, or
 * an algorithm's name). */
const char *conf_unit_name(const conf_plan *plan, size_t unit);
void conf_cell_name(const conf_plan *plan, size_t unit, size_t cell, char *out, size_t size);
/* The name of collective operation c (< CONF_COLL_OPERATIONS). */
const char *conf_coll_operation_name(size_t c);
/* A collective unit's device set, "" for others. */
const char *conf_unit_set(const conf_plan *plan, size_t unit);

/* Runs the unit here into out[cells], leaving out the cells skip marks (skip may be
 * NULL; their results are left as they are); before_case (may be NULL) runs before
 * each case of a cell, with the cell's and the case's index. */
void conf_plan_run_unit(const conf_plan *plan, size_t unit, const unsigned char *skip,
                        conf_result *out, void (*before_case)(void *arg, size_t cell, size_t index),
                        void *arg);

#endif
