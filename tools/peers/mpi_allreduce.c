/* MPI_Allreduce measured under the contract of `tandem bench allreduce` (the columns
 * of nccl-tests), so that Open MPI between processes and tandem between devices can
 * be set side by side. float32 SUM in place; every size is checked after timing.
 *
 *   mpirun -np 2 mpi_allreduce -b 1M -e 256M -f 2 [-n 20] [-w 5] [--fresh] [--json FILE]
 */
#include <ctype.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct options {
    size_t min_bytes, max_bytes;
    long factor, iters, warmup;
    int fresh; /* allocate per size, as a naive program would, instead of reusing */
    const char *json;
} options;

/* -b >= 4 bytes, -f >= 2 and -e below 2^31 elements: at most 32 sizes. */
#define MAX_SIZES 32

typedef struct row {
    size_t bytes;
    double us, algbw, busbw; /* time per call; GB/s */
    long long wrong;
} row;

static int usage(int rank, const char *why)
{
    if (rank == 0)
        fprintf(stderr,
                "mpi_allreduce: %s\n"
                "usage: mpi_allreduce [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP]\n"
                "                     [--fresh] [--json FILE]\n"
                "  sizes in bytes with an optional K, M or G suffix (powers of 1024), a multiple\n"
                "  of 4 (float32); defaults -b 8 -e 256M -f 2 -n 20 -w 5\n",
                why);
    return 2;
}

/* "256M" -> 268435456; 0 if malformed. */
static size_t parse_size(const char *text)
{
    static const char suffixes[] = "KMG"; /* powers of 1024 */
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    const char *suffix = *end ? strchr(suffixes, toupper((unsigned char)*end)) : NULL;
    int shift = suffix ? 10 * (int)(suffix - suffixes + 1) : 0;
    if (end == text || (*end && (!suffix || end[1])) || v > (~0ull >> shift))
        return 0;
    return (size_t)(v << shift);
}

static long parse_count(const char *text)
{
    char *end;
    long v = strtol(text, &end, 10);
    return end == text || *end ? -1 : v;
}

/* 0 to go on, else the exit status (after rank 0 said why). */
static int parse_options(int argc, char **argv, int rank, options *o)
{
    *o = (options){8, (size_t)256 << 20, 2, 20, 5, 0, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--fresh")) {
            o->fresh = 1;
            continue;
        }
        if (i + 1 == argc)
            return usage(rank, "an option without its value, or an unknown option");
        const char *v = argv[++i];
        if (!strcmp(a, "-b"))
            o->min_bytes = parse_size(v);
        else if (!strcmp(a, "-e"))
            o->max_bytes = parse_size(v);
        else if (!strcmp(a, "-f"))
            o->factor = parse_count(v);
        else if (!strcmp(a, "-n"))
            o->iters = parse_count(v);
        else if (!strcmp(a, "-w"))
            o->warmup = parse_count(v);
        else if (!strcmp(a, "--json"))
            o->json = v;
        else
            return usage(rank, "unknown option");
    }
    if (!o->min_bytes || o->min_bytes % 4 || o->max_bytes % 4 || o->min_bytes > o->max_bytes)
        return usage(rank,
                     "-b and -e take sizes (8, 64K, 256M) in multiples of 4 bytes, with -b <= -e");
    if (o->max_bytes / sizeof(float) > 0x7fffffff)
        return usage(rank, "-e is more elements than MPI_Allreduce takes (int count)");
    if (o->factor < 2 || o->iters < 1 || o->warmup < 0)
        return usage(rank, "-f must be at least 2, -n at least 1, -w at least 0");
    return 0;
}

/* Small integers whose sum over any number of ranks is exact in float32. */
static int pattern(size_t i, int rank)
{
    return (int)((i * 7 + (size_t)rank * 3) % 17);
}

static void all_reduce(float *buf, size_t count, long calls)
{
    for (long c = 0; c < calls; c++)
        MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

/* Seconds for `calls` back-to-back calls after a barrier: the slowest rank's. */
static double time_calls(float *buf, size_t count, long calls)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    all_reduce(buf, count, calls);
    double local = MPI_Wtime() - start, slowest;
    MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

/* One call on the pattern; the elements wrong on every rank, summed. */
static long long check(float *buf, size_t count, int rank, int ranks)
{
    for (size_t i = 0; i < count; i++)
        buf[i] = (float)pattern(i, rank);
    all_reduce(buf, count, 1);
    long long wrong = 0, total;
    for (size_t i = 0; i < count; i++) {
        int expected = 0;
        for (int r = 0; r < ranks; r++)
            expected += pattern(i, r);
        wrong += buf[i] != (float)expected;
    }
    MPI_Allreduce(&wrong, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

static float *allocate(size_t bytes, int rank)
{
    float *buf = malloc(bytes);
    if (!buf) {
        fprintf(stderr, "mpi_allreduce: rank %d: no memory for %zu bytes\n", rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return buf;
}

/* reused: the one buffer for every size, first touched before any timing. */
static row measure(const options *o, size_t bytes, float *reused, int rank, int ranks)
{
    size_t count = bytes / sizeof(float);
    float *buf = reused ? reused : allocate(bytes, rank);
    memset(buf, 0, bytes); /* zeros stay zeros however often they are summed */
    all_reduce(buf, count, o->warmup);
    double seconds = time_calls(buf, count, o->iters);
    row r = {.bytes = bytes, .us = 1e6 * seconds / (double)o->iters};
    r.algbw = (double)bytes / r.us / 1e3;
    r.busbw = r.algbw * 2.0 * (ranks - 1) / ranks;
    r.wrong = check(buf, count, rank, ranks);
    if (!reused)
        free(buf);
    return r;
}

static void print_header(const options *o, int ranks)
{
    printf("# mpi_allreduce: %d process%s, float32 sum in place, %ld iterations after %ld "
           "warm-up, buffers %s\n",
           ranks, ranks == 1 ? "" : "es", o->iters, o->warmup,
           o->fresh ? "allocated per size (--fresh)" : "allocated once and reused");
    printf("# %12s %12s %6s %6s %10s %12s %12s %12s %8s\n", "size(B)", "count", "type", "redop",
           "algorithm", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong");
}

static void print_row(const row *r)
{
    printf("  %12zu %12zu %6s %6s %10s %12.1f %12.2f %12.2f %8lld\n", r->bytes,
           r->bytes / sizeof(float), "float", "sum", "mpi", r->us, r->algbw, r->busbw, r->wrong);
    fflush(stdout);
}

static void print_footer(double avg_busbw, int ranks)
{
    if (ranks == 1)
        printf("# busbw = algbw x 2(n-1)/n is 0 with one process: no data crosses between "
               "processes\n");
    printf("# Avg bus bandwidth: %.2f GB/s\n", avg_busbw);
}

static int write_json(const options *o, const row *rows, size_t n, double avg, int ranks)
{
    FILE *f = fopen(o->json, "w");
    if (!f) {
        perror(o->json);
        return -1;
    }
    fprintf(f,
            "{\"benchmark\": \"mpi_allreduce\", \"processes\": %d, \"type\": \"float\", "
            "\"redop\": \"sum\", \"algorithm\": \"mpi\", \"iters\": %ld, \"warmup\": %ld, "
            "\"buffers\": \"%s\",\n \"rows\": [",
            ranks, o->iters, o->warmup, o->fresh ? "fresh" : "reused");
    for (size_t i = 0; i < n; i++)
        fprintf(f,
                "%s\n  {\"size\": %zu, \"count\": %zu, \"time_us\": %.3f, \"algbw\": %.4f, "
                "\"busbw\": %.4f, \"wrong\": %lld}",
                i ? "," : "", rows[i].bytes, rows[i].bytes / sizeof(float), rows[i].us,
                rows[i].algbw, rows[i].busbw, rows[i].wrong);
    fprintf(f, "],\n \"avg_busbw\": %.4f}\n", avg);
    return fclose(f) ? (perror(o->json), -1) : 0;
}

/* Every size in turn; rank 0 prints. 0, or 1 if any element was wrong. */
static int run(const options *o, int rank, int ranks)
{
    float *reused = NULL;
    if (!o->fresh) {
        reused = allocate(o->max_bytes, rank);
        memset(reused, 0, o->max_bytes); /* first touch, before any timing */
    }
    row rows[MAX_SIZES];
    size_t n = 0;
    double busbw_sum = 0;
    long long wrong = 0;
    if (rank == 0)
        print_header(o, ranks);
    size_t factor = (size_t)o->factor;
    for (size_t bytes = o->min_bytes;; bytes *= factor) {
        rows[n] = measure(o, bytes, reused, rank, ranks);
        busbw_sum += rows[n].busbw;
        wrong += rows[n].wrong;
        if (rank == 0)
            print_row(&rows[n]);
        n++;
        if (bytes > o->max_bytes / factor) /* the next size would pass -e */
            break;
    }
    free(reused);
    int status = wrong ? 1 : 0;
    if (rank == 0) {
        print_footer(busbw_sum / (double)n, ranks);
        if (o->json && write_json(o, rows, n, busbw_sum / (double)n, ranks))
            status = 2;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    options o;
    int status = parse_options(argc, argv, rank, &o);
    if (status == 0)
        status = run(&o, rank, ranks);
    MPI_Finalize();
    return status;
}
