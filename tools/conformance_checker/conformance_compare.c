/* Element-by-element comparison against the reference, with the kernel's declared
 * tolerance (kernels.def); guard elements must come back untouched. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conformance.h"
#include "ref_kernels.h"

double conf_ulp(float x)
{
    float a = fabsf(x);
    if (!isfinite(a))
        return 0.0;
    if (a < FLT_MIN)
        return 0x1p-149;
    if (a == FLT_MAX)
        return 0x1p104; /* the spacing below it: the next float up is infinity */
    return (double)nextafterf(a, INFINITY) - a;
}

static float element(const conf_buffers *bufs, unsigned b, char type, size_t i)
{
    if (type == 'h')
        return tdm_f32_from_f16(((const uint16_t *)bufs->host[b])[i]);
    return ((const float *)bufs->host[b])[i];
}

/* The outputs whose windows (k wide, every stride, after pad) hold input position r:
 * [*first, *last], empty where first > last. */
static void holding(long r, long k, long stride, long pad, long outputs, long *first, long *last)
{
    long lowest = r + pad - k + 1; /* the first output's window ends at or after r */
    *first = lowest <= 0 ? 0 : (lowest + stride - 1) / stride;
    *last = (r + pad) / stride < outputs - 1 ? (r + pad) / stride : outputs - 1;
}

/* The spacing of halves at |x|: a float16 twin's rounding of its float result (0
 * for infinities and NaN, as conf_ulp). */
static double half_ulp(float x)
{
    double a = fabs((double)x);
    if (!isfinite(a))
        return 0.0;
    return a < 0x1p-14 ? 0x1p-24 : ldexp(1.0, ilogb(a) - 10);
}

/* A pooling gradient's image element e: the largest magnitude of dy (buffer b) over
 * the outputs whose windows hold it. */
static double window_magnitude(const conf_case *c, const conf_buffers *in, unsigned b, size_t e)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
#define U(name) ((long)tdm_kernel_uint(info, c->u, TDM_UINT_##name))
    long w = U(w), ch = U(c), oh = U(oh), ow = U(ow);
    long t = (long)e / ch, s = t % w, r = t / w % U(h), image = t / w / U(h);
    long i0, i1, j0, j1;
    holding(r, U(kh), U(stride_h), U(pad_top), oh, &i0, &i1);
    holding(s, U(kw), U(stride_w), U(pad_left), ow, &j0, &j1);
#undef U
    double worst = 0.0;
    for (long i = i0; i <= i1; i++)
        for (long j = j0; j <= j1; j++) {
            size_t o = (size_t)(((image * oh + i) * ow + j) * ch + (long)e % ch);
            double v = fabs(element(in, b, info->buffers[b].type, c->offset[b] + o));
            worst = isfinite(v) && v > worst ? v : worst;
        }
    return worst;
}

/* The magnitude a nonlinear kernel's rounding scales with: the largest input of the
 * same element, of the same row for row kernels, of the windows that hold the
 * element for pooling gradients. */
static double input_magnitude(const conf_case *c, const conf_buffers *in, size_t out_index,
                              size_t out_elements)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    uint64_t cols = tdm_kernel_uint(info, c->u, TDM_UINT_cols);
    double worst = 0.0;
    for (unsigned b = 0; b < info->buffer_count; b++) {
        const tdm_kernel_buffer *kb = &info->buffers[b];
        if (!kb->read || kb->type == 'u')
            continue;
        size_t first = out_index, count = 1;
        if (kb->extent == TDM_EXTENT_PM && info->buffers[0].extent == TDM_EXTENT_IM) {
            double v = window_magnitude(c, in, b, out_index);
            worst = v > worst ? v : worst;
            continue;
        }
        if (kb->extent == TDM_EXTENT_C && cols)
            first = out_index % cols; /* a per-column input: this element's column */
        else if (kb->extent == TDM_EXTENT_RC && in->elements[b] != out_elements) {
            first = out_index * cols; /* a per-row output: the whole row */
            count = cols;
        } else if (kb->extent == TDM_EXTENT_RC && cols) {
            first = out_index / cols * cols;
            count = cols;
        }
        for (size_t i = first; i < first + count && i < in->elements[b]; i++) {
            double v = fabs(element(in, b, kb->type, c->offset[b] + i));
            worst = isfinite(v) && v > worst ? v : worst;
        }
    }
    return worst;
}

/* Whether a linear kernel's terms may overflow a float: their magnitude, `scale`,
 * does, or would before a coefficient under 1 is applied, as BLAS applies alpha to
 * op(A) * op(B) last. */
static int terms_overflow(const conf_case *c, double scale)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    double smallest = 1.0;
    for (unsigned i = 0; i < info->float_count; i++)
        if (c->f[i] != 0.0f && fabs(c->f[i]) < smallest)
            smallest = fabs(c->f[i]);
    return !(scale / smallest <= FLT_MAX);
}

/* |got - want| / allowed, 0 when equal, INFINITY when it cannot pass. */
static double miss(float got, float want, double allowed)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got) ? 0.0 : INFINITY;
    if (isinf(want) || isinf(got))
        return got == want ? 0.0 : INFINITY;
    double err = fabs((double)got - want);
    if (err == 0.0)
        return 0.0;
    if (fabsf(want) < FLT_MIN && got == 0.0f)
        return 0.0; /* a denormal result flushed to zero */
    return allowed > 0.0 ? err / allowed : INFINITY;
}

/* As miss, and where signed_zero, a zero has the reference's sign too. */
static double miss_signed(float got, float want, double allowed, int signed_zero)
{
    if (signed_zero && got == 0.0f && want == 0.0f && signbit(got) != signbit(want))
        return INFINITY;
    return miss(got, want, allowed);
}

/* Whether buffer b is an activation that a float16 twin rounds to half. */
static int twin_output(tdm_kernel kernel, unsigned b)
{
    const tdm_kernel_info *info = tdm_kernel_get(kernel);
    return info != tdm_kernel_get(info->base) && info->buffers[b].activation;
}

typedef struct compare_ctx {
    const conf_case *c;
    const conf_buffers *in, *got, *want, *want_ftz, *scale;
    conf_result *r;
    int case_failed;
} compare_ctx;

static void note_failure(compare_ctx *x, const char *what)
{
    if (!x->case_failed && !x->r->first_failure[0])
        snprintf(x->r->first_failure, sizeof x->r->first_failure, "%s: %s", x->c->label, what);
    x->case_failed = 1;
}

static void check_element(compare_ctx *x, unsigned b, char type, size_t i, size_t view_i)
{
    const tdm_tolerance *tol = tdm_kernel_tolerance(x->c->kernel, x->c->u);
    float got = element(x->got, b, type, i), want = element(x->want, b, type, i);
    /* (no tolerance relative to the inputs: no scale to find) */
    double scale = x->scale   ? fabs(element(x->scale, b, type, i))
                   : tol->rel ? input_magnitude(x->c, x->in, view_i, x->in->elements[b])
                              : 0.0;
    int exact = (x->c->data == CONF_INTEGER && tol->linear) || (!tol->ulps && !tol->rel);
    /* A bitwise kernel owes the reference its zeros' signs too; a linear kernel on
     * integer data owes it the value alone: where a sum of products cancels to zero,
     * alpha's sign reaches the zero or not as the library orders the product (the
     * reference's -1 * (+0) is -0, OpenBLAS's is +0). */
    int signed_zero = !tol->ulps && !tol->rel;
    double ulp_part = tol->ulps * conf_ulp(want), rel_part = tol->rel * scale;
    /* A twin's float result within the kernel's tolerance may round to the next half. */
    double twin_part = type == 'h' && !exact && twin_output(x->c->kernel, b) ? half_ulp(want) : 0;
    double allowed = exact ? 0.0 : ulp_part + rel_part + twin_part;
    /* Near zero (relative to the inputs) the magnitude term sets the tolerance, and
     * counting ulps of a tiny result would report millions for a rounding error. */
    int near_zero = !exact && rel_part > ulp_part;
    /* Terms whose magnitudes overflow a float leave the rounding unbounded: a float
     * device may overflow where the double reference does not, even to NaN
     * (inf - inf). Only a NaN reference still demands NaN. */
    double m = tol->linear && terms_overflow(x->c, scale) && !isnan(want)
                   ? 0.0
                   : miss_signed(got, want, allowed, signed_zero);
    if (m > 1.0 && x->want_ftz) {
        float want_ftz = element(x->want_ftz, b, type, i);
        m = fmin(m, miss_signed(got, want_ftz, allowed, signed_zero));
        if (fpclassify(got) == FP_SUBNORMAL && want_ftz == 0.0f)
            m = 0.0; /* a denormal input passed through by a choice made on it flushed */
    }
    if (m > x->r->worst_ratio) {
        x->r->worst_ratio = m;
        x->r->worst_near_zero = near_zero;
    }
    if (!near_zero && isfinite(want) && isfinite(got) && want != 0.0f) {
        /* in ulps of the output's type */
        double ulps = fabs((double)got - want) / (type == 'h' ? half_ulp(want) : conf_ulp(want));
        x->r->worst_ulps = ulps > x->r->worst_ulps ? ulps : x->r->worst_ulps;
    }
    if (m > 1.0) {
        char what[160];
        const tdm_kernel_info *info = tdm_kernel_get(x->c->kernel);
        snprintf(what, sizeof what, "%s[%zu] = %.9g, expected %.9g", info->buffers[b].name, view_i,
                 got, want);
        note_failure(x, what);
    }
}

/* A buffer the kernel only reads must come back as it went in, bit for bit. */
static void check_input(compare_ctx *x, unsigned b)
{
    const tdm_kernel_buffer *kb = &tdm_kernel_get(x->c->kernel)->buffers[b];
    size_t bytes = x->in->total[b] * tdm_kernel_type_size(kb->type);
    if (memcmp(x->got->host[b], x->in->host[b], bytes) != 0) {
        char what[64];
        snprintf(what, sizeof what, "changed its input '%s'", kb->name);
        note_failure(x, what);
    }
}

/* Element i of buffer b, outside the view, changed: a write out of bounds, named by
 * kernel, buffer and its element offset from the view's start. */
static void note_guard(compare_ctx *x, unsigned b, size_t i)
{
    const tdm_kernel_info *info = tdm_kernel_get(x->c->kernel);
    long long at = (long long)i - (long long)x->c->offset[b];
    char what[160];
    snprintf(what, sizeof what, "%s wrote outside its view of %s: element %lld (view of %zu)",
             info->name, info->buffers[b].name, at, x->in->elements[b]);
    x->r->worst_ratio = INFINITY;
    note_failure(x, what);
}

/* Words (uint32 outputs: gathered features and labels) must be the reference's, bit
 * for bit; guard elements must come back untouched. */
static void check_words(compare_ctx *x, unsigned b)
{
    const tdm_kernel_buffer *kb = &tdm_kernel_get(x->c->kernel)->buffers[b];
    const uint32_t *got = x->got->host[b], *want = x->want->host[b], *orig = x->in->host[b];
    size_t first = x->c->offset[b], last = first + x->in->elements[b];
    for (size_t i = 0; i < x->in->total[b]; i++) {
        int inside = i >= first && i < last;
        if (got[i] == (inside ? want[i] : orig[i]))
            continue;
        char what[160];
        if (!inside) {
            note_guard(x, b, i);
            continue;
        }
        snprintf(what, sizeof what, "%s[%zu] = 0x%08x, expected 0x%08x", kb->name, i - first,
                 (unsigned)got[i], (unsigned)want[i]);
        x->r->worst_ratio = INFINITY;
        note_failure(x, what);
    }
}

static void check_buffer(compare_ctx *x, unsigned b)
{
    const tdm_kernel_buffer *kb = &tdm_kernel_get(x->c->kernel)->buffers[b];
    size_t size = tdm_kernel_type_size(kb->type), first = x->c->offset[b];
    size_t last = first + x->in->elements[b];
    const unsigned char *got = x->got->host[b], *orig = x->in->host[b];
    for (size_t i = 0; i < x->in->total[b]; i++) {
        if (i >= first && i < last)
            check_element(x, b, kb->type, i, i - first);
        else if (memcmp(got + i * size, orig + i * size, size) != 0)
            note_guard(x, b, i);
    }
}

void conf_compare(const conf_case *c, const conf_buffers *in, const conf_buffers *got,
                  const conf_buffers *want, const conf_buffers *want_ftz, const conf_buffers *scale,
                  conf_result *r)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    compare_ctx x = {c, in, got, want, want_ftz, scale, r, 0};
    for (unsigned b = 0; b < info->buffer_count; b++) {
        if (!info->buffers[b].written)
            check_input(&x, b);
        else if (info->buffers[b].type == 'u')
            check_words(&x, b);
        else
            check_buffer(&x, b);
    }
    r->cases++;
    r->failed_cases += x.case_failed;
}
