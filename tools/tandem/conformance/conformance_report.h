/* The conformance table on stdout and the optional JSON results file. */
#ifndef TANDEM_CLI_CONFORMANCE_REPORT_H
#define TANDEM_CLI_CONFORMANCE_REPORT_H

#include "conformance_grad.h"
#include "conformance_plan.h"

#define CONF_GRAD_MAX 32 /* at least conf_grad_count() */

/* One row of the collectives table: a device set and an operation, a result per
 * algorithm. */
typedef struct conf_coll_row {
    char set[48];
    const char *operation;
    conf_result by_algorithm[CONF_COLL_ALGORITHMS];
} conf_coll_row;

typedef struct conf_report {
    const conf_suite *suite;
    /* The gradient checks: a row per check, a column per device they ran on. */
    tdm_device **grad_devices;
    size_t grad_device_count;
    conf_result *gradients; /* conf_grad_count() rows of grad_device_count */
    size_t grad_rows[CONF_GRAD_MAX];
    size_t grad_row_count;
    conf_result *results; /* kernel_count rows of device_count */
    int kernel_count;
    int kernel_rows_printed; /* fewer where the run stopped early */
    conf_coll_row collectives[CONF_COLL_MAX_SETS * CONF_COLL_OPERATIONS];
    size_t collective_count;
    int passed, failed, skipped;
    int crashed, timed_out; /* of the failed: cells lost with their worker */
} conf_report;

/* Prints the header (none for no kernels); -1 if out of memory. */
int conf_report_begin(conf_report *r, const conf_suite *suite, int kernel_count);
conf_result *conf_report_row(conf_report *r, int row);
/* Prints one kernel's row and counts its cells. */
void conf_report_print_row(conf_report *r, tdm_kernel kernel, const conf_result *row);
/* Prints each failure, the closing "N passed, N failed, N skipped" line (", N
 * crashed, N timed out" where any was), and writes the JSON file if asked; returns
 * the number of failed cells, those lost to a crash or a hang among them. */
int conf_report_finish(conf_report *r, const tdm_kernel *kernels, const char *json_path);
void conf_report_end(conf_report *r);

/* The collectives table: a device set per row, an algorithm per column; its cells
 * count in the closing line and go to the JSON file's "collectives". */
void conf_report_collectives_header(void);
void conf_report_collectives_row(conf_report *r, const char *set, const char *operation,
                                 const conf_result *row);

/* The gradient table: a check per row, a device per column (the reference's
 * derivatives too); its cells count in the closing line and go to the JSON file's
 * "gradients". -1 if out of memory. */
int conf_report_gradients_header(conf_report *r, tdm_device *const *devices, size_t count);
void conf_report_gradients_row(conf_report *r, size_t check, const conf_result *row);

#endif
