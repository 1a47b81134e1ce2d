/* tandem bench input: steps per second of a distributed iterator over a CSV dataset,
 * with and without cache_on_devices, with and without prefetch (docs/PERFORMANCE.md).
 *
 * The dataset (last column the label) is standardised, shuffled, batched and repeated
 * forever, then distributed over the backend's first N devices (a single device is
 * split into N logical ones). Each round runs the steps of each of the four
 * configurations in turn, waiting after every step until each replica's device holds
 * it (tdm_device_finish), so that both paths deliver data that is on the devices; the
 * median and the best round are printed. A benchmark: it asserts nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_clock.h"
#include "bundled_data.h"
#include "cli_options.h"
#include "device_select.h"

#define MAX_REPLICAS 8
#define MAX_ROUNDS 64
#define CONFIGS 4 /* prefetch x cache */

typedef struct bench {
    const char *path, *backend;
    size_t replicas, batch;
    unsigned steps, rounds;
    tdm_strategy *strategy;
    tdm_device *devices[MAX_REPLICAS];
} bench;

static int failed(tdm_status s, const char *what)
{
    return bench_failed("input", s, what);
}

static const cli_command input_command = {
    .name = "bench input",
    .about = "Steps per second of a distributed iterator over a CSV dataset (standardised, "
             "shuffled, batched, repeated) with and without cache_on_devices, with and "
             "without prefetch: each round runs the steps of the four in turn, waiting for "
             "every replica's device after each step; the median and best round of each.",
};

static const char *const backends[] = {"opencl", "vulkan", "reference", NULL};

static int parse_backend(const char *value, void *target, char *err, size_t err_size)
{
    int i = cli_parse_choice(value, "backend", backends, err, err_size);
    if (i < 0)
        return -1;
    *(const char **)target = backends[i];
    return 0;
}

/* 0 to go on; otherwise 1 with *exit_status set (--help, a bad option). */
static int parse(int argc, char **argv, bench *b, int *exit_status)
{
    *b = (bench){.path = bundled_digits(),
                 .backend = "opencl",
                 .replicas = 2,
                 .batch = 64,
                 .steps = 1000,
                 .rounds = 9};
    const cli_option table[] = {
        {CLI_ENTRY("--data", NULL, CLI_STRING, &b->path), .arg = "FILE",
         .help = "CSV[.gz], the label in the last column (default: the bundled digits)"},
        {CLI_ENTRY("--backend", NULL, CLI_CUSTOM, &b->backend), .parse = parse_backend,
         .arg = "NAME", .help = "whose devices (default opencl)", .choices = backends},
        {CLI_ENTRY("--replicas", NULL, CLI_SIZE, &b->replicas), .min = 1, .max = MAX_REPLICAS,
         .arg = "N", .help = "the backend's first N devices, or its first split in N (default 2)"},
        {CLI_ENTRY("--batch", NULL, CLI_SIZE, &b->batch), .min = 1, .max = 1u << 20, .arg = "N",
         .help = "global batch size (default 64)"},
        {CLI_ENTRY("--steps", NULL, CLI_UNSIGNED, &b->steps), .min = 1, .max = 10000000, .arg = "N",
         .help = "timed steps per configuration and round, after 50 untimed "
                 "(default 1000)"},
        {CLI_ENTRY("--rounds", NULL, CLI_UNSIGNED, &b->rounds), .min = 1, .max = MAX_ROUNDS,
         .arg = "N", .help = "timed rounds, of which the median and the best count (default 9)"},
    };
    return cli_parse_command(&input_command, table, sizeof table / sizeof table[0], argc, argv,
                             exit_status);
}

/* The backend's first `replicas` devices, or its first device split into that many. */
static int pick_devices(tdm_context *ctx, bench *b)
{
    size_t found = 0, count = tdm_context_device_count(ctx);
    tdm_device *first = NULL;
    for (size_t i = 0; i < count && found < b->replicas; i++) {
        tdm_device *dev = NULL;
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        if (tdm_context_device(ctx, i, &dev) != TDM_OK || tdm_device_describe(dev, &d) != TDM_OK ||
            strcmp(tdm_backend_name(d.backend), b->backend) != 0)
            continue;
        first = first ? first : dev;
        b->devices[found++] = dev;
    }
    if (found == b->replicas)
        return 1;
    if (!first) {
        fprintf(stderr, "tandem bench input: no %s device\n", b->backend);
        return 0;
    }
    return !failed(tdm_device_split(first, (uint32_t)b->replicas, b->devices), "tdm_device_split");
}

static int load(const bench *b, tdm_dataset **out)
{
    tdm_dataset *ds = NULL;
    size_t fc = 0;
    float *mean = NULL, *std = NULL;
    int ok = !failed(tdm_dataset_from_csv(b->path, NULL, &ds), b->path);
    if (ok) {
        fc = tdm_dataset_feature_count(ds);
        mean = malloc(fc * sizeof *mean);
        std = malloc(fc * sizeof *std);
        ok = mean && std;
    }
    ok = ok && !failed(tdm_dataset_feature_stats(ds, mean, std), "feature_stats") &&
         !failed(tdm_dataset_standardize(ds, mean, std), "standardize") &&
         !failed(tdm_dataset_shuffle(ds, 1), "shuffle") &&
         !failed(tdm_dataset_batch(ds, b->batch, 0), "batch") &&
         !failed(tdm_dataset_repeat(ds, TDM_REPEAT_FOREVER), "repeat");
    free(mean);
    free(std);
    if (!ok)
        tdm_dataset_destroy(ds);
    *out = ok ? ds : NULL;
    return ok;
}

/* Steps per second of one configuration, or a negative number on failure. */
static double run_config(const bench *b, const tdm_dataset *ds, int prefetch, int cache)
{
    tdm_distribute_options o = TDM_DISTRIBUTE_OPTIONS_INIT;
    o.prefetch = prefetch;
    o.cache_on_devices = cache;
    tdm_distributed_dataset *dist = NULL;
    tdm_distributed_iterator *it = NULL;
    const tdm_distributed_batch *step;
    double rate = -1;
    int ok = !failed(tdm_distribute_dataset(b->strategy, ds, &o, &dist), "distribute") &&
             !failed(tdm_distributed_iterator_create(dist, &it), "iterator");
    for (int k = 0; ok && k < 50; k++) /* warm-up: program builds, first allocations */
        ok = !failed(tdm_distributed_iterator_next(it, &step), "next");
    double start = bench_seconds();
    for (unsigned k = 0; ok && k < b->steps; k++) {
        ok = !failed(tdm_distributed_iterator_next(it, &step), "next");
        for (size_t r = 0; ok && r < b->replicas; r++)
            ok = !failed(tdm_device_finish(b->devices[r]), "finish");
    }
    if (ok)
        rate = b->steps / (bench_seconds() - start);
    tdm_distributed_iterator_destroy(it);
    tdm_distributed_dataset_destroy(dist);
    return rate;
}

static int measure(const bench *b, const tdm_dataset *ds)
{
    static double rate[CONFIGS][MAX_ROUNDS];
    for (unsigned round = 0; round < b->rounds; round++)
        for (int c = 0; c < CONFIGS; c++)
            if ((rate[c][round] = run_config(b, ds, c < 2, c & 1)) < 0)
                return 0;
    printf("%s x%zu, batch %zu, %zu features: %u rounds of %u steps\n", b->backend, b->replicas,
           b->batch, tdm_dataset_feature_count(ds), b->rounds, b->steps);
    for (int c = 0; c < CONFIGS; c++) {
        bench_sort_rates(rate[c], b->rounds);
        printf("  prefetch %d, cache_on_devices %d: median %8.0f steps/s, best %8.0f\n", c < 2,
               c & 1, rate[c][b->rounds / 2], rate[c][b->rounds - 1]);
    }
    return 1;
}

int bench_input(int argc, char **argv)
{
    bench b;
    int status;
    if (parse(argc, argv, &b, &status))
        return status;
    tdm_context *ctx = cli_context();
    tdm_dataset *ds = NULL;
    if (!ctx)
        return 1;
    int ok = pick_devices(ctx, &b) &&
             !failed(tdm_strategy_create_mirrored(ctx, b.devices, b.replicas, NULL, &b.strategy),
                     "strategy") &&
             load(&b, &ds) && measure(&b, ds);
    tdm_dataset_destroy(ds);
    tdm_strategy_destroy(b.strategy);
    tdm_context_destroy(ctx);
    return ok ? 0 : 1;
}
