/* Contexts opened and closed in a loop, each running a gemm: once a tandem context is
 * destroyed, nothing holds its cl_context (CLBlast's cached programs retain the context
 * they were built for, so they must go with it). A second context alive meanwhile keeps
 * running gemm. */
#include <stdlib.h>
#include <time.h>

#include "device/device_impl.h" /* the backend's state of a device */
#include "harness.h"
#include "opencl_internal.h"

#define DIM 8

/* C = A * B for DIM x DIM matrices of small integers, checked exactly; nothing where
 * this build has no CLBlast (said once, on stderr). */
static void gemm_once(tdm_device *dev, unsigned seed)
{
    static int said;
    if (!tdm_kernel_supported(dev, TDM_KERNEL_gemm)) {
        if (!said++)
            fprintf(stderr, "no gemm on OpenCL here (no CLBlast): contexts only\n");
        return;
    }
    const tdm_kernel_info *info = tdm_kernel_get(TDM_KERNEL_gemm);
    float a[DIM * DIM], b[DIM * DIM], c[DIM * DIM], want[DIM * DIM];
    for (int i = 0; i < DIM * DIM; i++) {
        a[i] = (float)((i * 7 + (int)seed) % 5) - 2.0f;
        b[i] = (float)((i * 3 + (int)seed) % 7) - 3.0f;
    }
    for (int r = 0; r < DIM; r++)
        for (int col = 0; col < DIM; col++) {
            want[r * DIM + col] = 0.0f;
            for (int k = 0; k < DIM; k++)
                want[r * DIM + col] += a[r * DIM + k] * b[k * DIM + col];
        }
    tdm_buffer *bufs[3];
    const float *hosts[3] = {c, a, b};
    tdm_kernel_call call = {.kernel = TDM_KERNEL_gemm};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(tdm_buffer_alloc(dev, sizeof a, &bufs[i]));
        CHECK_OK(tdm_buffer_write(bufs[i], 0, hosts[i], sizeof a));
        call.views[i] = (tdm_buffer_view){bufs[i], 0, sizeof a};
    }
    const tdm_uint_name dims[] = {TDM_UINT_m,   TDM_UINT_n,   TDM_UINT_k,
                                  TDM_UINT_lda, TDM_UINT_ldb, TDM_UINT_ldc};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        call.u[tdm_kernel_uint_place(info, dims[i])] = DIM;
    call.f[0] = 1.0f; /* alpha; beta stays 0 */
    CHECK_OK(tdm_kernel_run(dev, &call));
    CHECK_OK(tdm_buffer_read(bufs[0], 0, c, sizeof c));
    for (int i = 0; i < DIM * DIM; i++)
        CHECK(c[i] == want[i]);
    for (int i = 0; i < 3; i++)
        tdm_buffer_free(bufs[i]);
}

/* The context's first OpenCL device and its cl_context. */
static tdm_device *open_device(tdm_context **ctx, cl_context *cl)
{
    *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_OPENCL));
    tdm_device *dev = test_first_device(*ctx, TDM_BACKEND_OPENCL);
    *cl = ((const tdm_opencl_device *)dev->impl)->context;
    return dev;
}

/* The context's reference count, or 0 when it cannot be read. */
static cl_uint references(cl_context cl)
{
    cl_uint refs = 0;
    CHECK(clGetContextInfo(cl, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, NULL) == CL_SUCCESS);
    return refs;
}

/* Destroys ctx and requires that no reference to its cl_context remains but ours.
 * PoCL's device threads drop a finished command's references a moment after it
 * completes, so the count is given up to 5 s to settle; a cache that keeps its
 * programs never lets it. */
static void close_and_check(tdm_context *ctx, cl_context cl, int round)
{
    CHECK(clRetainContext(cl) == CL_SUCCESS);
    tdm_context_destroy(ctx);
    cl_uint refs = references(cl);
    for (int waited = 0; refs > 1 && waited < 500; waited++) {
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
        refs = references(cl);
    }
    if (refs != 1)
        fprintf(stderr, "round %d: %u references to a closed context's cl_context remain\n", round,
                (unsigned)refs - 1);
    CHECK(refs == 1);
    clReleaseContext(cl);
}

void test_case_opencl_contexts(const test_run *run)
{
    int rounds = run->argc > 0 ? atoi(run->argv[0]) : 0;
    if (rounds < 1) {
        test_usage_error(run, "ROUNDS must be a positive number");
        return;
    }
    tdm_context *kept, *ctx;
    cl_context kept_cl, cl;
    tdm_device *kept_dev = open_device(&kept, &kept_cl);
    gemm_once(kept_dev, 0);
    for (int round = 0; round < rounds; round++) {
        tdm_device *dev = open_device(&ctx, &cl);
        CHECK(cl != kept_cl);
        gemm_once(dev, (unsigned)round + 1);
        close_and_check(ctx, cl, round);
        gemm_once(kept_dev, (unsigned)round + 1); /* its programs are built again */
    }
    close_and_check(kept, kept_cl, rounds);
}
