/* tandem conformance: every kernel on every device against the reference backend,
 * every backward kernel against finite differences of its forward kernel, then every
 * collective algorithm on every device set, PASS / FAIL / NOT SUPPORTED tables, and
 * an exit status that is non-zero if and only if something failed. The checks run in
 * a worker process, so that a driver that crashes or hangs costs its cell, not the
 * report (conformance_isolate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "commands.h"
#include "conformance_isolate.h"
#include "conformance_report.h"
#include "device_select.h"

typedef struct options {
    cli_list devices;
    cli_list kernels;
    const char *json_path;
    int large;
    int collectives;
    int grad;
    int small;
    int kernels_only;
    int list;
    unsigned timeout;
    int in_process;
} options;

static const cli_command conformance_command = {
    .name = "conformance",
    .about = "Checks every kernel on every device against the reference backend, every "
             "backward kernel and loss gradient against central finite differences of its "
             "forward kernel (on the reference too), then every collective algorithm on the "
             "device sets the context can form: of the --device ones if given (a set "
             "runs if all its devices are named), else of every device, the reference's "
             "two halves included. --grad and --collectives both run by default unless "
             "--kernel is given.",
    .footer = "'tandem bench kernels' measures the memory-bound kernels' GB/s.",
};

/* 0 to go on; otherwise 1 with *exit_status set (--help, a bad option). */
static int parse(int argc, char **argv, options *o, int *exit_status)
{
    *o = (options){.devices = {.what = "device id", .max = MAX_SELECTED},
                   .kernels = {.what = "kernel name", .max = TDM_KERNEL_COUNT},
                   .large = 1,
                   .timeout = 600};
    const cli_option table[] = {
        {CLI_ENTRY("--device", NULL, CLI_CUSTOM, &o->devices), .parse = cli_parse_list, .arg = "ID",
         .help = "a device id from 'tandem devices' (e.g. opencl:0), its index, or a backend "
                 "(opencl: each of its devices); default: every device but the reference "
                 "itself (repeatable, or comma-separated)"},
        {CLI_ENTRY("--kernel", NULL, CLI_CUSTOM, &o->kernels), .parse = cli_parse_list,
         .arg = "NAME", .help = "only this kernel (repeatable, or comma-separated)"},
        {CLI_ENTRY("--json", NULL, CLI_STRING, &o->json_path), .arg = "FILE",
         .help = "also write the results as JSON"},
        {CLI_ENTRY("--no-large", NULL, CLI_FLAG, &o->large), .flag_value = 0,
         .help = "skip the cases with a buffer over 128 MiB and the collectives past 16 MiB"},
        {CLI_ENTRY("--small", NULL, CLI_FLAG, &o->small), .flag_value = 1,
         .help = "only the cases of at most 4096 elements per buffer (for simulators)"},
        {CLI_ENTRY("--kernels-only", NULL, CLI_FLAG, &o->kernels_only), .flag_value = 1,
         .help = "the kernels' checks alone: no gradient checks, no collectives"},
        {CLI_ENTRY("--collectives", NULL, CLI_FLAG, &o->collectives), .flag_value = 1,
         .help = "the collectives (alone, or with the --kernel ones)"},
        {CLI_ENTRY("--grad", NULL, CLI_FLAG, &o->grad), .flag_value = 1,
         .help = "the gradient checks (alone, or those of the --kernel ones)"},
        {CLI_ENTRY("--list", NULL, CLI_FLAG, &o->list), .flag_value = 1,
         .help = "list the checks, a 'KIND NAME' line each (kernel, gradient, collective, "
                 "algorithm), and run none"},
        {CLI_ENTRY("--timeout", NULL, CLI_UNSIGNED, &o->timeout), .min = 1, .max = 86400,
         .arg = "SECONDS",
         .help = "a case's time limit: a device that runs one longer is recorded TIMEOUT and "
                 "the report goes on (default 600)"},
        {CLI_ENTRY("--no-isolate", NULL, CLI_FLAG, &o->in_process), .flag_value = 1,
         .help = "run the checks in this process, not in a worker (for a debugger): a "
                 "crash then ends the report"},
    };
    return cli_parse_command(&conformance_command, table, sizeof table / sizeof table[0], argc,
                             argv, exit_status);
}

/* The kernels to check, in table order; -1 if a name is unknown. */
static int select_kernels(const options *o, tdm_kernel *out)
{
    if (o->kernels.count == 0 && (o->collectives || o->grad))
        return 0;
    if (o->kernels.count == 0) {
        for (int k = 0; k < TDM_KERNEL_COUNT; k++)
            out[k] = (tdm_kernel)k;
        return TDM_KERNEL_COUNT;
    }
    for (size_t i = 0; i < o->kernels.count; i++) {
        out[i] = tdm_kernel_find(o->kernels.item[i]);
        if (out[i] == TDM_KERNEL_COUNT) {
            fprintf(stderr, "tandem conformance: no kernel '%s'\n", o->kernels.item[i]);
            return -1;
        }
    }
    return (int)o->kernels.count;
}

/* What --kernel, the gradient table and the collectives table can hold. */
static void list_checks(void)
{
    for (int k = 0; k < TDM_KERNEL_COUNT; k++)
        printf("kernel %s\n", tdm_kernel_get((tdm_kernel)k)->name);
    for (size_t check = 0; check < conf_grad_count(); check++)
        printf("gradient %s\n", conf_grad_name(check));
    for (size_t c = 0; c < CONF_COLL_OPERATIONS; c++)
        printf("collective %s\n", conf_coll_operation_name(c));
    for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
        printf("algorithm %s\n", conf_coll_algorithm_name((tdm_collective_algorithm)a));
}

/* The report's sections as the plan's units reach them: a gradient or collectives
 * header before its first row (and at the end, for a section without rows). */
typedef struct printer {
    conf_report *report;
    const conf_plan *plan;
    int gradients_open, gradients_failed, collectives_open;
} printer;

static void open_sections(printer *p, conf_unit_kind upto)
{
    if (upto >= CONF_UNIT_GRADIENT && p->plan->gradients && !p->gradients_open) {
        p->gradients_open = 1;
        p->gradients_failed = conf_report_gradients_header(p->report, p->plan->grad_devices,
                                                           p->plan->grad_device_count) != 0;
    }
    if (upto >= CONF_UNIT_COLLECTIVE && p->plan->collectives && !p->collectives_open) {
        p->collectives_open = 1;
        conf_report_collectives_header();
    }
}

static void emit(void *arg, size_t unit, const conf_result *cells)
{
    printer *p = arg;
    const conf_unit *u = &p->plan->units[unit];
    open_sections(p, u->kind);
    if (u->kind == CONF_UNIT_KERNEL) { /* the kernel rows come first, one per unit */
        conf_result *row = conf_report_row(p->report, (int)unit);
        memcpy(row, cells, u->cells * sizeof *cells);
        conf_report_print_row(p->report, (tdm_kernel)u->index, row);
    } else if (u->kind == CONF_UNIT_GRADIENT) {
        if (!p->gradients_failed)
            conf_report_gradients_row(p->report, u->index, cells);
    } else {
        conf_report_collectives_row(p->report, conf_unit_set(p->plan, unit),
                                    conf_unit_name(p->plan, unit), cells);
    }
}

/* Every unit here, in order. */
static void run_in_process(const conf_plan *plan, printer *p)
{
    for (size_t u = 0; u < plan->count; u++) {
        conf_result cells[MAX_SELECTED + CONF_COLL_ALGORITHMS];
        memset(cells, 0, sizeof cells);
        conf_plan_run_unit(plan, u, NULL, cells, NULL, NULL);
        emit(p, u, cells);
    }
}

static int run_checks(tdm_context *ctx, const conf_suite *suite, const tdm_kernel *kernels,
                      int kernel_count, const options *o, int argc, char **argv,
                      size_t *validation)
{
    int by_default = o->kernels.count == 0 && !o->collectives && !o->grad && !o->kernels_only;
    const conf_request request = {.kernels = kernels,
                                  .kernel_count = kernel_count,
                                  .kernels_named = o->kernels.count > 0,
                                  .gradients = o->grad || by_default,
                                  .collectives = o->collectives || by_default,
                                  .devices_named = o->devices.count > 0};
    conf_plan plan;
    if (conf_plan_build(ctx, suite, &request, &plan) != 0) {
        conf_plan_free(&plan);
        fprintf(stderr, "tandem conformance: out of memory\n");
        return 1;
    }
    if (getenv(CONF_WORKER_ENV)) { /* the tool's worker: records, no report */
        int rc = conf_worker_run(&plan, ctx);
        conf_plan_free(&plan);
        return rc;
    }
    conf_report report;
    if (conf_report_begin(&report, suite, kernel_count) != 0) {
        conf_plan_free(&plan);
        return 1;
    }
    printer p = {&report, &plan, 0, 0, 0};
    int rc = 0;
    if (o->in_process)
        run_in_process(&plan, &p);
    else
        rc = conf_supervise(&plan, argc, argv, o->timeout, emit, &p, validation);
    open_sections(&p, CONF_UNIT_COLLECTIVE);
    /* the report of what ran, even where the workers could not go on */
    if (conf_report_finish(&report, kernels, o->json_path))
        rc = 1;
    conf_report_end(&report);
    conf_plan_free(&plan);
    return rc;
}

int cmd_conformance(int argc, char **argv)
{
    options o;
    int rc;
    if (parse(argc, argv, &o, &rc))
        return rc;
    if (o.list) {
        list_checks();
        return 0;
    }
    tdm_kernel kernels[TDM_KERNEL_COUNT];
    int kernel_count = select_kernels(&o, kernels);
    if (kernel_count < 0)
        return 2;
    tdm_context *ctx = cli_context();
    if (!ctx)
        return 1;
    conf_suite suite = {0};
    tdm_device *devices[MAX_SELECTED];
    suite.devices = devices;
    suite.large = o.large;
    suite.small = o.small;
    rc = 2;
    size_t messages = 0;
    if (cli_select_devices(ctx, &o.devices, &suite.reference, devices, &suite.device_count) == 0)
        rc = run_checks(ctx, &suite, kernels, kernel_count, &o, argc, argv, &messages);
    if (getenv(CONF_WORKER_ENV)) {
        tdm_context_destroy(ctx);
        return rc;
    }
    messages += tdm_context_validation_messages(ctx);
    if (messages) { /* a kernel that breaks the Vulkan rules is not conformant either */
        printf("%zu Vulkan validation message(s): see above\n", messages);
        rc = 1;
    }
    tdm_context_destroy(ctx);
    return rc;
}
