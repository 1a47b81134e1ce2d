/* bench_input: steps per second of a distributed iterator over a CSV dataset, with and
 * without cache_on_devices, with and without prefetch (docs/PERFORMANCE.md).
 *
 *   bench_input DATA.csv[.gz] [--backend opencl|vulkan|reference] [--replicas N]
 *               [--batch B] [--steps S] [--rounds R]
 *
 * The dataset (last column the label) is standardised, shuffled, batched by B and
 * repeated forever, then distributed over the backend's first N devices (a single
 * device is split into N logical ones). Each round runs S steps of each of the four
 * configurations in turn, waiting after every step until each replica's device holds
 * it (tdm_device_finish), so that both paths deliver data that is on the devices; the
 * median and the best round are printed. A benchmark, not a test: it asserts nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define MAX_REPLICAS 8
#define MAX_ROUNDS 64
#define CONFIGS 4 /* prefetch x cache */

typedef struct bench {
    const char *path, *backend;
    size_t replicas, batch;
    int steps, rounds;
    tdm_strategy *strategy;
    tdm_device *devices[MAX_REPLICAS];
} bench;

static int failed(tdm_status s, const char *what)
{
    return bench_failed("bench_input", s, what);
}

static int parse(int argc, char **argv, bench *b)
{
    *b = (bench){.backend = "opencl", .replicas = 2, .batch = 64, .steps = 1000, .rounds = 9};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] != '-' && !b->path)
            b->path = a;
        else if (!strcmp(a, "--backend") && v)
            b->backend = argv[++i];
        else if (!strcmp(a, "--replicas") && v)
            b->replicas = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--batch") && v)
            b->batch = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--steps") && v)
            b->steps = atoi(argv[++i]);
        else if (!strcmp(a, "--rounds") && v)
            b->rounds = atoi(argv[++i]);
        else
            return 0;
    }
    return b->path && b->replicas >= 1 && b->replicas <= MAX_REPLICAS && b->batch > 0 &&
           b->steps > 0 && b->rounds > 0 && b->rounds <= MAX_ROUNDS;
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
        fprintf(stderr, "bench_input: no %s device\n", b->backend);
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
    double start = bench_now();
    for (int k = 0; ok && k < b->steps; k++) {
        ok = !failed(tdm_distributed_iterator_next(it, &step), "next");
        for (size_t r = 0; ok && r < b->replicas; r++)
            ok = !failed(tdm_device_finish(b->devices[r]), "finish");
    }
    if (ok)
        rate = b->steps / (bench_now() - start);
    tdm_distributed_iterator_destroy(it);
    tdm_distributed_dataset_destroy(dist);
    return rate;
}

static int measure(const bench *b, const tdm_dataset *ds)
{
    static double rate[CONFIGS][MAX_ROUNDS];
    for (int round = 0; round < b->rounds; round++)
        for (int c = 0; c < CONFIGS; c++)
            if ((rate[c][round] = run_config(b, ds, c < 2, c & 1)) < 0)
                return 0;
    printf("%s x%zu, batch %zu, %zu features: %d rounds of %d steps\n", b->backend, b->replicas,
           b->batch, tdm_dataset_feature_count(ds), b->rounds, b->steps);
    for (int c = 0; c < CONFIGS; c++) {
        bench_sort(rate[c], (size_t)b->rounds);
        printf("  prefetch %d, cache_on_devices %d: median %8.0f steps/s, best %8.0f\n", c < 2,
               c & 1, rate[c][b->rounds / 2], rate[c][b->rounds - 1]);
    }
    return 1;
}

int main(int argc, char **argv)
{
    bench b;
    if (!parse(argc, argv, &b)) {
        fprintf(stderr, "usage: bench_input DATA.csv[.gz] [--backend opencl|vulkan|reference] "
                        "[--replicas N<=8] [--batch B] [--steps S] [--rounds R<=64]\n");
        return 2;
    }
    tdm_context *ctx = NULL;
    tdm_dataset *ds = NULL;
    if (failed(tdm_context_create(NULL, &ctx), "tdm_context_create"))
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
