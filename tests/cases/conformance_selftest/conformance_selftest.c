/* The conformance checker must be able to fail. A test-only device runs the
 * reference kernels except for a set of deliberately wrong ones, each a realistic
 * bug; the checker must report every wrong kernel FAIL and the right ones PASS,
 * which also shows that no tolerance is loose enough to accept a wrong formula. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "conformance.h"
#include "conformance_grad.h"
#include "conformance_suite.h"
#include "device/device_impl.h" /* a test-only device: its ops and limits set here */
#include "harness.h"
#include "ref_kernels.h"
#include "reference_launch.h"
#include "wrong_kernels.h"

/* The wrong device's kernel under test, and the reference's for the others. */
static const wrong_kernel *active = wrong_kernels;
static size_t active_count = 1;

static tdm_status wrong_launch(tdm_device *dev, void *state, const tdm_launch *l)
{
    for (size_t i = 0; i < active_count; i++)
        if (active[i].kernel == l->kernel) {
            active[i].wrong(l);
            return TDM_OK;
        }
    return tdm_reference_launch(dev, state, l);
}

static void check_subtle(const conf_suite *suite)
{
    for (size_t i = 0; i < subtle_kernel_count; i++) {
        conf_result row[2];
        active = &subtle_kernels[i], active_count = 1;
        conf_suite_run_kernel(suite, active->kernel, row);
        printf("%-14s subtly wrong: %d/%d failed (%s)\n", tdm_kernel_get(active->kernel)->name,
               row[1].failed_cases, row[1].cases, row[1].first_failure);
        CHECK(row[1].failed_cases > 0);
    }
}

/* Every gradient check passes on the right device; each wrong derivative fails the
 * check of its kernel on the wrong one. */
static void check_derivatives(tdm_device *right, tdm_device *wrong)
{
    for (size_t c = 0; c < conf_grad_count(); c++) {
        conf_result r;
        conf_grad_run(right, c, &r);
        printf("%-14s right: %d/%d failed, worst %.2g of tol %s\n", conf_grad_name(c),
               r.failed_cases, r.cases, r.worst_ratio, r.first_failure);
        CHECK(r.supported && r.cases > 0 && r.failed_cases == 0);
    }
    for (size_t i = 0; i < wrong_derivative_count; i++) {
        active = &wrong_derivatives[i], active_count = 1;
        int failed = 0;
        for (size_t c = 0; c < conf_grad_count(); c++) {
            if (!conf_grad_uses(c, active->kernel))
                continue;
            conf_result r;
            conf_grad_run(wrong, c, &r);
            printf("%-14s wrong derivative: %d/%d failed (%s)\n", conf_grad_name(c), r.failed_cases,
                   r.cases, r.first_failure);
            failed += r.failed_cases;
        }
        CHECK(failed > 0);
    }
}

/* axpy's y[0] near zero and y[1] = 1 (scale: 1 each), as the device got them against
 * the reference's want. */
static conf_result compare_axpy(float got0, float want0, float got1, float want1)
{
    conf_case c = {.kernel = TDM_KERNEL_axpy, .u = {2}, .data = CONF_RANDOM, .label = "unit"};
    conf_buffers in, got, want, scale;
    conf_result r = {.supported = 1};
    CHECK(conf_buffers_make(&c, &in) == 0 && conf_buffers_make(&c, &got) == 0 &&
          conf_buffers_make(&c, &want) == 0 && conf_buffers_make(&c, &scale) == 0);
    float *g = got.host[0], *w = want.host[0], *m = scale.host[0];
    g[0] = got0, w[0] = want0, g[1] = got1, w[1] = want1, m[0] = m[1] = 1.0f;
    conf_compare(&c, &in, &got, &want, NULL, &scale, &r);
    conf_buffers_free(&in);
    conf_buffers_free(&got);
    conf_buffers_free(&want);
    conf_buffers_free(&scale);
    return r;
}

/* Near zero the magnitude term of the tolerance decides: a rounding error there is
 * millions of ulps of a tiny result, so it is reported as a fraction of the
 * tolerance, and ulps only where the result is not near zero. */
static void check_near_zero_reporting(void)
{
    conf_result r = compare_axpy(1.5e-8f, 1e-8f, 1.0f, 1.0f);
    CHECK(r.failed_cases == 0 && r.worst_near_zero && r.worst_ulps == 0);
    CHECK(r.worst_ratio > 0.01 && r.worst_ratio < 0.1); /* 5e-9 of 2^-23 */
    r = compare_axpy(1e-8f, 1e-8f, nextafterf(1.0f, 2.0f), 1.0f);
    CHECK(r.failed_cases == 0 && !r.worst_near_zero && r.worst_ulps == 1.0);
    r = compare_axpy(1e-6f, 1e-8f, 1.0f, 1.0f);
    CHECK(r.failed_cases == 1 && r.worst_near_zero && r.worst_ratio > 1.0);
}

/* NaN and infinities: NaN only where the reference has NaN, the reference's
 * infinity with its sign. */
static void check_special_parity(void)
{
    CHECK(compare_axpy(NAN, NAN, 1.0f, 1.0f).failed_cases == 0);
    CHECK(compare_axpy(INFINITY, INFINITY, -INFINITY, -INFINITY).failed_cases == 0);
    CHECK(compare_axpy(NAN, INFINITY, 1.0f, 1.0f).failed_cases == 1);
    CHECK(compare_axpy(-INFINITY, INFINITY, 1.0f, 1.0f).failed_cases == 1);
    CHECK(compare_axpy(1.0f, 1.0f, INFINITY, NAN).failed_cases == 1);
    CHECK(compare_axpy(1.0f, 1.0f, FLT_MAX, INFINITY).failed_cases == 1);
}

/* A write before or after an output's view fails its case, naming the kernel, the
 * buffer and the element's offset from the view's start. */
static void check_guards(const conf_suite *suite)
{
    static const wrong_kernel overruns[] = {{TDM_KERNEL_copy, copy_underrun},
                                            {TDM_KERNEL_copy, copy_overrun}};
    for (size_t i = 0; i < 2; i++) {
        conf_result row[2];
        active = &overruns[i], active_count = 1;
        conf_suite_run_kernel(suite, TDM_KERNEL_copy, row);
        printf("copy %s: %d/%d failed (%s)\n", i ? "overrun" : "underrun", row[1].failed_cases,
               row[1].cases, row[1].first_failure);
        CHECK(row[0].failed_cases == 0 && row[1].failed_cases > 0);
        CHECK(strstr(row[1].first_failure, "copy wrote outside its view of y: element ") != NULL);
        CHECK(strstr(row[1].first_failure, i ? "element 1 (view of 1)" : "element -1 (view") !=
              NULL);
    }
}

/* A device that flushes denormal operands and results, as a GPU compiling with
 * flush-to-zero: the reference's kernels with the CPU flushing. */
static tdm_status flushing_launch(tdm_device *dev, void *state, const tdm_launch *l)
{
    unsigned old = conf_flushing_begin();
    tdm_status s = tdm_reference_launch(dev, state, l);
    conf_flushing_end(old);
    return s;
}

/* The kernels whose edge cases a flushed intermediate changes past any tolerance
 * (FLT_MIN * FLT_MAX, inf * a flushed denormal, a zero's sign, a comparison of
 * flushed operands) pass on such a device: the APIs allow the flushing. */
static void check_flushing_device(const conf_suite *suite, tdm_backend_ops *ops)
{
    static const tdm_kernel flushed[] = {TDM_KERNEL_maximum,
                                         TDM_KERNEL_minimum,
                                         TDM_KERNEL_batch_norm_apply,
                                         TDM_KERNEL_batch_norm_grad,
                                         TDM_KERNEL_batch_norm_xhat_dy,
                                         TDM_KERNEL_layer_norm_grad,
                                         TDM_KERNEL_bias_add_f16,
                                         TDM_KERNEL_layer_norm_grad_f16};
    if (!conf_flushing_available())
        return;
    ops->launch = flushing_launch;
    for (size_t i = 0; i < sizeof flushed / sizeof flushed[0]; i++) {
        conf_result row[2];
        conf_suite_run_kernel(suite, flushed[i], row);
        printf("%-14s flushing: %d/%d failed (%s)\n", tdm_kernel_get(flushed[i])->name,
               row[1].failed_cases, row[1].cases, row[1].first_failure);
        CHECK(row[1].supported && row[1].cases > 0 && row[1].failed_cases == 0);
    }
    ops->launch = wrong_launch;
}

void test_case_conformance_selftest(const test_run *run)
{
    (void)run;
    check_near_zero_reporting();
    check_special_parity();
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *ref, *pair[2];
    CHECK_OK(tdm_context_device(ctx, 0, &ref));
    CHECK_OK(tdm_device_split(ref, 2, pair));
    static tdm_backend_ops wrong_ops;
    wrong_ops = *pair[1]->ops;
    wrong_ops.launch = wrong_launch;
    pair[1]->ops = &wrong_ops; /* a test-only device with the wrong kernels */
    /* and lavapipe's loop budget, so that the launches the core cuts into pieces there
     * are cut here too: a piece that restarts its sum must show */
    pair[1]->traits.max_loop_iterations = TDM_KERNEL_LOOP_BUDGET;
    conf_suite suite = {.reference = ref, .devices = pair, .device_count = 2};
    for (size_t i = 0; i < wrong_kernel_count; i++) {
        conf_result row[2];
        active = &wrong_kernels[i], active_count = 1; /* a kernel may have several */
        conf_suite_run_kernel(&suite, wrong_kernels[i].kernel, row);
        const char *name = tdm_kernel_get(wrong_kernels[i].kernel)->name;
        printf("%-14s right: %d/%d failed, wrong: %d/%d failed (%s)\n", name, row[0].failed_cases,
               row[0].cases, row[1].failed_cases, row[1].cases, row[1].first_failure);
        CHECK(row[0].supported && row[0].cases > 0 && row[0].failed_cases == 0);
        CHECK(row[1].supported && row[1].failed_cases > 0);
    }
    check_subtle(&suite);
    check_guards(&suite);
    check_derivatives(pair[0], pair[1]);
    check_flushing_device(&suite, &wrong_ops);
    tdm_context_destroy(ctx);
}
