/* tandem conformance: every kernel on every device against the reference backend,
 * every backward kernel against finite differences of its forward kernel, then every
 * collective algorithm on every device set, PASS / FAIL / NOT SUPPORTED tables, and
 * an exit status that is non-zero if and only if something failed. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "conformance_report.h"
#include "cli_options.h"
#include "conformance_suite.h"
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
                   .large = 1};
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

/* What --kernel, the gradient table and the collectives table can hold. */
static void list_checks(void)
{
    for (int k = 0; k < TDM_KERNEL_COUNT; k++)
        printf("kernel %s\n", tdm_kernel_get((tdm_kernel)k)->name);
    for (size_t check = 0; check < conf_grad_count(); check++)
        printf("gradient %s\n", conf_grad_name(check));
    for (size_t c = 0; c < CONF_COLL_OPERATIONS; c++)
        printf("collective %s\n", collective_checks[c].operation);
    for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
        printf("algorithm %s\n", conf_coll_algorithm_name((tdm_collective_algorithm)a));
}

/* Every set the context can form of the devices --device named (of all without it);
 * splitting adds logical devices to ctx. */
static void run_collectives(tdm_context *ctx, conf_report *report, const options *o)
{
    const conf_suite *suite = report->suite;
    conf_coll_devices named = {suite->devices, suite->device_count};
    conf_coll_set sets[CONF_COLL_MAX_SETS];
    size_t count = conf_coll_sets(ctx, o->devices.count ? &named : NULL, sets);
    int large = o->large;
    conf_report_collectives_header();
    for (size_t s = 0; s < count; s++)
        for (size_t c = 0; c < CONF_COLL_OPERATIONS; c++) {
            conf_result row[CONF_COLL_ALGORITHMS];
            collective_checks[c].run(&sets[s], collective_checks[c].which, large, row);
            conf_report_collectives_row(report, sets[s].name, collective_checks[c].operation, row);
        }
}

/* The reference first (its derivatives are checked too), then the selected devices. */
static size_t grad_devices(const conf_suite *suite, tdm_device **out)
{
    size_t count = 0;
    out[count++] = suite->reference;
    for (size_t d = 0; d < suite->device_count; d++)
        if (suite->devices[d] != suite->reference)
            out[count++] = suite->devices[d];
    return count;
}

/* The checks that run one of the kernels, or all of them. */
static void run_gradients(conf_report *report, const tdm_kernel *kernels, int kernel_count)
{
    tdm_device *devices[MAX_SELECTED + 1];
    size_t count = grad_devices(report->suite, devices);
    if (conf_report_gradients_header(report, devices, count) != 0)
        return;
    for (size_t check = 0; check < conf_grad_count(); check++) {
        int wanted = kernel_count == 0;
        for (int k = 0; k < kernel_count; k++)
            wanted |= conf_grad_uses(check, kernels[k]);
        if (!wanted)
            continue;
        conf_result row[MAX_SELECTED + 1];
        for (size_t d = 0; d < count; d++)
            conf_grad_run(devices[d], check, &row[d]);
        conf_report_gradients_row(report, check, row);
    }
}

static int run_checks(tdm_context *ctx, const conf_suite *suite, const tdm_kernel *kernels,
                      int kernel_count, const options *o)
{
    conf_report report;
    if (conf_report_begin(&report, suite, kernel_count) != 0)
        return 1;
    for (int k = 0; k < kernel_count; k++) {
        conf_result *row = conf_report_row(&report, k);
        conf_suite_run_kernel(suite, kernels[k], row);
        conf_report_print_row(&report, kernels[k], row);
    }
    int by_default = o->kernels.count == 0 && !o->collectives && !o->grad && !o->kernels_only;
    if (o->grad || by_default)
        run_gradients(&report, kernels, o->kernels.count ? kernel_count : 0);
    if (o->collectives || by_default)
        run_collectives(ctx, &report, o);
    int failed = conf_report_finish(&report, kernels, o->json_path);
    conf_report_end(&report);
    return failed ? 1 : 0;
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
    if (cli_select_devices(ctx, &o.devices, &suite.reference, devices, &suite.device_count) == 0)
        rc = run_checks(ctx, &suite, kernels, kernel_count, &o);
    size_t messages = tdm_context_validation_messages(ctx);
    if (messages) { /* a kernel that breaks the Vulkan rules is not conformant either */
        printf("%zu Vulkan validation message(s): see above\n", messages);
        rc = 1;
    }
    tdm_context_destroy(ctx);
    return rc;
}
