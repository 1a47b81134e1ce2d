/* gemm on the host's BLAS, in the device's queue: on an OpenCL CPU device (PoCL) the
 * device is the host's cores, and OpenBLAS's sgemm reaches several times what
 * CLBlast's kernels reach there (docs/PERFORMANCE.md). clEnqueueNativeKernel runs a
 * host function as a command of the in-order queue, so the product stays ordered
 * with every other launch, copy and event as a kernel would be. It reads and writes
 * the buffers where they live, in host memory (opencl_host.c): the addresses go in
 * the arguments, not through the call's memory-object list, which PoCL 3.1 hands
 * to the wrong arguments when it holds more than one buffer (opencl_host.c).
 * OpenBLAS is opened at run time and optional: without it, or with
 * TDM_CL_GEMM=clblast, CLBlast runs gemm. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "opencl_internal.h"
#include "openblas_core.h"

/* The CBLAS standard's values (cblas.h), declared here so that building needs no BLAS
 * headers: only OpenBLAS's library, at run time. */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };
typedef void cblas_sgemm_fn(int layout, int trans_a, int trans_b, int m, int n, int k, float alpha,
                            const float *a, int lda, const float *b, int ldb, float beta, float *c,
                            int ldc);

static tdm_library openblas = TDM_LIBRARY_INIT("OpenBLAS");
static cblas_sgemm_fn *openblas_sgemm;
static void (*openblas_set_num_threads)(int);

/* Its kernels for this CPU first (openblas_core.h). OpenBLAS's thread count comes
 * from the process's CPU affinity (mpirun binds each process to a core), and its
 * split among threads changes the bits: so the count is fixed to the machine's
 * cores, and the calls take turns (opencl_host.c). */
static int resolve(tdm_library *lib)
{
    if (!tdm_openblas_choose_core(lib))
        return 0;
    int found = 1;
    TDM_LIBRARY_FETCH(lib, openblas_sgemm, "cblas_sgemm", found);
    TDM_LIBRARY_FETCH(lib, openblas_set_num_threads, "openblas_set_num_threads", found);
    if (found)
        openblas_set_num_threads(tdm_host_cores());
    return found;
}

int tdm_opencl_host_gemm_load(const char **note)
{
    int loaded = tdm_library_load(&openblas, resolve);
    if (note)
        *note = openblas.note;
    return loaded;
}

int tdm_opencl_host_gemm_usable(cl_device_id id, tdm_device_type type)
{
    const char *choice = getenv("TDM_CL_GEMM");
    if (choice && !strcmp(choice, "clblast"))
        return 0; /* to measure or test CLBlast's path on a CPU device */
    cl_device_exec_capabilities caps = 0;
    if (type != TDM_DEVICE_CPU ||
        clGetDeviceInfo(id, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof caps, &caps, NULL) !=
            CL_SUCCESS ||
        !(caps & CL_EXEC_NATIVE_KERNEL))
        return 0;
    return tdm_opencl_host_gemm_load(NULL);
}

/* What the native kernel receives (a copy the driver makes), and what is released
 * when it completes. */
typedef struct host_gemm_args {
    const float *a, *b;
    float *c;
    int trans_a, trans_b, m, n, k, lda, ldb, ldc;
    float alpha, beta;
} host_gemm_args;

/* The fewest multiply-adds OpenBLAS runs only on its general path whatever beta. */
#define GENERAL_PATH_MNK (28.0 * 512 * 512)

static void CL_CALLBACK run_sgemm(void *block)
{
    const host_gemm_args *g = block;
    /* beta == 0 overwrites C without reading it, so NaN in C's old contents does not
     * survive, as kernels.def asks (conformance checks it). On its general path
     * OpenBLAS does that by a pass filling C with zeros before it adds the product;
     * memset fills them in under a third of that pass's time (perf: 8.4 % of a CNN
     * step's samples against 2.5), and beta 1 then adds the product as the beta-0 call
     * would, to the same bits. Smaller products keep beta 0: OpenBLAS 0.3.21 gives
     * those of m n k under 28 x 512^2 (and 100^3) kernels of their own on AVX-512,
     * which beta 0 selects and which fill no zeros first. */
    float beta = g->beta;
    if (beta == 0.0f && (double)g->m * g->n * g->k >= GENERAL_PATH_MNK) {
        if (g->ldc == g->n)
            memset(g->c, 0, (size_t)g->m * (size_t)g->n * sizeof *g->c);
        else
            for (int i = 0; i < g->m; i++)
                memset(g->c + (size_t)i * (size_t)g->ldc, 0, (size_t)g->n * sizeof *g->c);
        beta = 1.0f;
    }
    tdm_opencl_host_compute_begin();
    openblas_sgemm(CBLAS_ROW_MAJOR, g->trans_a ? CBLAS_TRANS : CBLAS_NO_TRANS,
                   g->trans_b ? CBLAS_TRANS : CBLAS_NO_TRANS, g->m, g->n, g->k, g->alpha, g->a,
                   g->lda, g->b, g->ldb, beta, g->c, g->ldc);
    tdm_opencl_host_compute_end();
}

/* CBLAS takes int sizes; the kernel table allows larger. */
static int fits_int(const tdm_gemm_scalars *g)
{
    const uint32_t sizes[] = {g->m, g->n, g->k, g->lda, g->ldb, g->ldc};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i] > INT_MAX)
            return 0;
    return 1;
}

int tdm_opencl_host_gemm_takes(const tdm_launch *launch)
{
    const tdm_gemm_scalars g = tdm_gemm_scalars_of(launch);
    return fits_int(&g);
}

tdm_status tdm_opencl_host_gemm(tdm_opencl_device *d, const tdm_launch *launch)
{
    const tdm_gemm_scalars g = tdm_gemm_scalars_of(launch);
    const tdm_gemm_slots at = tdm_gemm_slots_of();
    const host_gemm_args args = {
        .a = tdm_opencl_host_floats(launch, at.a),
        .b = tdm_opencl_host_floats(launch, at.b),
        .c = tdm_opencl_host_floats(launch, at.c),
        .trans_a = g.trans_a,
        .trans_b = g.trans_b,
        .m = (int)g.m,
        .n = (int)g.n,
        .k = (int)g.k,
        .lda = (int)g.lda,
        .ldb = (int)g.ldb,
        .ldc = (int)g.ldc,
        .alpha = g.alpha,
        .beta = g.beta,
    };
    return tdm_opencl_host_command(d, run_sgemm, &args, sizeof args, launch, NULL, NULL);
}
