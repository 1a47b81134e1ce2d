/* tandem bench launch: kernel launches per second of a small elementwise kernel on one
 * device (docs/PERFORMANCE.md). Each round times the launches followed by
 * tdm_device_finish, in two patterns:
 *   chain        y = alpha * x + y: every launch needs the one before;
 *   independent  y[k] = alpha * x for k = 0..15 in turn: a launch needs an earlier
 *                one only when it overwrites the same y.
 * The median and the best round are printed. A benchmark: it asserts nothing. */
#include <stdio.h>

#include "bench.h"
#include "bench_clock.h"
#include "cli_options.h"
#include "device_select.h"

#define OUTPUTS 16
#define MAX_ROUNDS 64

typedef struct bench {
    const char *device_id;
    size_t elements;
    unsigned launches, rounds;
    tdm_device *dev;
    tdm_tensor *x, *y[OUTPUTS];
} bench;

static int failed(tdm_status s, const char *what)
{
    return bench_failed("launch", s, what);
}

static const cli_command launch_command = {
    .name = "bench launch",
    .about = "Kernel launches per second on one device, as a chain (y = a x + y: each launch "
             "waits for the one before) and as independent launches (y[k] = a x over 16 "
             "outputs in turn); each round times the launches and a tdm_device_finish, and "
             "the median and best round of each are printed.",
};

/* 0 to go on; otherwise 1 with *exit_status set (--help, a bad option). */
static int parse(int argc, char **argv, bench *b, int *exit_status)
{
    *b = (bench){.device_id = "vulkan:0", .elements = 1024, .launches = 2000, .rounds = 9};
    const cli_option table[] = {
        {CLI_ENTRY("--device", NULL, CLI_STRING, &b->device_id), .arg = "ID",
         .help = "a device id or index from 'tandem devices' (default vulkan:0)"},
        {CLI_ENTRY("--elements", NULL, CLI_SIZE, &b->elements), .min = 1, .max = 1u << 28,
         .arg = "N", .help = "floats per tensor (default 1024)"},
        {CLI_ENTRY("--launches", NULL, CLI_UNSIGNED, &b->launches), .min = 1, .max = 10000000,
         .arg = "N", .help = "per round and pattern (default 2000)"},
        {CLI_ENTRY("--rounds", NULL, CLI_UNSIGNED, &b->rounds), .min = 1, .max = MAX_ROUNDS,
         .arg = "N", .help = "timed rounds, of which the median and the best count (default 9)"},
    };
    return cli_parse_command(&launch_command, table, sizeof table / sizeof table[0], argc, argv,
                             exit_status);
}

static int find_device(tdm_context *ctx, bench *b)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    b->dev = cli_find_device(ctx, b->device_id);
    if (!b->dev || failed(tdm_device_describe(b->dev, &d), "describe"))
        return 0;
    printf("%s (%s): %zu elements, %u launches per round\n", d.id, d.name, b->elements,
           b->launches);
    return 1;
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
    double start = bench_seconds();
    int ok = 1;
    for (unsigned i = 0; ok && i < b->launches; i++)
        ok = chain ? !failed(tdm_op_axpy(b->y[0], 1e-3f, b->x), "axpy")
                   : !failed(tdm_op_scale(b->y[i % OUTPUTS], b->x, 0.5f), "scale");
    ok = ok && !failed(tdm_device_finish(b->dev), "finish");
    return ok ? b->launches / (bench_seconds() - start) : -1;
}

static int measure(const bench *b)
{
    static double rate[2][MAX_ROUNDS];
    for (unsigned round = 0; round < b->rounds; round++)
        for (int chain = 0; chain < 2; chain++)
            if ((rate[chain][round] = run_round(b, chain)) < 0)
                return 0;
    for (int chain = 1; chain >= 0; chain--) {
        bench_sort_rates(rate[chain], b->rounds);
        printf("  %-11s median %8.0f launches/s, best %8.0f\n", chain ? "chain" : "independent",
               rate[chain][b->rounds / 2], rate[chain][b->rounds - 1]);
    }
    return 1;
}

int bench_launch(int argc, char **argv)
{
    bench b;
    int status;
    if (parse(argc, argv, &b, &status))
        return status;
    tdm_context *ctx = cli_context();
    if (!ctx)
        return 1;
    int ok = find_device(ctx, &b) && create_tensors(&b) && measure(&b);
    tdm_tensor_destroy(b.x);
    for (int k = 0; k < OUTPUTS; k++)
        tdm_tensor_destroy(b.y[k]);
    tdm_context_destroy(ctx);
    return ok ? 0 : 1;
}
