#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_report.h"
#include "json_writer.h"

#define CELL_WIDTH 22

/* The first column: as wide as the longest kernel name (the grad checks' are
 * shorter), and a space. */
static int name_width(void)
{
    size_t widest = 0;
    for (int k = 0; k < TDM_KERNEL_COUNT; k++) {
        size_t len = strlen(tdm_kernel_get((tdm_kernel)k)->name);
        widest = len > widest ? len : widest;
    }
    return (int)widest + 1;
}

static const char *device_id(const tdm_device *dev, char *buf)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    tdm_device_describe(dev, &d);
    strcpy(buf, d.id);
    return buf;
}

int conf_report_begin(conf_report *r, const conf_suite *suite, int kernel_count)
{
    memset(r, 0, sizeof *r);
    r->suite = suite;
    r->kernel_count = kernel_count;
    r->results = calloc((size_t)(kernel_count ? kernel_count : 1) *
                            (suite->device_count ? suite->device_count : 1),
                        sizeof *r->results);
    if (!r->results)
        return -1;
    if (!kernel_count) /* the collectives alone */
        return 0;
    char id[TDM_DEVICE_ID_MAX];
    printf("%-*s", name_width(), "kernel");
    for (size_t d = 0; d < suite->device_count; d++)
        printf(" %-*s", CELL_WIDTH, device_id(suite->devices[d], id));
    printf("\n");
    fflush(stdout);
    return 0;
}

conf_result *conf_report_row(conf_report *r, int row)
{
    return &r->results[(size_t)row * r->suite->device_count];
}

static const char *verdict(const conf_result *c)
{
    if (c->ended == CONF_CRASHED)
        return "CRASH";
    if (c->ended == CONF_TIMED_OUT)
        return "TIMEOUT";
    return !c->supported ? "NOT SUPPORTED" : c->failed_cases ? "FAIL" : "PASS";
}

/* The worst error in ulps, or as a fraction of the tolerance where the worst one
 * was near zero (ulps of a cancelled result mean nothing). */
static void format_cell(const conf_result *c, char *out, size_t size)
{
    if (c->ended != CONF_RAN) /* how it ended, its words in parentheses left out */
        snprintf(out, size, "%s %.*s", verdict(c), (int)strcspn(c->end_detail, "("),
                 c->end_detail);
    else if (!c->supported)
        snprintf(out, size, "NOT SUPPORTED");
    else if (c->skipped_cases && !c->failed_cases)
        snprintf(out, size, "PASS, %d NOT SUPPORTED", c->skipped_cases);
    else if (c->worst_ratio == 0 && !c->failed_cases)
        snprintf(out, size, "PASS exact");
    else if (c->worst_near_zero)
        snprintf(out, size, "%s %.2g of tol", verdict(c), c->worst_ratio);
    else
        snprintf(out, size, "%s %.3g ulp", verdict(c), c->worst_ulps);
}

static void count_cell(conf_report *r, const conf_result *c)
{
    r->crashed += c->ended == CONF_CRASHED;
    r->timed_out += c->ended == CONF_TIMED_OUT;
    if (c->ended != CONF_RAN)
        r->failed++;
    else if (!c->supported)
        r->skipped++;
    else if (c->failed_cases)
        r->failed++;
    else
        r->passed++;
}

void conf_report_print_row(conf_report *r, tdm_kernel kernel, const conf_result *row)
{
    r->kernel_rows_printed++;
    printf("%-*s", name_width(), tdm_kernel_get(kernel)->name);
    for (size_t d = 0; d < r->suite->device_count; d++) {
        char cell[64];
        format_cell(&row[d], cell, sizeof cell);
        printf(" %-*s", CELL_WIDTH, cell);
        count_cell(r, &row[d]);
    }
    printf("\n");
    fflush(stdout);
}

void conf_report_collectives_header(void)
{
    printf("\n%-16s %-14s", "collectives", "operation");
    for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
        printf(" %-14s", conf_coll_algorithm_name((tdm_collective_algorithm)a));
    printf("\n");
    fflush(stdout);
}

/* Cells count like the kernels'; a failure's first case follows its row. */
void conf_report_collectives_row(conf_report *r, const char *set, const char *operation,
                                 const conf_result *row)
{
    if (r->collective_count < CONF_COLL_MAX_SETS * CONF_COLL_OPERATIONS) {
        conf_coll_row *kept = &r->collectives[r->collective_count++];
        snprintf(kept->set, sizeof kept->set, "%s", set);
        kept->operation = operation;
        memcpy(kept->by_algorithm, row, sizeof kept->by_algorithm);
    }
    printf("%-16s %-14s", set, operation);
    for (int a = 0; a < CONF_COLL_ALGORITHMS; a++) {
        printf(" %-14s", verdict(&row[a]));
        count_cell(r, &row[a]);
    }
    printf("\n");
    if (row[0].ended != CONF_RAN) /* the algorithms run together, and were lost together */
        printf("%s %s on %s, every algorithm: the worker running them ended: %s\n",
               verdict(&row[0]), operation, set, row[0].end_detail);
    for (int a = 0; a < CONF_COLL_ALGORITHMS; a++) {
        const char *algorithm = conf_coll_algorithm_name((tdm_collective_algorithm)a);
        if (row[a].ended != CONF_RAN)
            continue;
        if (row[a].supported && row[a].failed_cases)
            printf("FAIL %s %s on %s: %d of %d cases; first: %s\n", operation, algorithm, set,
                   row[a].failed_cases, row[a].cases, row[a].first_failure);
        else if (!row[a].supported)
            printf("NOT SUPPORTED %s %s on %s: %s\n", operation, algorithm, set, row[a].first_skip);
    }
    fflush(stdout);
}

int conf_report_gradients_header(conf_report *r, tdm_device *const *devices, size_t count)
{
    r->grad_devices = malloc((count ? count : 1) * sizeof *devices); /* kept for the JSON */
    r->gradients = calloc(conf_grad_count() * (count ? count : 1), sizeof *r->gradients);
    if (!r->grad_devices || !r->gradients)
        return -1;
    memcpy(r->grad_devices, devices, count * sizeof *devices);
    r->grad_device_count = count;
    char id[TDM_DEVICE_ID_MAX];
    printf("\n%-*s", name_width(), "gradients");
    for (size_t d = 0; d < count; d++)
        printf(" %-*s", CELL_WIDTH, device_id(devices[d], id));
    printf("\n");
    fflush(stdout);
    return 0;
}

void conf_report_gradients_row(conf_report *r, size_t check, const conf_result *row)
{
    char id[TDM_DEVICE_ID_MAX];
    size_t kept = r->grad_row_count++;
    r->grad_rows[kept] = check;
    memcpy(&r->gradients[kept * r->grad_device_count], row, r->grad_device_count * sizeof *row);
    printf("%-*s", name_width(), conf_grad_name(check));
    for (size_t d = 0; d < r->grad_device_count; d++) {
        char cell[64];
        format_cell(&row[d], cell, sizeof cell);
        printf(" %-*s", CELL_WIDTH, cell);
        count_cell(r, &row[d]);
    }
    printf("\n");
    for (size_t d = 0; d < r->grad_device_count; d++)
        if (row[d].ended != CONF_RAN)
            printf("%s %s on %s: the worker running it ended: %s\n", verdict(&row[d]),
                   conf_grad_name(check), device_id(r->grad_devices[d], id), row[d].end_detail);
        else if (row[d].supported && row[d].failed_cases)
            printf("FAIL %s on %s: %d of %d cases; first: %s\n", conf_grad_name(check),
                   device_id(r->grad_devices[d], id), row[d].failed_cases, row[d].cases,
                   row[d].first_failure);
        else if (!row[d].supported)
            printf("NOT SUPPORTED %s on %s: %s\n", conf_grad_name(check),
                   device_id(r->grad_devices[d], id), row[d].first_skip);
    fflush(stdout);
}

/* The fields every result shares, kernel or collective. */
static void json_result(json_writer *w, const conf_result *c)
{
    json_string(w, "status", verdict(c));
    if (c->ended != CONF_RAN) {
        json_string(w, "ended", c->end_detail);
        if (c->end_case)
            json_uint(w, "ended_in_case", (uint64_t)c->end_case);
    }
    json_uint(w, "cases", (uint64_t)c->cases);
    json_uint(w, "failed_cases", (uint64_t)c->failed_cases);
    json_string(w, "first_failure", c->first_failure);
    json_uint(w, "skipped_cases", (uint64_t)c->skipped_cases);
    json_string(w, "first_skip", c->first_skip);
    json_double(w, "seconds", c->seconds);
}

/* Which tandem and which drivers gave the results: the reference, then the devices. */
static void json_versions(json_writer *w, const conf_suite *suite)
{
    json_string(w, "tandem_version", tdm_version());
    json_begin_array(w, "devices");
    for (size_t d = 0; d <= suite->device_count; d++) {
        const tdm_device *dev = d ? suite->devices[d - 1] : suite->reference;
        tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
        if ((d && dev == suite->reference) || tdm_device_describe(dev, &desc) != TDM_OK)
            continue;
        json_begin_object(w, NULL);
        json_string(w, "id", desc.id);
        json_string(w, "name", desc.name);
        json_string(w, "driver", desc.driver);
        json_end_object(w);
    }
    json_end_array(w);
}

static void write_json(const conf_report *r, const tdm_kernel *kernels, FILE *out)
{
    json_writer w = {out, 0, 0};
    char id[TDM_DEVICE_ID_MAX];
    json_begin_object(&w, NULL);
    json_versions(&w, r->suite);
    json_begin_array(&w, "results");
    for (int k = 0; k < r->kernel_rows_printed; k++)
        for (size_t d = 0; d < r->suite->device_count; d++) {
            const conf_result *c = &r->results[(size_t)k * r->suite->device_count + d];
            json_begin_object(&w, NULL);
            json_string(&w, "kernel", tdm_kernel_get(kernels[k])->name);
            json_string(&w, "device", device_id(r->suite->devices[d], id));
            json_result(&w, c);
            json_double(&w, "worst_ulps", c->worst_ulps);
            json_double(&w, "worst_error_over_tolerance", c->worst_ratio);
            json_bool(&w, "worst_near_zero", c->worst_near_zero);
            json_end_object(&w);
        }
    json_end_array(&w);
    json_begin_array(&w, "collectives");
    for (size_t s = 0; s < r->collective_count; s++)
        for (int a = 0; a < CONF_COLL_ALGORITHMS; a++) {
            json_begin_object(&w, NULL);
            json_string(&w, "set", r->collectives[s].set);
            json_string(&w, "operation", r->collectives[s].operation);
            json_string(&w, "algorithm", conf_coll_algorithm_name((tdm_collective_algorithm)a));
            json_result(&w, &r->collectives[s].by_algorithm[a]);
            json_end_object(&w);
        }
    json_end_array(&w);
    json_begin_array(&w, "gradients");
    for (size_t g = 0; g < r->grad_row_count; g++)
        for (size_t d = 0; d < r->grad_device_count; d++) {
            const conf_result *c = &r->gradients[g * r->grad_device_count + d];
            json_begin_object(&w, NULL);
            json_string(&w, "check", conf_grad_name(r->grad_rows[g]));
            json_string(&w, "device", device_id(r->grad_devices[d], id));
            json_result(&w, c);
            json_double(&w, "worst_error_over_tolerance", c->worst_ratio);
            json_end_object(&w);
        }
    json_end_array(&w);
    json_uint(&w, "passed", (uint64_t)r->passed);
    json_uint(&w, "failed", (uint64_t)r->failed);
    json_uint(&w, "skipped", (uint64_t)r->skipped);
    json_uint(&w, "crashed", (uint64_t)r->crashed);
    json_uint(&w, "timed_out", (uint64_t)r->timed_out);
    json_end_object(&w);
}

static void print_failures(const conf_report *r, const tdm_kernel *kernels)
{
    char id[TDM_DEVICE_ID_MAX];
    for (int k = 0; k < r->kernel_rows_printed; k++)
        for (size_t d = 0; d < r->suite->device_count; d++) {
            const conf_result *c = &r->results[(size_t)k * r->suite->device_count + d];
            if (c->ended != CONF_RAN) {
                printf("%s %s on %s: the worker running it ended: %s, in case %d\n", verdict(c),
                       tdm_kernel_get(kernels[k])->name, device_id(r->suite->devices[d], id),
                       c->end_detail, c->end_case);
                continue;
            }
            if (c->supported && c->failed_cases)
                printf("FAIL %s on %s: %d of %d cases; first: %s\n",
                       tdm_kernel_get(kernels[k])->name, device_id(r->suite->devices[d], id),
                       c->failed_cases, c->cases, c->first_failure);
            if (!c->supported)
                printf("NOT SUPPORTED %s on %s: %s\n", tdm_kernel_get(kernels[k])->name,
                       device_id(r->suite->devices[d], id), c->first_skip);
            if (c->skipped_cases)
                printf("NOT SUPPORTED %s on %s: %d case(s) past the device's limits; first: %s\n",
                       tdm_kernel_get(kernels[k])->name, device_id(r->suite->devices[d], id),
                       c->skipped_cases, c->first_skip);
        }
}

int conf_report_finish(conf_report *r, const tdm_kernel *kernels, const char *json_path)
{
    print_failures(r, kernels);
    printf("%d passed, %d failed, %d skipped", r->passed, r->failed, r->skipped);
    if (r->crashed || r->timed_out)
        printf(" (of the failed: %d crashed, %d timed out)", r->crashed, r->timed_out);
    printf("\n");
    if (json_path) {
        FILE *out = fopen(json_path, "wb");
        if (!out) {
            perror(json_path);
            return r->failed + 1;
        }
        write_json(r, kernels, out);
        fclose(out);
    }
    return r->failed;
}

void conf_report_end(conf_report *r)
{
    free(r->results);
    free(r->gradients);
    free(r->grad_devices);
}
