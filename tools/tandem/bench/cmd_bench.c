/* tandem bench: measurements, each figure a ratio against a ceiling or peer
 * measured in the same run. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "commands.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} benches[] = {
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

static int usage(FILE *out, int status)
{
    fprintf(out, "usage: tandem bench WHAT [OPTIONS]\n\n");
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        fprintf(out, "  %-10s %s\n", benches[i].name, benches[i].summary);
    fprintf(out, "\n'tandem bench WHAT --help' describes its options.\n");
    return status;
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr, 2);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return usage(stdout, 0);
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        if (!strcmp(argv[1], benches[i].name))
            return benches[i].run(argc - 1, argv + 1);
    fprintf(stderr, "tandem bench: unknown benchmark '%s'\n\n", argv[1]);
    return usage(stderr, 2);
}
