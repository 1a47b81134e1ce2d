/* Runs every selected kernel's cases on every selected device against the
 * reference device, filling a kernel x device table of results. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "conformance_suite.h"

#define MAX_CASES 32

/* The reference's answers for one case: plain, with denormals flushed (edge data
 * only: its inputs, and its operands and results where conf_flushing_begin can)
 * and on absolute values (linear kernels: the tolerance's scale). */
typedef struct oracle {
    conf_buffers want, want_ftz, scale;
    int has_ftz, has_scale;
} oracle;

static tdm_status reference_answer(tdm_device *ref, const conf_case *c, const conf_buffers *in,
                                   int flush, int absolute, conf_buffers *out)
{
    conf_buffers transformed;
    if (conf_buffers_transform(c, in, &transformed, flush, absolute) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    conf_case abs_case = *c;
    for (unsigned i = 0; absolute && i < TDM_KERNEL_MAX_FLOATS; i++)
        abs_case.f[i] = fabsf(c->f[i]);
    if (conf_buffers_transform(c, &transformed, out, 0, 0) != 0) {
        conf_buffers_free(&transformed);
        return TDM_ERR_OUT_OF_MEMORY;
    }
    unsigned mode = flush ? conf_flushing_begin() : 0;
    tdm_status s = conf_run(ref, &abs_case, &transformed, out);
    if (flush)
        conf_flushing_end(mode);
    conf_buffers_free(&transformed);
    return s;
}

static tdm_status make_oracle(tdm_device *ref, const conf_case *c, const conf_buffers *in,
                              oracle *o)
{
    const tdm_tolerance *tol = tdm_kernel_tolerance(c->kernel, c->u);
    memset(o, 0, sizeof *o);
    o->has_ftz = c->data == CONF_EDGE;
    o->has_scale = tol->linear && c->data != CONF_INTEGER;
    tdm_status s = reference_answer(ref, c, in, 0, 0, &o->want);
    if (s == TDM_OK && o->has_ftz)
        s = reference_answer(ref, c, in, 1, 0, &o->want_ftz);
    if (s == TDM_OK && o->has_scale)
        s = reference_answer(ref, c, in, 0, 1, &o->scale);
    return s;
}

static void free_oracle(oracle *o)
{
    conf_buffers_free(&o->want);
    conf_buffers_free(&o->want_ftz);
    conf_buffers_free(&o->scale);
}

void conf_not_supported(conf_result *r, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    r->supported = 0;
    vsnprintf(r->first_skip, sizeof r->first_skip, fmt, args);
    va_end(args);
}

const char *conf_backend_name(const tdm_device *dev)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    return tdm_device_describe(dev, &d) == TDM_OK ? tdm_backend_name(d.backend) : "unknown";
}

/* A case past one of the device's limits is not supported there, as a kernel the
 * backend lacks: counted and named, never failed. */
static void skip_case(const conf_case *c, const char *why, conf_result *r)
{
    r->skipped_cases++;
    if (!r->first_skip[0])
        snprintf(r->first_skip, sizeof r->first_skip, "%s: %s", c->label, why);
}

/* 1 (the case skipped) when a buffer of the case is larger than the device's single
 * allocation. */
static int past_allocation_limit(tdm_device *dev, const conf_case *c, conf_result *r)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    if (tdm_device_describe(dev, &d) != TDM_OK)
        return 0;
    for (unsigned b = 0; b < info->buffer_count; b++) {
        size_t bytes = conf_case_buffer_bytes(c, b);
        if (bytes > d.max_allocation) {
            char why[160];
            snprintf(why, sizeof why,
                     "needs a buffer of %zu bytes; the device's max single allocation is %" PRIu64
                     " bytes",
                     bytes, d.max_allocation);
            skip_case(c, why, r);
            return 1;
        }
    }
    return 0;
}

static void run_on_device(tdm_device *dev, const conf_case *c, const conf_buffers *in,
                          const oracle *o, conf_result *r)
{
    conf_buffers got;
    if (!r->supported || past_allocation_limit(dev, c, r))
        return;
    if (conf_buffers_transform(c, in, &got, 0, 0) != 0) {
        r->failed_cases++;
        snprintf(r->first_failure, sizeof r->first_failure, "%s: out of host memory", c->label);
        return;
    }
    double start = tdm_seconds();
    tdm_status s = conf_run(dev, c, in, &got);
    if (s == TDM_ERR_UNSUPPORTED) { /* the kernel is supported: a limit (binding range) */
        skip_case(c, tdm_last_error(), r);
    } else if (s != TDM_OK) { /* any other error fails */
        r->cases++;
        r->failed_cases++;
        if (!r->first_failure[0])
            snprintf(r->first_failure, sizeof r->first_failure, "%s: %s: %s", c->label,
                     tdm_status_str(s), tdm_last_error());
    } else {
        conf_compare(c, in, &got, &o->want, o->has_ftz ? &o->want_ftz : NULL,
                     o->has_scale ? &o->scale : NULL, r);
    }
    r->seconds += tdm_seconds() - start;
    conf_buffers_free(&got);
}

/* A case the reference itself cannot run fails on every device: the table and its
 * inputs are ours, so that is a bug worth seeing. */
static void fail_everywhere(const conf_case *c, conf_result *row, size_t devices)
{
    for (size_t d = 0; d < devices; d++) {
        row[d].cases++;
        row[d].failed_cases++;
        if (!row[d].first_failure[0])
            snprintf(row[d].first_failure, sizeof row[d].first_failure,
                     "%s: the reference failed: %s", c->label, tdm_last_error());
    }
}

static void run_case(const conf_suite *suite, const conf_case *c, size_t index, conf_result *row)
{
    conf_buffers in;
    oracle o;
    if (conf_buffers_make(c, &in) != 0) {
        fail_everywhere(c, row, suite->device_count);
        return;
    }
    if (make_oracle(suite->reference, c, &in, &o) != TDM_OK)
        fail_everywhere(c, row, suite->device_count);
    else
        for (size_t d = 0; d < suite->device_count; d++) {
            if (suite->before_case)
                suite->before_case(suite->before_case_arg, d, index);
            run_on_device(suite->devices[d], c, &in, &o, &row[d]);
        }
    free_oracle(&o);
    conf_buffers_free(&in);
}

void conf_suite_run_kernel(const conf_suite *suite, tdm_kernel kernel, conf_result *row)
{
    conf_case cases[MAX_CASES];
    size_t count = conf_cases(kernel, suite->large, cases, MAX_CASES);
    for (size_t d = 0; d < suite->device_count; d++) {
        memset(&row[d], 0, sizeof row[d]);
        row[d].supported = 1;
        if (!tdm_kernel_supported(suite->devices[d], kernel))
            conf_not_supported(&row[d], "the %s backend has no %s kernel",
                               conf_backend_name(suite->devices[d]), tdm_kernel_get(kernel)->name);
    }
    for (size_t i = 0; i < count; i++)
        if (!suite->small || conf_case_largest_view(&cases[i]) <= CONF_SMALL_ELEMENTS)
            run_case(suite, &cases[i], i, row);
}
