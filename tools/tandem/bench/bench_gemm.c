/* tandem bench gemm: GFLOP/s of C = op(A) op(B) (square, row-major, f32 or f16
 * operands summed in f32) through tdm_op_matmul on each device, for each transpose
 * case asked for, beside its peers measured in turn in the same run: OpenBLAS's
 * cblas_sgemm on the host (every core) with the same transposes, and on OpenCL
 * devices CLBlast called directly (bench_gemm.h). Every device product is checked
 * once against a double-precision sum at sampled elements. */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "bench_clock.h"
#include "bench_gemm.h"
#include "bench_json.h"
#include "cli_options.h"
#include "device_select.h"

#define MAX_TRANS 8

typedef struct trans_list {
    unsigned count;
    unsigned char cases[MAX_TRANS]; /* index into trans_names: bit 1 A's, bit 0 B's */
} trans_list;

static const char *const trans_names[] = {"NN", "NT", "TN", "TT", NULL};
static const char *const dtype_names[] = {"f32", "f16", NULL};

typedef struct gemm_options {
    cli_list devices;
    trans_list trans;
    int f16;
    size_t min_size, max_size, factor;
    unsigned repeat;
    const char *json_path;
} gemm_options;

typedef struct gemm_row {
    char device[TDM_DEVICE_ID_MAX];
    char gemm[TDM_DEVICE_NAME_MAX]; /* the device's gemm: tdm_device_desc's */
    const char *trans, *dtype;
    size_t size;
    double gflops, openblas_gflops, clblast_gflops; /* 0: did not run */
    size_t wrong;
} gemm_row;

static const cli_command gemm_command = {
    .name = "bench gemm",
    .about = "GFLOP/s of C = op(A) op(B) (m = n = k, row-major; f32, or f16 operands summed in "
             "f32) through tdm_op_matmul on each device, beside OpenBLAS's cblas_sgemm on the "
             "host (every core, same transposes, f32 for both dtypes) and, on OpenCL devices, "
             "CLBlast's Sgemm or Hgemm called directly, measured in turn in the same run; "
             "sampled elements checked.",
};

/* --trans NN,NT,...: each case once more in the list. */
static int parse_trans(const char *value, void *target, char *err, size_t err_size)
{
    trans_list *list = target;
    cli_list items = {.what = "transpose case", .max = MAX_TRANS};
    if (cli_parse_list(value, &items, err, err_size) != 0)
        return -1;
    for (size_t i = 0; i < items.count; i++) {
        int c = cli_parse_choice(items.item[i], "transpose case", trans_names, err, err_size);
        if (c < 0)
            return -1;
        if (list->count == MAX_TRANS)
            return cli_fail(err, err_size, "at most %d transpose cases", MAX_TRANS);
        list->cases[list->count++] = (unsigned char)c;
    }
    return 0;
}

static int parse_dtype(const char *value, void *target, char *err, size_t err_size)
{
    int c = cli_parse_choice(value, "dtype", dtype_names, err, err_size);
    *(int *)target = c == 1;
    return c < 0 ? -1 : 0;
}

/* 0 to go on; otherwise 1 with *exit_status set (--help, a bad option). */
static int parse(int argc, char **argv, gemm_options *o, int *exit_status)
{
    *o = (gemm_options){.devices = {.what = "device id", .max = MAX_SELECTED},
                        .min_size = 128,
                        .max_size = 1024,
                        .factor = 2,
                        .repeat = 5};
    const cli_option table[] = {
        {CLI_ENTRY("--devices", "-d", CLI_CUSTOM, &o->devices), .parse = cli_parse_list,
         .arg = "LIST", .help = BENCH_HELP_DEVICES},
        {CLI_ENTRY("--trans", NULL, CLI_CUSTOM, &o->trans), .parse = parse_trans, .arg = "LIST",
         .help = "transpose cases of op(A) op(B), each NN, NT, TN or TT (default NN)"},
        {CLI_ENTRY("--dtype", NULL, CLI_CUSTOM, &o->f16), .parse = parse_dtype, .arg = "T",
         .help = "f32, or f16: half operands, f32 sums (default f32)"},
        {CLI_ENTRY("--minsize", "-b", CLI_SIZE, &o->min_size), .min = 1, .max = 16384, .arg = "N",
         .help = "smallest m = n = k (default 128)"},
        {CLI_ENTRY("--maxsize", "-e", CLI_SIZE, &o->max_size), .min = 1, .max = 16384, .arg = "N",
         .help = "largest (default 1024)"},
        {CLI_ENTRY("--stepfactor", "-f", CLI_SIZE, &o->factor), .min = 2, .max = 1024, .arg = "N",
         .help = "size multiplier between rows (default 2)"},
        {CLI_ENTRY("--repeat", "-r", CLI_UNSIGNED, &o->repeat), .min = 1, .max = 10000, .arg = "N",
         .help = "runs per size and transpose case, alternating with the peers; the best of "
                 "each counts (default 5)"},
        {CLI_ENTRY("--json", NULL, CLI_STRING, &o->json_path), .arg = "FILE",
         .help = BENCH_HELP_JSON},
    };
    if (cli_parse_command(&gemm_command, table, sizeof table / sizeof table[0], argc, argv,
                          exit_status))
        return 1;
    if (o->trans.count == 0)
        o->trans.count = 1; /* NN */
    if (o->min_size > o->max_size) {
        fprintf(stderr, "tandem bench gemm: -b (%zu) is larger than -e (%zu)\n", o->min_size,
                o->max_size);
        *exit_status = 2;
        return 1;
    }
    return 0;
}

/* The peers of one device; each NULL when not measured, with why. */
typedef struct gemm_peers {
    openblas_peer *openblas;
    clblast_peer *clblast;
    const char *clblast_why;
} gemm_peers;

static double gflops(size_t n, double seconds)
{
    return seconds > 0 ? 2.0 * (double)n * (double)n * (double)n / seconds / 1e9 : 0;
}

/* One transpose case's row: a checked warm-up launch (program builds), a warm-up of
 * CLBlast, then the repeats, each the device's, OpenBLAS's and CLBlast's in turn. */
static tdm_status measure(tdm_device *dev, gemm_data *d, gemm_peers *peers, const gemm_options *o,
                          unsigned tc, gemm_row *row)
{
    int ta = tc >> 1, tb = tc & 1;
    double best = 0, host_best = 0, clblast_best = 0, seconds;
    tdm_status s = gemm_data_run(dev, d, ta, tb, &seconds);
    if (s == TDM_OK)
        s = gemm_data_check(d, ta, tb, &row->wrong);
    if (peers->clblast && clblast_peer_time(peers->clblast, ta, tb, &peers->clblast_why) < 0) {
        clblast_peer_close(peers->clblast);
        peers->clblast = NULL;
    }
    for (unsigned i = 0; i < o->repeat && s == TDM_OK; i++) {
        s = gemm_data_run(dev, d, ta, tb, &seconds);
        bench_keep_best(&best, seconds);
        if (peers->openblas)
            bench_keep_best(&host_best, openblas_peer_time(peers->openblas, d, ta, tb));
        if (peers->clblast &&
            (seconds = clblast_peer_time(peers->clblast, ta, tb, &peers->clblast_why)) >= 0)
            bench_keep_best(&clblast_best, seconds);
    }
    row->gflops = gflops(d->n, best);
    row->openblas_gflops = gflops(d->n, host_best);
    row->clblast_gflops = gflops(d->n, clblast_best);
    return s;
}

static void json_row(json_writer *w, const void *rows, size_t i)
{
    const gemm_row *r = (const gemm_row *)rows + i;
    json_begin_object(w, NULL);
    json_string(w, "device", r->device);
    json_string(w, "gemm", r->gemm);
    json_string(w, "trans", r->trans);
    json_string(w, "dtype", r->dtype);
    json_uint(w, "size", r->size);
    json_double(w, "gflops", r->gflops);
    json_double(w, "openblas_gflops", r->openblas_gflops);
    json_double(w, "clblast_gflops", r->clblast_gflops);
    json_uint(w, "wrong", r->wrong);
    json_end_object(w);
}

/* A peer's figure and the row's share of it, or "-" twice. */
static void print_peer(double row_gflops, double peer_gflops)
{
    if (peer_gflops > 0)
        printf(" %9.2f %7.0f%%", peer_gflops, 100 * row_gflops / peer_gflops);
    else
        printf(" %9s %8s", "-", "-");
}

static void print_header(const tdm_device_desc *desc, const gemm_options *o,
                         const gemm_peers *peers)
{
    printf("%s (%s), gemm through %s, %s: best of %u, in turn with the peers\n", desc->id,
           desc->name, desc->gemm, o->f16 ? "f16 operands summed in f32" : "f32", o->repeat);
    printf("  peers: OpenBLAS's cblas_sgemm on the host%s; %s%s\n",
           o->f16 ? " (f32: OpenBLAS 0.3.21 has no half GEMM)" : "",
           peers->clblast ? (o->f16 ? "CLBlast's Hgemm (half sums) on a queue of its own"
                                    : "CLBlast's Sgemm on a queue of its own")
           : desc->backend == TDM_BACKEND_OPENCL ? "CLBlast not measured: "
                                                 : "no CLBlast off OpenCL",
           !peers->clblast && desc->backend == TDM_BACKEND_OPENCL ? peers->clblast_why : "");
    printf("  %-5s %6s %10s %9s %8s %9s %8s %7s\n", "trans", "size", "GFLOP/s", "OpenBLAS",
           "of BLAS", "CLBlast", "of CLB", "#wrong");
}

/* Prints and fills a device's rows; returns how many went wrong or could not run. */
static int bench_device(tdm_device *dev, gemm_peers *peers, const gemm_options *o, gemm_row *rows,
                        size_t *count)
{
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    tdm_device_describe(dev, &desc);
    peers->clblast = desc.backend == TDM_BACKEND_OPENCL
                         ? clblast_peer_open(&desc, o->f16, &peers->clblast_why)
                         : NULL;
    print_header(&desc, o, peers);
    int clblast_opened = peers->clblast != NULL;
    int failed = 0;
    for (size_t n = o->min_size; n <= o->max_size; n *= o->factor) {
        gemm_data d;
        tdm_status s = gemm_data_begin(dev, n, o->f16, &d);
        if (s == TDM_OK && peers->clblast &&
            clblast_peer_load(peers->clblast, &d, &peers->clblast_why) != 0) {
            clblast_peer_close(peers->clblast);
            peers->clblast = NULL;
        }
        for (unsigned t = 0; t < o->trans.count; t++) {
            gemm_row *row = &rows[(*count)++];
            *row = (gemm_row){
                .size = n, .trans = trans_names[o->trans.cases[t]], .dtype = dtype_names[o->f16]};
            snprintf(row->device, sizeof row->device, "%s", desc.id);
            snprintf(row->gemm, sizeof row->gemm, "%s", desc.gemm);
            if (s != TDM_OK || measure(dev, &d, peers, o, o->trans.cases[t], row) != TDM_OK) {
                printf("  %-5s %6zu %10s  %s\n", row->trans, n, "n/a", tdm_last_error());
                failed++;
                continue;
            }
            printf("  %-5s %6zu %10.2f", row->trans, n, row->gflops);
            print_peer(row->gflops, row->openblas_gflops);
            print_peer(row->gflops, row->clblast_gflops);
            printf(" %7zu\n", row->wrong);
            failed += row->wrong != 0;
            fflush(stdout);
        }
        gemm_data_end(&d);
    }
    if (clblast_opened && !peers->clblast)
        printf("  CLBlast: stopped: %s\n", peers->clblast_why);
    clblast_peer_close(peers->clblast);
    peers->clblast = NULL;
    return failed;
}

int bench_gemm(int argc, char **argv)
{
    gemm_options o;
    int rc;
    if (parse(argc, argv, &o, &rc))
        return rc;
    /* the context first: its OpenCL backend loads OpenBLAS with the kernels for this
     * CPU, which then serve the direct calls too */
    tdm_context *ctx = cli_context();
    const char *why;
    gemm_peers peers = {.openblas = openblas_peer_open(&why)};
    if (!peers.openblas)
        printf("OpenBLAS: not measured: %s\n", why);
    tdm_device *reference, *devices[MAX_SELECTED];
    size_t device_count = 0, sizes = 0, count = 0;
    for (size_t n = o.min_size; n <= o.max_size; n *= o.factor)
        sizes++;
    gemm_row *rows = NULL;
    rc = 1;
    if (ctx && cli_select_devices(ctx, &o.devices, &reference, devices, &device_count) == 0 &&
        (rows = calloc(device_count * sizes * o.trans.count + 1, sizeof *rows)) != NULL)
        rc = 0;
    for (size_t d = 0; rows && d < device_count; d++)
        if (bench_device(devices[d], &peers, &o, rows, &count))
            rc = 1;
    if (rows && o.json_path && bench_write_rows(o.json_path, json_row, rows, count))
        rc = 1;
    free(rows);
    if (ctx)
        tdm_context_destroy(ctx);
    openblas_peer_close(peers.openblas);
    return rc;
}
