/* A long, narrow product with its k split, on CLBlast or by gemm_f16's kernel. A
 * weight gradient has a small m x n and a long k (the batch's positions: the CNN's
 * first filter gradient is 9 x 32 over k = 50,176), and CLBlast gives each of its few
 * tiles of C to one work-group, which sums all of k while the rest of a GPU idles (3.3
 * ms on an H100 for that layer's passes, against 0.2 through Vulkan's split). Here k
 * is cut into slices that CLBlast's strided batched gemm multiplies at once, each
 * into a partial product in scratch; sum_axis0 adds the partials in slice order, and
 * axpy adds their sum to C, scaled by beta first. A C whose rows are not contiguous
 * keeps one product. The sums are reassociated, as gemm's tolerance allows. gemm_f16
 * takes the same rule and the same sum: its kernel multiplies the slices at once, one
 * per group along a second dimension of its launch (as one plain launch, the CNN's
 * filter gradients under --mixed-precision took 31 ms a step on an H200). */
#include "device/backend_api.h"
#include "gemm_tuning.h"
#include "opencl_internal.h"

/* The most floats the partials take (16 MiB). */
#define MAX_PARTIALS (4u << 20)

/* The device's row of the GEMM tuning table (backends/tuning/gemm_tuning.def) gives
 * the shortest slice of k, the most slices (so that the partials stay small), the
 * fewest compute units the rule assumes (a small GPU still splits a product of a few
 * tiles) and the slices that make k long. */
uint32_t tdm_opencl_gemm_slices(const tdm_opencl_device *d, const tdm_opencl_product *p)
{
    const tdm_gemm_tuning *row = tdm_gemm_tuning_named(d->desc->gemm_tuning);
    const uint64_t mn = (uint64_t)p->m * p->n;
    const uint64_t tiles = (uint64_t)((p->m + 15) / 16) * ((p->n + 15) / 16);
    const uint32_t units =
        d->desc->compute_units > row->min_units ? d->desc->compute_units : row->min_units;
    if (p->k < (uint64_t)row->long_slices * row->slice_k || tiles >= units || p->ldc != p->n)
        return 0;
    uint64_t slices = p->k / row->slice_k;
    slices = slices < row->max_slices ? slices : row->max_slices;
    if (slices * (mn + 1) > MAX_PARTIALS) /* the partials and their sum */
        slices = MAX_PARTIALS / (mn + 1);
    return slices >= 2 ? (uint32_t)slices : 0;
}

/* C (mn floats from element c_off of c) = beta C + the sum of the slices' partial
 * products at the start of scratch, summed in slice order by sum_axis0 into the
 * scratch after them. */
static tdm_status add_partials(tdm_opencl_device *d, tdm_buffer *scratch, uint32_t slices,
                               size_t mn, tdm_buffer *c, size_t c_off, float beta)
{
    const tdm_buffer_view partials = {scratch, 0, slices * mn * sizeof(float)};
    const tdm_buffer_view sum = {scratch, partials.size, mn * sizeof(float)};
    const tdm_buffer_view cv = {c, c_off * sizeof(float), mn * sizeof(float)};
    const tdm_sum_axis0_args total = {
        .out = sum, .x = partials, .rows = slices, .cols = (uint32_t)mn};
    tdm_status s = tdm_sum_axis0_run(d->dev, &total);
    /* C = beta C (beta 0 a fill: NaN in C must not survive), then C += the sum */
    const tdm_fill_args zero = {.y = cv, .n = (uint32_t)mn, .value = 0.0f};
    const tdm_scale_args scale = {.y = cv, .x = cv, .n = (uint32_t)mn, .alpha = beta};
    if (s == TDM_OK && beta != 1.0f)
        s = beta == 0.0f ? tdm_fill_run(d->dev, &zero) : tdm_scale_run(d->dev, &scale);
    const tdm_axpy_args add = {.y = cv, .x = sum, .n = (uint32_t)mn, .alpha = 1.0f};
    if (s == TDM_OK)
        s = tdm_axpy_run(d->dev, &add);
    return s;
}

tdm_status tdm_opencl_gemm_split(tdm_opencl_device *d, const tdm_opencl_product *p, tdm_buffer *c,
                                 uint32_t slices)
{
    const size_t mn = (size_t)p->m * p->n, each = p->k / slices;
    tdm_buffer *scratch = NULL;
    tdm_status s = tdm_scratch_acquire(d->dev, (slices + 1) * mn * sizeof(float), &scratch);
    if (s != TDM_OK)
        return s;
    /* slice i of op(A) starts i * each columns on (rows where A is stored k x m) */
    const size_t a_step = p->trans_a ? each * p->lda : each;
    const size_t b_step = p->trans_b ? each : each * p->ldb;
    tdm_opencl_product part = *p;
    part.k = (uint32_t)each;
    part.beta = 0.0f;
    part.c = tdm_opencl_mem(scratch);
    part.c_off = 0;
    part.ldc = p->n;
    part.a_stride = a_step;
    part.b_stride = b_step;
    part.c_stride = mn;
    part.batch = slices;
    s = tdm_opencl_clblast_run(d, &part);
    if (s == TDM_OK && p->k > slices * each) { /* the rest of k, onto the first partial */
        tdm_opencl_product rest = part;
        rest.k = (uint32_t)(p->k - slices * each);
        rest.a_off = p->a_off + slices * a_step;
        rest.b_off = p->b_off + slices * b_step;
        rest.beta = 1.0f;
        rest.batch = 1;
        s = tdm_opencl_clblast_run(d, &rest);
    }
    if (s == TDM_OK)
        s = add_partials(d, scratch, slices, mn, c, p->c_off, p->beta);
    tdm_scratch_release(scratch); /* issued: later users of the pool run after it */
    return s;
}

/* gemm_f16's kernel sums a slice of k per group along dimension 1, each into its
 * partial in scratch (alpha applied, beta 0), in one launch. */
tdm_status tdm_opencl_gemm_f16_split(tdm_opencl_device *d, const tdm_launch *launch,
                                     uint32_t slices)
{
    const tdm_gemm_scalars g = tdm_gemm_scalars_of(launch);
    const tdm_gemm_slots at = tdm_gemm_slots_of();
    const size_t mn = (size_t)g.m * g.n;
    tdm_buffer *scratch = NULL;
    tdm_status s = tdm_scratch_acquire(d->dev, (slices + 1) * mn * sizeof(float), &scratch);
    if (s != TDM_OK)
        return s;
    tdm_launch part = *launch;
    part.buffers[at.c] = scratch;
    part.offsets[at.c] = 0;
    part.u[TDM_UINT_AT(gemm_f16, ldc)] = g.n;
    part.f[TDM_FLOAT_AT(gemm_f16, beta)] = 0.0f;
    s = tdm_opencl_enqueue(d, &part, slices);
    if (s == TDM_OK)
        s = add_partials(d, scratch, slices, mn, launch->buffers[at.c], launch->offsets[at.c],
                         g.beta);
    tdm_scratch_release(scratch); /* issued: later users of the pool run after it */
    return s;
}
