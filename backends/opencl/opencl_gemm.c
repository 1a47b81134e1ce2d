/* gemm, C = alpha * op(A) * op(B) + beta * C, row-major (kernels.def): the cases
 * neither library takes, then the host's BLAS where the device runs it
 * (opencl_host_gemm.c), else CLBlast (opencl_clblast.c). gemm_f16, by its kernel,
 * split over k by the same rule as CLBlast's products (opencl_gemm_split.c). */
#include <stdint.h>

#include "device/backend_api.h"
#include "opencl_internal.h"

/* C = beta * C over m rows of n with leading dimension ldc, with the table's fill
 * (beta == 0: NaN must not survive) or scale kernel: gemm with k == 0, which CLBlast
 * rejects. One launch when the rows are contiguous, else one per row. */
static tdm_status scale_c(tdm_opencl_device *d, const tdm_launch *gemm, uint64_t m, uint64_t n,
                          uint64_t ldc, float beta)
{
    const int contiguous = ldc == n && m * n <= UINT32_MAX;
    const uint64_t rows = contiguous ? 1 : m, count = contiguous ? m * n : n;
    const unsigned at = tdm_gemm_slots_of().c;
    tdm_status st = TDM_OK;
    for (uint64_t r = 0; r < rows && st == TDM_OK; r++) {
        const tdm_buffer_view c = {gemm->buffers[at], (gemm->offsets[at] + r * ldc) * sizeof(float),
                                   count * sizeof(float)};
        const tdm_fill_args zero = {.y = c, .n = (uint32_t)count, .value = 0.0f};
        const tdm_scale_args scale = {.y = c, .x = c, .n = (uint32_t)count, .alpha = beta};
        st = beta == 0.0f ? tdm_fill_run(d->dev, &zero) : tdm_scale_run(d->dev, &scale);
    }
    return st;
}

/* The launch's product, as CLBlast and the rule of the split take it (gemm_f16's
 * scalars and slots are gemm's). */
static tdm_opencl_product product_of(const tdm_launch *launch)
{
    const tdm_gemm_scalars g = tdm_gemm_scalars_of(launch);
    const tdm_gemm_slots at = tdm_gemm_slots_of();
    return (tdm_opencl_product){.trans_a = g.trans_a != 0,
                                .trans_b = g.trans_b != 0,
                                .m = g.m,
                                .n = g.n,
                                .k = g.k,
                                .lda = g.lda,
                                .ldb = g.ldb,
                                .ldc = g.ldc,
                                .alpha = g.alpha,
                                .beta = g.beta,
                                .a = tdm_opencl_mem(launch->buffers[at.a]),
                                .b = tdm_opencl_mem(launch->buffers[at.b]),
                                .c = tdm_opencl_mem(launch->buffers[at.c]),
                                .a_off = launch->offsets[at.a],
                                .b_off = launch->offsets[at.b],
                                .c_off = launch->offsets[at.c],
                                .batch = 1};
}

int tdm_opencl_gemm_supported(const tdm_opencl_device *d)
{
    return d->host_gemm || tdm_opencl_clblast_load(NULL);
}

tdm_status tdm_opencl_gemm(tdm_opencl_device *d, const tdm_launch *launch)
{
    const tdm_gemm_scalars g = tdm_gemm_scalars_of(launch);

    if (g.m == 0 || g.n == 0)
        return TDM_OK; /* C is empty */
    /* op(A) * op(B) is zero: C = beta * C, and beta 1 keeps C as it is */
    if (g.k == 0)
        return g.beta == 1.0f ? TDM_OK : scale_c(d, launch, g.m, g.n, g.ldc, g.beta);
    if (d->host_gemm && tdm_opencl_host_gemm_takes(launch))
        return tdm_opencl_host_gemm(d, launch);
    const tdm_gemm_slots at = tdm_gemm_slots_of();
    const tdm_opencl_product p = product_of(launch);
    const uint32_t slices = tdm_opencl_gemm_slices(d, &p);
    if (slices)
        return tdm_opencl_gemm_split(d, &p, launch->buffers[at.c], slices);
    return tdm_opencl_clblast_run(d, &p);
}

tdm_status tdm_opencl_gemm_f16(tdm_opencl_device *d, const tdm_launch *launch)
{
    const tdm_opencl_product p = product_of(launch);
    const uint32_t slices = p.m && p.n ? tdm_opencl_gemm_slices(d, &p) : 0;
    return slices ? tdm_opencl_gemm_f16_split(d, launch, slices) : tdm_opencl_enqueue(d, launch, 1);
}
