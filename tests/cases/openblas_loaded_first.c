/* A program that loaded OpenBLAS before tandem (numpy does, in Python) with kernels
 * that use no AVX2, as Debian 12's 0.3.21 picks SSE3 ones on CPU models newer than it
 * knows: tandem's CPU devices still multiply with the kernels the CPU fits, in a copy
 * of OpenBLAS of their own, to the bits those kernels give (a copy the case opens
 * itself, as tandem does), and the program's copy keeps its kernels. The program's
 * kernels are forced (OPENBLAS_CORETYPE=Prescott while it loads OpenBLAS), so that
 * every CPU with AVX2 and FMA takes this path; other CPUs, an OpenBLAS that is not
 * its own dynamic build, and systems without such copies have nothing to check and
 * say so. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "platform/tdm_dynlib.h"
#include "platform/tdm_host.h"
#include "platform/tdm_text.h"

#define M 96
#define N 80
#define K 112

/* c = a * b on the first PoCL device of a new context, and OpenCL's note on how its
 * CPU devices multiply; 0 where there is no such device. */
static int product(float *c, const float *a, const float *b, char *note, size_t note_size)
{
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_OPENCL));
    tdm_device *dev = NULL;
    int found = test_devices_of(ctx, TDM_BACKEND_OPENCL, &dev, 1) == 1;
    tdm_status status = TDM_OK;
    const char *message = NULL;
    CHECK_OK(tdm_context_backend_status(ctx, TDM_BACKEND_OPENCL, &status, &message));
    snprintf(note, note_size, "%s", message ? message : "");
    tdm_tensor *tc = NULL, *ta = NULL, *tb = NULL;
    if (found) {
        CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(M, N), &tc));
        CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(M, K), &ta));
        CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(K, N), &tb));
        CHECK_OK(tdm_tensor_write(ta, a, M * K * sizeof *a));
        CHECK_OK(tdm_tensor_write(tb, b, K * N * sizeof *b));
        CHECK_OK(tdm_op_matmul(tc, ta, 0, tb, 0, 1.0f, 0.0f));
        CHECK_OK(tdm_tensor_read(tc, c, M * N * sizeof *c));
    }
    tdm_tensor_destroy(tc);
    tdm_tensor_destroy(ta);
    tdm_tensor_destroy(tb);
    tdm_context_destroy(ctx);
    return found;
}

/* Floats in [-1, 1) with every mantissa bit in play, so that two kernels' orders of
 * summing show in the bits. */
static void fill(float *x, size_t n, unsigned seed)
{
    uint32_t state = 2463534242u + seed;
    for (size_t i = 0; i < n; i++) {
        state ^= state << 13, state ^= state >> 17, state ^= state << 5;
        x[i] = (float)(state >> 8) / 8388608.0f - 1.0f;
    }
}

static const char *core_of(tdm_dynlib *lib)
{
    char *(*corename)(void) = NULL;
    *(void **)&corename = tdm_dynlib_symbol(lib, "openblas_get_corename");
    return corename ? corename() : NULL;
}

typedef void sgemm_fn(int layout, int trans_a, int trans_b, int m, int n, int k, float alpha,
                      const float *a, int lda, const float *b, int ldb, float beta, float *c,
                      int ldc);

/* c = a * b by OpenBLAS's `core` kernels, in a copy of its own; 0 where none opened. */
static int openblas_product(const char *core, float *c, const float *a, const float *b)
{
    char why[256];
    tdm_host_setenv("OPENBLAS_CORETYPE", core, 1);
    tdm_dynlib *lib = tdm_dynlib_open_private("OpenBLAS", why, sizeof why);
    tdm_host_unsetenv("OPENBLAS_CORETYPE");
    sgemm_fn *sgemm = NULL;
    if (lib)
        *(void **)&sgemm = tdm_dynlib_symbol(lib, "cblas_sgemm");
    if (sgemm) /* row-major, neither transposed, as tandem calls it */
        sgemm(101, 111, 111, M, N, K, 1.0f, a, K, b, N, 0.0f, c, N);
    CHECK(sgemm && !tdm_strcasecmp(core_of(lib), core));
    if (lib)
        tdm_dynlib_close(lib);
    return sgemm != NULL;
}

void test_case_openblas_loaded_first(const test_run *run)
{
    (void)run;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        fprintf(stderr, "no AVX2 and FMA here: OpenBLAS's oldest kernels are the fitting ones\n");
        return;
    }
    char why[256];
    tdm_host_setenv("OPENBLAS_CORETYPE", "Prescott", 1);
    tdm_dynlib *program = tdm_dynlib_open("OpenBLAS", why, sizeof why);
    tdm_host_unsetenv("OPENBLAS_CORETYPE");
    const char *core = program ? core_of(program) : NULL;
    if (!core || tdm_strcasecmp(core, "Prescott")) {
        fprintf(stderr, "OpenBLAS %s: nothing to check\n", program ? "chose by itself" : why);
        if (program)
            tdm_dynlib_close(program);
        return;
    }
    float *a = malloc(M * K * sizeof *a), *b = malloc(K * N * sizeof *b),
          *c = malloc(M * N * sizeof *c), *want = malloc(M * N * sizeof *want);
    fill(a, M * K, 1);
    fill(b, K * N, 2);
    char note[1024], fitting[32] = "";
    int found = product(c, a, b, note, sizeof note);
    fprintf(stderr, "%s\n", found ? note : "no OpenCL device: nothing to check");
    const char *copy = "a copy of tandem's own: the program had loaded it with its Prescott";
    const char *its = strstr(note, "(its ");
    if (found && strstr(note, "no copy of tandem's own would open")) {
        fprintf(stderr, "this system opens no copy of a library of its own: nothing to check\n");
    } else if (found) {
        CHECK(strstr(note, copy) != NULL);
        CHECK(its && sscanf(its, "(its %31s kernels", fitting) == 1);
        if (fitting[0] && openblas_product(fitting, want, a, b))
            CHECK(memcmp(c, want, M * N * sizeof *c) == 0);
        CHECK(!tdm_strcasecmp(core_of(program), "Prescott"));
    }
    tdm_dynlib_close(program);
    free(a);
    free(b);
    free(c);
    free(want);
}
