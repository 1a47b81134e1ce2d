/* tandem bench allreduce, allgather, reducescatter, reduce and broadcast: the
 * nccl-tests contract (-b 8 -e 256M -f 2; size, count, type, redop, root, time, algbw,
 * busbw, #wrong) through the public API, as a user calls it: tdm_strategy_run with a
 * replica function that calls tdm_replica_all_reduce (or _all_gather,
 * _reduce_scatter, _reduce, _broadcast to or from replica 0), in place. Sizes are
 * nccl-tests': the whole tensor (the gather's output, the scatter's input), and
 * busbw = algbw * 2(n-1)/n for the all-reduce, (n-1)/n for the gather and scatter,
 * algbw for the reduce and broadcast (one tensor crosses each link). Beside each
 * row, the plain C collective of the same bytes over host memory with one thread per
 * core, measured in the same run, and the ratio of the two. With
 * --multi-worker, under mpirun: every process's devices in one job (ranks x local
 * devices), the chief printing; its peer is tools/peers/mpi_allreduce, plain
 * MPI_Allreduce of the same bytes, run beside it (scripts/bench-peers.sh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_allreduce.h"
#include "bench_ceiling.h"
#include "cli_options.h"
#include "device_select.h"
#include "json_writer.h"
#include "platform/tdm_host.h"

#define ALL_ALGORITHMS (-1)

typedef struct ar_options {
    host_collective kind;
    const char *name; /* "allreduce", "allgather", ..., "broadcast" */
    cli_list devices;
    size_t min_bytes, max_bytes, factor;
    unsigned iters, warmup, repeat;
    int algorithm; /* a tdm_collective_algorithm, or ALL_ALGORITHMS */
    tdm_reduce_op op;
    tdm_dtype dtype; /* TDM_F32, or TDM_F16 (sum, mean) */
    const char *json_path;
    int multi_worker; /* one job over the processes of mpirun */
} ar_options;

typedef struct ar_row {
    size_t bytes;
    const char *algorithm;
    int supported;
    double seconds, ceiling_seconds; /* per call, the best of the repeats */
    size_t wrong;
} ar_row;

static const char *const op_names[] = {"sum", "mean", "max", "min", NULL};
static const char *const dtype_options[] = {"f32", "f16", NULL};

/* nccl-tests' names of the types */
static const char *type_name(tdm_dtype dtype)
{
    return dtype == TDM_F16 ? "half" : "float";
}

static const cli_command commands[] = {
    [HOST_ALL_REDUCE] = {.name = "bench allreduce",
                         .about = "All-reduce of one tensor per replica, in place, through "
                                  "tdm_strategy_run and tdm_replica_all_reduce; every size "
                                  "checked."},
    [HOST_ALL_GATHER] = {.name = "bench allgather",
                         .about = "All-gather of one tensor per replica, in place, through "
                                  "tdm_strategy_run and tdm_replica_all_gather; SIZE is the "
                                  "gathered tensor; every size checked."},
    [HOST_REDUCE_SCATTER] = {.name = "bench reducescatter",
                             .about = "Reduce-scatter, in place, through tdm_strategy_run and "
                                      "tdm_replica_reduce_scatter; SIZE is each replica's "
                                      "input; every size checked."},
    [HOST_REDUCE] = {.name = "bench reduce",
                     .about = "Reduce to replica 0, in place, through tdm_strategy_run and "
                              "tdm_replica_reduce; every size checked."},
    [HOST_BROADCAST] = {.name = "bench broadcast",
                        .about = "Broadcast from replica 0, in place, through tdm_strategy_run "
                                 "and tdm_replica_broadcast; every size checked."},
};

static int rooted(host_collective kind)
{
    return kind == HOST_REDUCE || kind == HOST_BROADCAST;
}

/* Whether every replica's tensor is the whole row (no per-replica slices). */
static int whole_tensor(host_collective kind)
{
    return kind == HOST_ALL_REDUCE || rooted(kind);
}

/* The redop column: nccl-tests prints none for a gather and a broadcast. */
static const char *redop_name(const ar_options *o)
{
    return o->kind == HOST_ALL_GATHER || o->kind == HOST_BROADCAST ? "none" : op_names[o->op];
}

/* The root column: nccl-tests prints -1 where there is none. */
static int root_of(const ar_options *o)
{
    return rooted(o->kind) ? ROOT : -1;
}

#define MAX_NAMES 16

/* -a's names: the library's algorithms, "all", NULL; returns the algorithms' count. */
static size_t algorithm_names(const char *names[MAX_NAMES])
{
    size_t count = 0;
    while (count < MAX_NAMES - 2 &&
           tdm_collective_algorithm_name((tdm_collective_algorithm)count)) {
        names[count] = tdm_collective_algorithm_name((tdm_collective_algorithm)count);
        count++;
    }
    names[count] = "all";
    names[count + 1] = NULL;
    return count;
}

/* -a: an algorithm's name, or "all". */
static int parse_algorithm(const char *value, void *target, char *err, size_t err_size)
{
    const char *names[MAX_NAMES];
    size_t count = algorithm_names(names);
    int a = cli_parse_choice(value, "algorithm", names, err, err_size);
    if (a < 0)
        return -1;
    *(int *)target = (size_t)a == count ? ALL_ALGORITHMS : a;
    return 0;
}

static int parse_dtype(const char *value, void *target, char *err, size_t err_size)
{
    int d = cli_parse_choice(value, "dtype", dtype_options, err, err_size);
    if (d < 0)
        return -1;
    *(tdm_dtype *)target = d ? TDM_F16 : TDM_F32;
    return 0;
}

static int parse_op(const char *value, void *target, char *err, size_t err_size)
{
    int op = cli_parse_choice(value, "reduction", op_names, err, err_size);
    if (op < 0)
        return -1;
    *(tdm_reduce_op *)target = (tdm_reduce_op)op;
    return 0;
}

/* 0 to go on; otherwise 1 with *exit_status set (--help, a bad option). */
static int parse(int argc, char **argv, ar_options *o, int *exit_status)
{
    host_collective kind = o->kind;
    const char *name = o->name;
    *o = (ar_options){.kind = kind,
                      .name = name,
                      .devices = {.what = "device id", .max = MAX_SELECTED},
                      .min_bytes = 8,
                      .max_bytes = (size_t)256 << 20,
                      .factor = 2,
                      .iters = 20,
                      .warmup = 5,
                      .repeat = 3,
                      .op = TDM_REDUCE_SUM};
    const uint64_t max_bytes = (uint64_t)1 << 40, max_count = 1000000;
    const char *algorithms[MAX_NAMES];
    algorithm_names(algorithms);
    const cli_option table[] = {
        {CLI_ENTRY("--devices", "-d", CLI_CUSTOM, &o->devices), .parse = cli_parse_list,
         .arg = "LIST",
         .help = "device ids or indices, comma-separated (default: every device but the "
                 "reference, each piece of hardware once; see 'tandem devices')"},
        {CLI_ENTRY("--minbytes", "-b", CLI_BYTES, &o->min_bytes), .min = 4, .max = max_bytes,
         .arg = "N", .help = "smallest size (default 8; suffixes K, M, G)"},
        {CLI_ENTRY("--maxbytes", "-e", CLI_BYTES, &o->max_bytes), .min = 4, .max = max_bytes,
         .arg = "N", .help = "largest size (default 256M)"},
        {CLI_ENTRY("--stepfactor", "-f", CLI_SIZE, &o->factor), .min = 2, .max = 1024, .arg = "N",
         .help = "size multiplier between rows (default 2)"},
        {CLI_ENTRY("--algorithm", "-a", CLI_CUSTOM, &o->algorithm), .parse = parse_algorithm,
         .arg = "A", .help = "a collective algorithm (default auto), or all",
         .choices = algorithms},
        {CLI_ENTRY("--op", "-o", CLI_CUSTOM, &o->op), .parse = parse_op, .arg = "OP",
         .help = "the reduction (default sum)", .choices = op_names},
        {CLI_ENTRY("--dtype", "-t", CLI_CUSTOM, &o->dtype), .parse = parse_dtype, .arg = "T",
         .help = "f32 (default), or f16 (sum and mean, summed in f16)", .choices = dtype_options},
        {CLI_ENTRY("--iters", "-n", CLI_UNSIGNED, &o->iters), .min = 1, .max = max_count,
         .arg = "N", .help = "timed calls per run (default 20)"},
        {CLI_ENTRY("--warmup", "-w", CLI_UNSIGNED, &o->warmup), .max = max_count, .arg = "N",
         .help = "untimed calls before them (default 5)"},
        {CLI_ENTRY("--repeat", "-r", CLI_UNSIGNED, &o->repeat), .min = 1, .max = max_count,
         .arg = "N",
         .help = "runs per row, alternating with the ceiling; the best of each is kept "
                 "(default 3)"},
        {CLI_ENTRY("--json", NULL, CLI_STRING, &o->json_path), .arg = "FILE",
         .help = BENCH_HELP_JSON},
        {CLI_ENTRY("--multi-worker", NULL, CLI_FLAG, &o->multi_worker), .flag_value = 1,
         .help = "under mpirun: one job over every process's devices (ranks x local "
                 "devices); the first process prints, and the host ceiling is left out: "
                 "compare with tools/peers/mpi_allreduce (plain MPI_Allreduce)"},
    };
    if (cli_parse_command(&commands[o->kind], table, sizeof table / sizeof table[0], argc, argv,
                          exit_status))
        return 1;
    if (o->dtype == TDM_F16 && (o->op == TDM_REDUCE_MAX || o->op == TDM_REDUCE_MIN)) {
        fprintf(stderr, "tandem bench %s: f16 reductions sum (--op sum or mean)\n", o->name);
        *exit_status = 2;
        return 1;
    }
    if (o->min_bytes > o->max_bytes) {
        fprintf(stderr, "tandem bench %s: -b (%zu) is larger than -e (%zu)\n", o->name,
                o->min_bytes, o->max_bytes);
        *exit_status = 2;
        return 1;
    }
    return 0;
}

static tdm_status measure(tdm_strategy *st, ar_bench *b, host_ceiling *ceiling, const ar_options *o,
                          ar_row *row)
{
    size_t count = row->bytes / b->element;
    tdm_status s = TDM_OK;
    size_t part = count / b->total;
    for (size_t r = 0; r < b->n && s == TDM_OK; r++) {
        tdm_tensor_destroy(b->part[r]);
        tdm_tensor_destroy(b->slice[r]);
        b->part[r] = b->slice[r] = NULL;
        s = tdm_tensor_slice(b->whole[r], 0, &TDM_SHAPE(count), &b->slice[r]);
        if (s == TDM_OK && !whole_tensor(b->kind)) /* in place: the replica's slice */
            s = tdm_tensor_slice(b->whole[r], (b->first + r) * part, &TDM_SHAPE(part), &b->part[r]);
    }
    row->seconds = row->ceiling_seconds = INFINITY;
    for (unsigned k = 0; k < o->repeat && s == TDM_OK; k++) {
        double t;
        if (o->warmup)
            s = ar_timed_run(st, b, o->warmup, &t);
        if (s == TDM_OK)
            s = ar_timed_run(st, b, o->iters, &t);
        if (s == TDM_OK && t / o->iters < row->seconds)
            row->seconds = t / o->iters;
        if (!ceiling)
            continue;
        t = host_ceiling_time(ceiling, row->bytes, o->warmup, o->iters);
        if (t < row->ceiling_seconds)
            row->ceiling_seconds = t;
    }
    return s == TDM_OK ? ar_check(st, b, count, &row->wrong) : s;
}

/* GB/s on the bus, nccl-tests' busbw: algbw * 2(n-1)/n for the all-reduce, which
 * moves every byte out and back, (n-1)/n for the gather and scatter (0 for one
 * replica), algbw itself for the reduce and broadcast. */
static double busbw(const ar_bench *b, size_t bytes, double seconds)
{
    double algbw = (double)bytes / seconds * 1e-9;
    if (rooted(b->kind))
        return algbw;
    double factor = b->kind == HOST_ALL_REDUCE ? 2.0 : 1.0;
    return algbw * factor * (double)(b->total - 1) / (double)b->total;
}

/* nccl-tests' names of the collectives, for the ceiling's line. */
static const char *const collective_names[] = {[HOST_ALL_REDUCE] = "all-reduce",
                                               [HOST_ALL_GATHER] = "all-gather",
                                               [HOST_REDUCE_SCATTER] = "reduce-scatter",
                                               [HOST_REDUCE] = "reduce to replica 0",
                                               [HOST_BROADCAST] = "broadcast from replica 0"};

static void print_header(const ar_bench *b, const ar_options *o, unsigned threads)
{
    printf("# tandem bench %s: %zu replicas, op %s of %s, in place, %u calls per run after "
           "%u warm-up, best of %u runs\n",
           o->name, b->total, redop_name(o), tdm_dtype_name(b->dtype), o->iters, o->warmup,
           o->repeat);
    if (o->multi_worker)
        printf("# multi-worker: %zu processes of %zu replicas each; the chief's devices:\n",
               b->workers, b->n);
    for (size_t i = 0; i < b->n; i++) {
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        tdm_device_describe(b->devices[i], &d);
        printf("#   replica %zu: %s '%s'\n", i, d.id, d.name);
    }
    if (o->multi_worker && o->kind != HOST_ALL_REDUCE)
        printf("# no ceiling in this run: the host's is one process's\n");
    else if (o->multi_worker)
        printf("# no ceiling in this run: compare with plain MPI_Allreduce of the same bytes,\n"
               "# mpirun -np %zu build/mpi_allreduce -b %zu -e %zu -f %zu\n",
               b->workers, o->min_bytes, o->max_bytes, o->factor);
    else
        printf("# ceiling: a plain C %s of the same bytes over host memory, %u threads\n",
               collective_names[o->kind], threads);
    if (b->total == 1 && !rooted(o->kind))
        printf("# one replica: busbw is 0 by definition (nothing crosses a bus); compare "
               "time instead\n");
    printf("#\n#%12s %12s %6s %6s %5s %11s %11s %9s %9s %7s %12s %8s\n", "size", "count", "type",
           "redop", "root", "algorithm", "time", "algbw", "busbw", "#wrong", "ceiling", "of ceil");
    printf("#%12s %12s %6s %6s %5s %11s %11s %9s %9s %7s %12s %8s\n", "(B)", "(elements)", "", "",
           "", "", "(us)", "(GB/s)", "(GB/s)", "", "busbw(GB/s)", "");
}

static void print_row(const ar_row *r, const ar_bench *b, const ar_options *o)
{
    if (!r->supported) {
        printf(" %12zu %12zu %6s %6s %5d %11s   not supported on these devices\n", r->bytes,
               r->bytes / b->element, type_name(b->dtype), redop_name(o), root_of(o), r->algorithm);
        return;
    }
    double bus = busbw(b, r->bytes, r->seconds);
    printf(" %12zu %12zu %6s %6s %5d %11s %11.1f %9.2f %9.2f %7zu", r->bytes, r->bytes / b->element,
           type_name(b->dtype), redop_name(o), root_of(o), r->algorithm, r->seconds * 1e6,
           (double)r->bytes / r->seconds * 1e-9, bus, r->wrong);
    if (isfinite(r->ceiling_seconds))
        printf(" %12.2f %7.0f%%\n", busbw(b, r->bytes, r->ceiling_seconds),
               100.0 * r->ceiling_seconds / r->seconds);
    else
        printf(" %12s %8s\n", "-", "-");
}

static void json_row(json_writer *w, const ar_row *r, const ar_bench *b, const ar_options *o)
{
    json_begin_object(w, NULL);
    json_uint(w, "size", r->bytes);
    json_uint(w, "count", r->bytes / b->element);
    json_string(w, "type", type_name(b->dtype));
    json_string(w, "redop", redop_name(o));
    json_int(w, "root", root_of(o));
    json_string(w, "algorithm", r->algorithm);
    if (r->supported) {
        json_double(w, "time_us", r->seconds * 1e6);
        json_double(w, "algbw", (double)r->bytes / r->seconds * 1e-9);
        json_double(w, "busbw", busbw(b, r->bytes, r->seconds));
        json_uint(w, "wrong", r->wrong);
        if (isfinite(r->ceiling_seconds)) {
            json_double(w, "ceiling_busbw", busbw(b, r->bytes, r->ceiling_seconds));
            json_double(w, "of_ceiling", r->ceiling_seconds / r->seconds);
        }
    } else {
        json_string(w, "note", "not supported on these devices");
    }
    json_end_object(w);
}

static size_t row_count(const ar_options *o)
{
    size_t rows = 0;
    for (size_t bytes = o->min_bytes; bytes <= o->max_bytes; bytes *= o->factor) {
        rows++;
        if (bytes > o->max_bytes / o->factor)
            break;
    }
    return rows;
}

/* A row's size: whole 4-byte words, and for the gather and scatter a multiple of
 * the replicas' (each part whole words: pairs of halves), at least one word each. */
static size_t row_bytes(const ar_bench *b, size_t bytes)
{
    size_t unit = whole_tensor(b->kind) ? 4 : 4 * b->total;
    return bytes < unit ? unit : bytes / unit * unit;
}

/* Runs every size for one algorithm; appends rows. Returns 0, or 1 on a failure. */
static int run_algorithm(tdm_context *ctx, ar_bench *b, host_ceiling *ceiling, const ar_options *o,
                         int algorithm, ar_row *rows, size_t *used)
{
    tdm_strategy_options so = TDM_STRATEGY_OPTIONS_INIT;
    so.algorithm = (tdm_collective_algorithm)algorithm;
    tdm_strategy *st;
    if ((o->multi_worker
             ? tdm_strategy_create_multi_worker(ctx, b->devices, b->n, &so, &st)
             : tdm_strategy_create_mirrored(ctx, b->devices, b->n, &so, &st)) != TDM_OK) {
        fprintf(stderr, "tandem bench %s: %s\n", b->name, tdm_last_error());
        return 1;
    }
    int failed = 0;
    for (size_t bytes = o->min_bytes, k = 0; k < row_count(o) && !failed; bytes *= o->factor, k++) {
        ar_row *r = &rows[(*used)++];
        *r = (ar_row){.bytes = row_bytes(b, bytes),
                      .algorithm = tdm_collective_algorithm_name(so.algorithm),
                      .supported = 1};
        tdm_status s = measure(st, b, ceiling, o, r);
        if (s == TDM_ERR_UNSUPPORTED && algorithm != TDM_COLLECTIVE_AUTO)
            r->supported = 0;
        else if (s != TDM_OK) {
            fprintf(stderr, "tandem bench %s: %s\n", b->name, tdm_last_error());
            failed = 1;
            (*used)--;
            break;
        }
        print_row(r, b, o);
        fflush(stdout);
        if (!r->supported)
            break; /* the same devices will not support a larger size either */
    }
    tdm_strategy_destroy(st);
    return failed;
}

static void print_averages(const ar_row *rows, size_t used, const ar_bench *b)
{
    for (size_t i = 0; i < used;) {
        size_t j = i, counted = 0;
        double sum = 0.0;
        for (; j < used && rows[j].algorithm == rows[i].algorithm; j++)
            if (rows[j].supported) {
                sum += busbw(b, rows[j].bytes, rows[j].seconds);
                counted++;
            }
        if (counted)
            printf("# Avg bus bandwidth (%s): %.3f GB/s\n", rows[i].algorithm,
                   sum / (double)counted);
        i = j;
    }
}

static int write_json(const char *path, const ar_row *rows, size_t used, const ar_bench *b,
                      const ar_options *o, unsigned threads)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return 1;
    }
    json_writer w = {.out = f};
    json_begin_object(&w, NULL);
    json_uint(&w, "replicas", b->total);
    json_uint(&w, "processes", b->workers);
    json_begin_array(&w, "devices");
    for (size_t i = 0; i < b->n; i++) {
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        tdm_device_describe(b->devices[i], &d);
        json_string(&w, NULL, d.id);
    }
    json_end_array(&w);
    json_uint(&w, "ceiling_threads", threads);
    json_uint(&w, "iters", o->iters);
    json_uint(&w, "warmup", o->warmup);
    json_uint(&w, "repeat", o->repeat);
    json_begin_array(&w, "rows");
    for (size_t i = 0; i < used; i++)
        json_row(&w, &rows[i], b, o);
    json_end_array(&w);
    json_end_object(&w);
    fputc('\n', f);
    return fclose(f) ? 1 : 0;
}

static int run(tdm_context *ctx, ar_bench *b, const ar_options *o)
{
    unsigned threads = (unsigned)tdm_host_cores();
    host_ceiling *ceiling =
        o->multi_worker ? NULL : host_ceiling_create(b->n, b->alloc_bytes, threads, o->kind);
    if (!ceiling && !o->multi_worker) {
        fprintf(stderr, "tandem bench %s: no memory or threads for the ceiling\n", o->name);
        return 1;
    }
    size_t per_algorithm = row_count(o), algorithms = 0;
    while (tdm_collective_algorithm_name((tdm_collective_algorithm)algorithms))
        algorithms++;
    ar_row *rows = calloc(per_algorithm * algorithms, sizeof *rows);
    int failed = !rows;
    print_header(b, o, threads);
    size_t used = 0;
    for (int a = 0; !failed && a < (int)algorithms; a++)
        if (o->algorithm == ALL_ALGORITHMS || o->algorithm == a)
            failed = run_algorithm(ctx, b, ceiling, o, a, rows, &used);
    if (!failed) {
        print_averages(rows, used, b);
        size_t wrong = 0;
        for (size_t i = 0; i < used; i++)
            wrong += rows[i].wrong;
        printf("# Wrong elements: %zu %s\n", wrong, wrong ? "FAILED" : "OK");
        failed = wrong != 0;
        if (o->json_path && b->first == 0) /* the chief's */
            failed |= write_json(o->json_path, rows, used, b, o, threads);
    }
    free(rows);
    host_ceiling_destroy(ceiling);
    return failed;
}

/* The job's shape, from a strategy made for the purpose; the chief alone prints. */
static int learn_job(tdm_context *ctx, ar_bench *b)
{
    tdm_strategy *st = NULL;
    if (tdm_strategy_create_multi_worker(ctx, b->devices, b->n, NULL, &st) != TDM_OK) {
        fprintf(stderr, "tandem bench %s: %s\n", b->name, tdm_last_error());
        return 1;
    }
    b->total = tdm_strategy_num_replicas(st);
    b->workers = tdm_strategy_num_workers(st);
    int chief = tdm_strategy_is_chief(st);
    b->first = b->n * tdm_strategy_worker_index(st); /* n in every process: checked below */
    tdm_strategy_destroy(st);
    if (b->total != b->n * b->workers) {
        fprintf(stderr,
                "tandem bench %s: --multi-worker needs the same number of "
                "devices in every process\n",
                b->name);
        return 1;
    }
    return chief || freopen("/dev/null", "w", stdout) ? 0 : 1;
}

static int bench_collective(int argc, char **argv, host_collective kind, const char *name)
{
    ar_options o = {.kind = kind, .name = name};
    int exit_status = 0;
    if (parse(argc, argv, &o, &exit_status))
        return exit_status;
    tdm_context *ctx = cli_context();
    if (!ctx)
        return 1;
    ar_bench b = {.kind = kind,
                  .name = name,
                  .op = o.op,
                  .dtype = o.dtype,
                  .element = o.dtype == TDM_F16 ? 2 : 4};
    tdm_device *reference;
    int status = cli_select_devices(ctx, &o.devices, &reference, b.devices, &b.n) ? 1 : 0;
    if (!o.devices.count) /* by default one replica per piece of hardware */
        b.n = cli_distinct_hardware(b.devices, b.n);
    /* at least a word per replica: the gather's and scatter's smallest row */
    b.alloc_bytes = o.max_bytes / 4 * 4 < 4 * b.n ? 4 * b.n : o.max_bytes / 4 * 4;
    for (size_t r = 0; status == 0 && r < b.n; r++)
        if (tdm_tensor_create(b.devices[r], b.dtype, &TDM_SHAPE(b.alloc_bytes / b.element),
                              &b.whole[r]) != TDM_OK) {
            fprintf(stderr, "tandem bench %s: %s\n", name, tdm_last_error());
            status = 1;
        }
    b.total = b.n;
    b.workers = 1;
    if (status == 0 && o.multi_worker)
        status = learn_job(ctx, &b);
    if (status == 0)
        status = run(ctx, &b, &o);
    for (size_t r = 0; r < b.n; r++) {
        tdm_tensor_destroy(b.part[r]);
        tdm_tensor_destroy(b.slice[r]);
        tdm_tensor_destroy(b.whole[r]);
    }
    tdm_context_destroy(ctx);
    return status;
}

int bench_allreduce(int argc, char **argv)
{
    return bench_collective(argc, argv, HOST_ALL_REDUCE, "allreduce");
}

int bench_allgather(int argc, char **argv)
{
    return bench_collective(argc, argv, HOST_ALL_GATHER, "allgather");
}

int bench_reducescatter(int argc, char **argv)
{
    return bench_collective(argc, argv, HOST_REDUCE_SCATTER, "reducescatter");
}

int bench_reduce(int argc, char **argv)
{
    return bench_collective(argc, argv, HOST_REDUCE, "reduce");
}

int bench_broadcast(int argc, char **argv)
{
    return bench_collective(argc, argv, HOST_BROADCAST, "broadcast");
}
