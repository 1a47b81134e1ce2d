/* bench gemm's host peer: OpenBLAS's cblas_sgemm, opened at run time when
 * libopenblas.so.0 is installed. Debian's OpenBLAS 0.3.21 exports no half or
 * bfloat16 GEMM (no cblas_sbgemm, no shgemm), so the f16 rows meet sgemm. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"
#include "bench_gemm.h"
#include "platform/tdm_dynlib.h"

/* CBLAS's values for row-major and the transposes. */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };
typedef void (*cblas_sgemm_fn)(int order, int trans_a, int trans_b, int m, int n, int k,
                               float alpha, const float *a, int lda, const float *b, int ldb,
                               float beta, float *c, int ldc);

struct openblas_peer {
    tdm_dynlib *handle;
    cblas_sgemm_fn sgemm;
};

openblas_peer *openblas_peer_open(const char **why)
{
    openblas_peer *p = calloc(1, sizeof *p);
    if (!p) {
        *why = "out of memory";
        return NULL;
    }
    static char text[512];
    char reason[256];
    p->handle = tdm_dynlib_open("OpenBLAS", reason, sizeof reason);
    if (p->handle)
        *(void **)&p->sgemm = tdm_dynlib_symbol(p->handle, "cblas_sgemm");
    if (p->sgemm)
        return p;
    if (p->handle)
        snprintf(text, sizeof text, "%s has no cblas_sgemm", tdm_dynlib_file("OpenBLAS"));
    else
        snprintf(text, sizeof text, "%s (Debian: libopenblas0-pthread)", reason);
    *why = text;
    openblas_peer_close(p);
    return NULL;
}

void openblas_peer_close(openblas_peer *p)
{
    if (p && p->handle)
        tdm_dynlib_close(p->handle);
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
