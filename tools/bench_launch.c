/* bench_launch: kernel launches per second of a small elementwise kernel on one
 * device (docs/PERFORMANCE.md).
 *
 *   bench_launch [--device ID] [--elements N] [--launches L] [--rounds R]
 *
 * Each round times L launches followed by tdm_device_finish, in two patterns:
 *   chain        y = alpha * x + y, L times: every launch needs the one before;
 *   independent  y[k] = alpha * x for k = 0..15 in turn: a launch needs an earlier
 *                one only when it overwrites the same y.
 * The median and the best round are printed. A benchmark, not a test: it asserts
 * nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define OUTPUTS 16
#define MAX_ROUNDS 64

typedef struct bench {
    const char *device_id;
    size_t elements;
    int launches, rounds;
    tdm_device *dev;
    tdm_tensor *x, *y[OUTPUTS];
} bench;

static int failed(tdm_status s, const char *what)
{
    return bench_failed("bench_launch", s, what);
}

static int parse(int argc, char **argv, bench *b)
{
    *b = (bench){.device_id = "vulkan:0", .elements = 1024, .launches = 2000, .rounds = 9};
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--device"))
            b->device_id = v;
        else if (!strcmp(a, "--elements"))
            b->elements = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--launches"))
            b->launches = atoi(v);
        else if (!strcmp(a, "--rounds"))
            b->rounds = atoi(v);
        else
            return 0;
    }
    return argc % 2 == 1 && b->elements > 0 && b->launches > 0 && b->rounds > 0 &&
           b->rounds <= MAX_ROUNDS;
}

static int find_device(tdm_context *ctx, bench *b)
{
    for (size_t i = 0; i < tdm_context_device_count(ctx); i++) {
        tdm_device *dev = NULL;
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        if (tdm_context_device(ctx, i, &dev) == TDM_OK && tdm_device_describe(dev, &d) == TDM_OK &&
            !strcmp(d.id, b->device_id)) {
            b->dev = dev;
            printf("%s (%s): %zu elements, %d launches per round\n", d.id, d.name, b->elements,
                   b->launches);
            return 1;
        }
    }
    fprintf(stderr, "bench_launch: no device %s\n", b->device_id);
    return 0;
}

static int create_tensors(bench *b)
{
    tdm_shape shape = TDM_SHAPE(b->elements);
    int ok = !failed(tdm_tensor_create(b->dev, TDM_F32, &shape, &b->x), "tensor") &&
             !failed(tdm_op_fill(b->x, 1.0f), "fill");
    for (int k = 0; ok && k < OUTPUTS; k++)
        ok = !failed(tdm_tensor_create(b->dev, TDM_F32, &shape, &b->y[k]), "tensor") &&
             !failed(tdm_op_fill(b->y[k], 0.0f), "fill");
    return ok && !failed(tdm_device_finish(b->dev), "finish");
}

/* Launches per second of one round, or a negative number on failure. */
static double run_round(const bench *b, int chain)
{
    double start = bench_now();
    int ok = 1;
    for (int i = 0; ok && i < b->launches; i++)
        ok = chain ? !failed(tdm_op_axpy(b->y[0], 1e-3f, b->x), "axpy")
                   : !failed(tdm_op_scale(b->y[i % OUTPUTS], b->x, 0.5f), "scale");
    ok = ok && !failed(tdm_device_finish(b->dev), "finish");
    return ok ? b->launches / (bench_now() - start) : -1;
}

static int measure(const bench *b)
{
    static double rate[2][MAX_ROUNDS];
    for (int round = 0; round < b->rounds; round++)
        for (int chain = 0; chain < 2; chain++)
            if ((rate[chain][round] = run_round(b, chain)) < 0)
                return 0;
    for (int chain = 1; chain >= 0; chain--) {
        bench_sort(rate[chain], (size_t)b->rounds);
        printf("  %-11s median %8.0f launches/s, best %8.0f\n", chain ? "chain" : "independent",
               rate[chain][b->rounds / 2], rate[chain][b->rounds - 1]);
    }
    return 1;
}

int main(int argc, char **argv)
{
    bench b;
    if (!parse(argc, argv, &b)) {
        fprintf(stderr, "usage: bench_launch [--device ID] [--elements N] [--launches L] "
                        "[--rounds R<=64]\n");
        return 2;
    }
    tdm_context *ctx = NULL;
    if (failed(tdm_context_create(NULL, &ctx), "tdm_context_create"))
        return 1;
    int ok = find_device(ctx, &b) && create_tensors(&b) && measure(&b);
    tdm_tensor_destroy(b.x);
    for (int k = 0; k < OUTPUTS; k++)
        tdm_tensor_destroy(b.y[k]);
    tdm_context_destroy(ctx);
    return ok ? 0 : 1;
}
