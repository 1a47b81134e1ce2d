/* The finite-difference engine of the gradient checks: the loss is a weighted sum of
 * a forward kernel's outputs; its gradient by the five-point stencil
 * (-f(x+2h) + 8 f(x+h) - 8 f(x-h) + f(x-2h)) / 12h, whose truncation error is
 * O(h^4), against what the backward call returns, element by element. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "conformance_grad_problem.h"
#include "ref_kernels.h"

static const double stencil_step[4] = {2, 1, -1, -2};
static const double stencil_coef[4] = {-1, 8, -8, 1};
#define STENCIL_GAIN (18.0 / 12.0) /* sum of |coef| / 12: how rounding in f adds up */

/* What the finite differences may miss by, beyond the forward kernel's rounding
 * (noise): truncation, and the backward kernel's own rounding of a sum of terms. */
#define RELATIVE_SLACK 1e-3
#define ABSOLUTE_SLACK 1e-6

size_t conf_grad_count(void)
{
    return grad_check_count();
}

const char *conf_grad_name(size_t check)
{
    return grad_check_get(check)->name;
}

int conf_grad_uses(size_t check, tdm_kernel kernel)
{
    const grad_check *g = grad_check_get(check);
    return g->forward == kernel || g->backward == kernel;
}

void grad_problem_free(grad_problem *p)
{
    conf_buffers_free(&p->fwd_in);
    conf_buffers_free(&p->bwd_in);
    free(p->weight);
    memset(p, 0, sizeof *p);
}

/* The finite-difference gradient of every input, with what bounds its error. */
typedef struct estimate {
    double *value;
    double *terms; /* the sum of the magnitudes of its terms */
    double *noise; /* how far the forward kernel's rounding can move it */
} estimate;

static int estimate_alloc(estimate *e, size_t n)
{
    e->value = calloc(n ? n : 1, sizeof *e->value);
    e->terms = calloc(n ? n : 1, sizeof *e->terms);
    e->noise = calloc(n ? n : 1, sizeof *e->noise);
    return e->value && e->terms && e->noise ? 0 : -1;
}

static void estimate_free(estimate *e)
{
    free(e->value);
    free(e->terms);
    free(e->noise);
}

/* The forward's weighed output with the inputs of `round` moved by `shift`. */
static tdm_status forward_shifted(tdm_device *dev, const grad_problem *p, size_t round,
                                  double shift, float *out)
{
    conf_buffers in, got;
    if (conf_buffers_transform(&p->fwd, &p->fwd_in, &in, 0, 0) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    /* exact: inputs sit on a grid finer than h, halves on one they hold (make_call) */
    int half = tdm_kernel_get(p->fwd.kernel)->buffers[p->wrt].type == 'h';
    float *x = in.host[p->wrt];
    uint16_t *h = in.host[p->wrt];
    for (size_t j = 0; j < in.elements[p->wrt]; j++)
        if (p->round_of(p, j) == round && half)
            h[j] = tdm_f16_from_f32((float)(tdm_f32_from_f16(h[j]) + shift));
        else if (p->round_of(p, j) == round)
            x[j] = (float)(x[j] + shift);
    tdm_status s = TDM_ERR_OUT_OF_MEMORY;
    if (conf_buffers_transform(&p->fwd, &in, &got, 0, 0) == 0) {
        s = p->forward ? p->forward(dev, p, &in, &got) : conf_run(dev, &p->fwd, &in, &got);
        if (s == TDM_OK)
            memcpy(out, got.host[p->out], in.elements[p->out] * sizeof *out);
        conf_buffers_free(&got);
    }
    conf_buffers_free(&in);
    return s;
}

/* One stencil over a round's outputs, added to the estimates of their owners. */
static void add_round(const grad_problem *p, size_t round, float *const f[4], estimate *e)
{
    const tdm_tolerance *tol = &tdm_kernel_get(p->fwd.kernel)->tolerance;
    for (size_t o = 0; o < p->fwd_in.elements[p->out]; o++) {
        long j = p->owner(p, o, round);
        double w = p->weight[o];
        if (j < 0 || w == 0)
            continue;
        double d = 0, largest = 1;
        for (int s = 0; s < 4; s++) {
            d += stencil_coef[s] * f[s][o];
            largest = fmax(largest, fabs(f[s][o]));
        }
        d /= 12 * GRAD_STEP;
        e->value[j] += w * d;
        e->terms[j] += fabs(w * d);
        e->noise[j] +=
            fabs(w) * (tol->ulps + 8) * conf_ulp((float)largest) * STENCIL_GAIN / GRAD_STEP;
    }
}

static tdm_status finite_differences(tdm_device *dev, const grad_problem *p, estimate *e)
{
    size_t outs = p->fwd_in.elements[p->out];
    float *f[4] = {0};
    tdm_status s = TDM_OK;
    for (int i = 0; i < 4; i++)
        if (!(f[i] = malloc((outs ? outs : 1) * sizeof *f[i])))
            s = TDM_ERR_OUT_OF_MEMORY;
    for (size_t round = 0; round < p->rounds && s == TDM_OK; round++) {
        for (int i = 0; i < 4 && s == TDM_OK; i++)
            s = forward_shifted(dev, p, round, stencil_step[i] * GRAD_STEP, f[i]);
        if (s == TDM_OK)
            add_round(p, round, f, e);
    }
    for (int i = 0; i < 4; i++)
        free(f[i]);
    return s;
}

/* The backward call's gradient, into got (its view zeroed first: GEMM with beta 0
 * writes only inside its matrix, and nothing may be written elsewhere). */
static tdm_status backward(tdm_device *dev, const grad_problem *p, conf_buffers *got)
{
    conf_buffers in;
    if (conf_buffers_transform(&p->bwd, &p->bwd_in, &in, 0, 0) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    memset(in.host[p->grad], 0, in.elements[p->grad] * sizeof(float));
    tdm_status s = TDM_ERR_OUT_OF_MEMORY;
    if (conf_buffers_transform(&p->bwd, &in, got, 0, 0) == 0) {
        s = conf_run(dev, &p->bwd, &in, got);
        if (s != TDM_OK)
            conf_buffers_free(got);
    }
    conf_buffers_free(&in);
    return s;
}

/* Counts a failed case; the first one's reason is kept (cut to fit). */
static void fail(conf_result *r, const char *fmt, ...)
{
    r->failed_cases++;
    if (r->first_failure[0])
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(r->first_failure, sizeof r->first_failure, fmt, args);
    va_end(args);
}

static void compare(const grad_problem *p, const conf_buffers *got, const estimate *e,
                    conf_result *r)
{
    const float *grad = got->host[p->grad], *before = p->bwd_in.host[p->grad];
    size_t n = p->fwd_in.elements[p->wrt];
    long first_miss = -1;
    r->cases++;
    r->worst_near_zero = 1; /* reported as a fraction of what is allowed */
    for (size_t j = 0; j < n; j++) {
        double allowed = 4 * e->noise[j] + RELATIVE_SLACK * e->terms[j] + ABSOLUTE_SLACK;
        double miss = fabs(grad[j] - e->value[j]);
        double ratio = isnan(miss) ? INFINITY : miss / allowed;
        r->worst_ratio = fmax(r->worst_ratio, ratio);
        if (ratio > 1 && first_miss < 0)
            first_miss = (long)j;
    }
    if (first_miss >= 0) {
        size_t j = (size_t)first_miss;
        fail(r, "%s: element %zu: backward %.7g, finite differences %.7g", p->bwd.label, j,
             (double)grad[j], e->value[j]);
        return;
    }
    for (size_t j = n; j < got->total[p->grad]; j++)
        if (memcmp(&grad[j], &before[j], sizeof *grad) != 0) {
            fail(r, "%s: wrote guard element %zu past the gradient", p->bwd.label, j - n);
            return;
        }
}

static void run_case(tdm_device *dev, const grad_check *g, size_t index, conf_result *r)
{
    grad_problem p;
    estimate e = {0};
    conf_buffers got;
    memset(&p, 0, sizeof p);
    tdm_status s = g->build(dev, g, index, &p);
    if (s == TDM_OK && p.fwd_in.elements[p.wrt] != p.bwd_in.elements[p.grad]) {
        r->cases++; /* a check whose two calls disagree on the shape is ours to fix */
        fail(r, "%s: the forward input and the gradient differ in size", p.bwd.label);
    } else if (s == TDM_OK && estimate_alloc(&e, p.fwd_in.elements[p.wrt]) != 0) {
        s = TDM_ERR_OUT_OF_MEMORY;
    } else if (s == TDM_OK && (s = finite_differences(dev, &p, &e)) == TDM_OK &&
               (s = backward(dev, &p, &got)) == TDM_OK) {
        compare(&p, &got, &e, r);
        conf_buffers_free(&got);
    }
    if (s != TDM_OK) {
        r->cases++;
        fail(r, "%s: %s: %s", p.bwd.label[0] ? p.bwd.label : g->name, tdm_status_str(s),
             tdm_last_error());
    }
    estimate_free(&e);
    grad_problem_free(&p);
}

void conf_grad_run(tdm_device *dev, size_t check, conf_result *r)
{
    const grad_check *g = grad_check_get(check);
    memset(r, 0, sizeof *r);
    r->supported = 1;
    tdm_kernel missing = !tdm_kernel_supported(dev, g->forward)    ? g->forward
                         : !tdm_kernel_supported(dev, g->backward) ? g->backward
                                                                   : TDM_KERNEL_COUNT;
    if (missing != TDM_KERNEL_COUNT)
        conf_not_supported(r, "the %s backend has no %s kernel", conf_backend_name(dev),
                           tdm_kernel_get(missing)->name);
    double start = tdm_seconds();
    for (size_t i = 0; r->supported && i < g->cases; i++)
        run_case(dev, g, i, r);
    r->seconds = tdm_seconds() - start;
}
