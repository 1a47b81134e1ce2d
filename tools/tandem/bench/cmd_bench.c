/* tandem bench: measurements, each figure a ratio against a ceiling or peer
 * measured in the same run. */
#include <stdio.h>

#include "bench.h"
#include "cli_dispatch.h"
#include "commands.h"

static const cli_subcommand benches[] = {
    {"allreduce", bench_allreduce,
     "all-reduce bandwidth against a host all-reduce of the same bytes"},
    {"allgather", bench_allgather,
     "all-gather bandwidth against a host all-gather of the same bytes"},
    {"reducescatter", bench_reducescatter,
     "reduce-scatter bandwidth against a host reduce-scatter of the same bytes"},
    {"reduce", bench_reduce, "reduce-to-one bandwidth against a host reduce of the same bytes"},
    {"broadcast", bench_broadcast,
     "broadcast bandwidth against a host broadcast of the same bytes"},
    {"gemm", bench_gemm, "GEMM GFLOP/s on each device against OpenBLAS on the host"},
    {"kernels", bench_kernels, "memory-bound kernels against device copy and host memcpy"},
    {"train", bench_train, "training examples/s on each device alone and on all together"},
    {"input", bench_input, "distributed input steps/s, cached on the devices or not"},
    {"launch", bench_launch, "kernel launches/s on one device, chained and independent"},
};

int bench_failed(const char *name, tdm_status s, const char *what)
{
    if (s == TDM_OK)
        return 0;
    fprintf(stderr, "tandem bench %s: %s: %s\n", name, what, tdm_last_error());
    return 1;
}

int cmd_bench(int argc, char **argv)
{
    static const cli_dispatch_table table = {"tandem bench", "WHAT", "benchmark", benches,
                                             sizeof benches / sizeof benches[0]};
    return cli_dispatch(&table, argc, argv);
}
