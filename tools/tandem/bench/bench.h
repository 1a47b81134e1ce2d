/* The benchmarks of `tandem bench`. */
#ifndef TANDEM_CLI_BENCH_H
#define TANDEM_CLI_BENCH_H

#include <stddef.h>

#include "tandem/tandem.h"

/* The help of the options the benchmarks share. */
#define BENCH_HELP_DEVICES                                                                         \
    "device ids, indices or backends (default: every device but the reference; see 'tandem "       \
    "devices')"
#define BENCH_HELP_JSON "also write the rows as JSON"

/* Each returns the process exit status. argv[0] is the benchmark's name. */
int bench_allreduce(int argc, char **argv);
int bench_allgather(int argc, char **argv);
int bench_reducescatter(int argc, char **argv);
int bench_reduce(int argc, char **argv);
int bench_broadcast(int argc, char **argv);
int bench_gemm(int argc, char **argv);
int bench_kernels(int argc, char **argv);
int bench_train(int argc, char **argv);
int bench_input(int argc, char **argv);
int bench_launch(int argc, char **argv);

/* 0 when s is TDM_OK; else prints "tandem bench NAME: what: last error" and returns 1. */
int bench_failed(const char *name, tdm_status s, const char *what);

#endif
