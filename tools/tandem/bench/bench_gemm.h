/* The pieces of `tandem bench gemm`: the product on a device through tdm_op_matmul
 * (bench_gemm_data.c) and its peers measured in the same run, OpenBLAS on the host
 * and CLBlast on an OpenCL device (bench_gemm_peers.c, bench_gemm_clblast.c). Every
 * product is square, m = n = k, row-major; op(x) is x or its transpose. */
#ifndef TANDEM_CLI_BENCH_GEMM_H
#define TANDEM_CLI_BENCH_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/tandem.h"

/* One product's operands, on the host and on a device. f16: a and b are halves on
 * the device (tdm_op_matmul's mixed precision) and in a16, b16; a and b hold the
 * same values as floats, exactly, for the host's reference and sgemm. */
typedef struct gemm_data {
    size_t n;
    int f16;
    float *a, *b, *c;
    uint16_t *a16, *b16;
    tdm_tensor *ta, *tb, *tc;
} gemm_data;

tdm_status gemm_data_begin(tdm_device *dev, size_t n, int f16, gemm_data *d);
void gemm_data_end(gemm_data *d);
/* C = op(A) op(B) on the device, waited for. */
tdm_status gemm_data_run(tdm_device *dev, gemm_data *d, int trans_a, int trans_b, double *seconds);
/* Reads C back and counts the sampled elements that differ from a double sum over
 * op(a) op(b) by more than float rounding explains: a wrong transpose shows. */
tdm_status gemm_data_check(gemm_data *d, int trans_a, int trans_b, size_t *wrong);

/* OpenBLAS's cblas_sgemm, opened at run time; NULL with *why when not installed. */
typedef struct openblas_peer openblas_peer;
openblas_peer *openblas_peer_open(const char **why);
void openblas_peer_close(openblas_peer *p);
/* Seconds of C = op(A) op(B) on the host over d's float copies (every core). */
double openblas_peer_time(openblas_peer *p, gemm_data *d, int trans_a, int trans_b);

/* CLBlast's Sgemm, or Hgemm for f16, called directly on a context and queue of its
 * own for the OpenCL device that desc names: tandem's API does not hand out its
 * queue. NULL with *why when CLBlast, OpenCL, the device or its halves are not
 * there. */
typedef struct clblast_peer clblast_peer;
clblast_peer *clblast_peer_open(const tdm_device_desc *desc, int f16, const char **why);
void clblast_peer_close(clblast_peer *p);
/* Uploads d's operands (halves when d->f16) for the calls that follow; 0, or -1
 * with *why. */
int clblast_peer_load(clblast_peer *p, const gemm_data *d, const char **why);
/* Seconds of one product on the loaded operands, waited for; -1 with *why. */
double clblast_peer_time(clblast_peer *p, int trans_a, int trans_b, const char **why);

#endif
