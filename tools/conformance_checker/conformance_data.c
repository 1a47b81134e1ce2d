/* Input data for a case: random, integer or edge values, by buffer kind. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "ref_kernels.h"

typedef struct rng {
    uint64_t state;
} rng;

static uint32_t next_u32(rng *r)
{
    r->state ^= r->state << 13;
    r->state ^= r->state >> 7;
    r->state ^= r->state << 17;
    return (uint32_t)(r->state >> 16);
}

static float next_unit(rng *r) /* [0, 1) */
{
    return (float)(next_u32(r) >> 8) * 0x1p-24f;
}

/* Values where kernels go wrong: specials, denormals, extremes, values whose float16
 * conversion overflows or turns subnormal, and the edges of int32's range (the
 * largest float below 2^31 converts, 2^31 does not). */
static const float edge_values[] = {
    NAN,    INFINITY, -INFINITY, 0.0f,     -0.0f,          1e-40f,   -1e-40f,         1e30f,
    -1e30f, 1e-30f,   FLT_MAX,   -FLT_MAX, FLT_MIN,        65504.0f, 65520.0f,        6e-8f,
    -3e-5f, 88.8f,    -104.0f,   0x1p31f,  0x1.fffffep30f, -0x1p31f, -0x1.fffffep30f,
};
#define EDGE_COUNT (sizeof edge_values / sizeof edge_values[0])

/* Values in [0, 1] where a cross-entropy's targets go wrong: hard labels, signed
 * zero, a denormal, the smallest normal, the largest float below 1 and a half. */
static const float unit_edges[] = {0.0f, 1.0f, -0.0f, 1e-40f, FLT_MIN, 6e-8f, 0x1.fffffep-1f, 0.5f};
#define UNIT_EDGE_COUNT (sizeof unit_edges / sizeof unit_edges[0])

/* A target in [0, 1] (TDM_UNIT): hard 0/1 labels for integer data, soft ones else. */
static float unit_value(rng *r, conf_data data)
{
    switch (data) {
    case CONF_INTEGER: return (float)(next_u32(r) & 1);
    case CONF_EDGE:
        return next_u32(r) & 1 ? unit_edges[next_u32(r) % UNIT_EDGE_COUNT] : next_unit(r);
    default: return next_unit(r);
    }
}

static float float_value(rng *r, conf_data data, int positive, int unit)
{
    if (unit)
        return unit_value(r, data);
    float v;
    switch (data) {
    case CONF_INTEGER: v = (float)((int)(next_u32(r) % 17) - 8); break;
    case CONF_EDGE:
        v = next_u32(r) & 1 ? edge_values[next_u32(r) % EDGE_COUNT] : 4 * next_unit(r) - 2;
        break;
    default: v = 4 * next_unit(r) - 2; break;
    }
    /* Accumulators of squares are never negative; keep them clear of zero so that
     * centered RMSProp's ms - mg^2 stays positive for random data. */
    return positive ? (data == CONF_RANDOM ? 1.0f + fabsf(v) : fabsf(v)) : v;
}

static void fill_buffer(const conf_case *c, const tdm_kernel_buffer *kb, void *host, size_t total,
                        rng *r)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    uint32_t cols = (uint32_t)tdm_kernel_uint(info, c->u, TDM_UINT_cols);
    uint32_t src_rows = (uint32_t)tdm_kernel_uint(info, c->u, TDM_UINT_src_rows);
    /* Labels and row indices are drawn in their range (one label in eight -1, a
     * masked position); other words take every bit pattern (a gather must move NaN
     * payloads and denormals untouched). */
    uint32_t range = kb->labels ? cols : kb->indices ? src_rows : 0;
    /* Float16 operands of a linear kernel (gemm_f16) and a twin's activations take the
     * case's values rounded to half, so that integer data stays exact, random data
     * within the range its tolerance is argued for and a twin meets its kernel's edge
     * values (those past 65504 as infinities); the casts' halves take every bit
     * pattern. */
    int twin = info != tdm_kernel_get(info->base);
    int half_values = kb->type == 'h' && (info->tolerance.linear || twin);
    for (size_t i = 0; i < total; i++) {
        if (half_values)
            ((uint16_t *)host)[i] =
                tdm_f16_from_f32(float_value(r, c->data, kb->positive, kb->unit));
        else if (kb->type == 'h')
            ((uint16_t *)host)[i] = (uint16_t)next_u32(r); /* every bit pattern */
        else if (kb->type == 'u' && kb->labels && next_u32(r) % 8 == 0)
            ((uint32_t *)host)[i] = UINT32_MAX;
        else if (kb->type == 'u')
            ((uint32_t *)host)[i] = range ? next_u32(r) % range : next_u32(r);
        else
            ((float *)host)[i] = float_value(r, c->data, kb->positive, kb->unit);
    }
}

int conf_buffers_make(const conf_case *c, conf_buffers *bufs)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    rng r = {0x2545F4914F6CDD1Dull ^ ((uint64_t)c->seed << 20)};
    memset(bufs, 0, sizeof *bufs);
    for (unsigned b = 0; b < info->buffer_count; b++) {
        const tdm_kernel_buffer *kb = &info->buffers[b];
        bufs->elements[b] = tdm_kernel_extent(info, c->u, kb->extent);
        bufs->total[b] = c->offset[b] + bufs->elements[b] + CONF_GUARD;
        bufs->host[b] = malloc(bufs->total[b] * tdm_kernel_type_size(kb->type));
        if (!bufs->host[b]) {
            conf_buffers_free(bufs);
            return -1;
        }
        fill_buffer(c, kb, bufs->host[b], bufs->total[b], &r);
        if (kb->written) { /* the guards before and after the view */
            size_t size = tdm_kernel_type_size(kb->type), after = c->offset[b] + bufs->elements[b];
            memset(bufs->host[b], CONF_GUARD_BYTE, c->offset[b] * size);
            memset((char *)bufs->host[b] + after * size, CONF_GUARD_BYTE, CONF_GUARD * size);
        }
    }
    return 0;
}

void conf_buffers_free(conf_buffers *bufs)
{
    for (unsigned b = 0; b < TDM_KERNEL_MAX_BUFFERS; b++) {
        free(bufs->host[b]);
        bufs->host[b] = NULL;
    }
}

/* For the tolerance's scale (absolute), infinities and NaN count as 0: they decide
 * the result exactly (NaN meets NaN, infinity the same infinity), so the scale is
 * infinite only where finite terms overflow a float. */
static float transform(float x, int flush_denormals, int absolute)
{
    if (flush_denormals && fpclassify(x) == FP_SUBNORMAL)
        x = copysignf(0.0f, x);
    if (absolute)
        x = isfinite(x) ? fabsf(x) : 0.0f;
    return x;
}

/* Absolute values of halves, infinities and NaN as 0, as transform does. A half
 * denormal is a normal float, which no device flushes. */
static void transform_halves(uint16_t *h, size_t count)
{
    for (size_t i = 0; i < count; i++)
        h[i] = (h[i] & 0x7C00u) == 0x7C00u ? 0 : h[i] & 0x7FFFu;
}

int conf_buffers_transform(const conf_case *c, const conf_buffers *in, conf_buffers *out,
                           int flush_denormals, int absolute)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    *out = *in;
    for (unsigned b = 0; b < info->buffer_count; b++) {
        size_t bytes = in->total[b] * tdm_kernel_type_size(info->buffers[b].type);
        out->host[b] = malloc(bytes);
        if (!out->host[b]) {
            for (unsigned k = 0; k < TDM_KERNEL_MAX_BUFFERS; k++) {
                free(k < b ? out->host[k] : NULL);
                out->host[k] = NULL; /* the rest still alias the input's */
            }
            return -1;
        }
        memcpy(out->host[b], in->host[b], bytes);
        /* A mask keeps its signs, so that the scale sums the terms it lets through. */
        int abs_values = absolute && !info->buffers[b].mask;
        if (info->buffers[b].type == 'h' && abs_values)
            transform_halves(out->host[b], in->total[b]);
        if (info->buffers[b].type != 'f')
            continue;
        float *v = out->host[b];
        for (size_t i = 0; i < in->total[b]; i++)
            v[i] = transform(v[i], flush_denormals, abs_values);
    }
    for (unsigned b = info->buffer_count; b < TDM_KERNEL_MAX_BUFFERS; b++)
        out->host[b] = NULL;
    return 0;
}
