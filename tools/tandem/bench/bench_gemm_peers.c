/* bench gemm's host peer: OpenBLAS's cblas_sgemm, opened at run time when
 * libopenblas.so.0 is installed. Debian's OpenBLAS 0.3.21 exports no half or
 * bfloat16 GEMM (no cblas_sbgemm, no shgemm), so the f16 rows meet sgemm. */
#include <dlfcn.h>
#include <stdlib.h>

#include "bench_clock.h"
#include "bench_gemm.h"

/* CBLAS's values for row-major and the transposes. */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };
typedef void (*cblas_sgemm_fn)(int order, int trans_a, int trans_b, int m, int n, int k,
                               float alpha, const float *a, int lda, const float *b, int ldb,
                               float beta, float *c, int ldc);

struct openblas_peer {
    void *handle;
    cblas_sgemm_fn sgemm;
};

openblas_peer *openblas_peer_open(const char **why)
{
    openblas_peer *p = calloc(1, sizeof *p);
    if (!p) {
        *why = "out of memory";
        return NULL;
    }
    p->handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (p->handle)
        *(void **)&p->sgemm = dlsym(p->handle, "cblas_sgemm");
    if (p->sgemm)
        return p;
    *why = p->handle ? "libopenblas.so.0 has no cblas_sgemm"
                     : "libopenblas.so.0 not found (Debian: libopenblas0-pthread)";
    openblas_peer_close(p);
    return NULL;
}

void openblas_peer_close(openblas_peer *p)
{
    if (p && p->handle)
        dlclose(p->handle);
    free(p);
}

double openblas_peer_time(openblas_peer *p, gemm_data *d, int trans_a, int trans_b)
{
    int n = (int)d->n;
    double t0 = bench_seconds();
    p->sgemm(CBLAS_ROW_MAJOR, trans_a ? CBLAS_TRANS : CBLAS_NO_TRANS,
             trans_b ? CBLAS_TRANS : CBLAS_NO_TRANS, n, n, n, 1.0f, d->a, n, d->b, n, 0.0f, d->c,
             n);
    return bench_seconds() - t0;
}
