/* tandem bench gemm: GFLOP/s of C = A B (float32, square, row-major) through
 * tdm_op_matmul on each device, beside OpenBLAS's cblas_sgemm on the host (every
 * core) measured in turn in the same run, when libopenblas.so.0 is installed. Every
 * device result is checked against a double-precision sum at sampled elements. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_json.h"
#include "bench_clock.h"
#include "cli_options.h"
#include "device_select.h"

#define CHECKED_ELEMENTS 64

typedef struct gemm_options {
    cli_list devices;
    size_t min_size, max_size, factor;
    unsigned repeat;
    const char *json_path;
} gemm_options;

typedef struct gemm_row {
    char device[TDM_DEVICE_ID_MAX];
    char gemm[TDM_DEVICE_NAME_MAX]; /* the device's gemm: tdm_device_desc's */
    size_t size;
    double gflops, openblas_gflops; /* 0: did not run */
    size_t wrong;
} gemm_row;

/* CBLAS's values for row-major and no transpose. */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111 };
typedef void (*cblas_sgemm_fn)(int order, int trans_a, int trans_b, int m, int n, int k,
                               float alpha, const float *a, int lda, const float *b, int ldb,
                               float beta, float *c, int ldc);

static const cli_command gemm_command = {
    .name = "bench gemm",
    .about = "GFLOP/s of C = A B (float32, m = n = k, row-major) through tdm_op_matmul on each "
             "device, beside OpenBLAS's cblas_sgemm on the host (every core) in the same run "
             "when libopenblas.so.0 is installed; sampled elements checked.",
};

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
        {CLI_ENTRY("--minsize", "-b", CLI_SIZE, &o->min_size), .min = 1, .max = 16384, .arg = "N",
         .help = "smallest m = n = k (default 128)"},
        {CLI_ENTRY("--maxsize", "-e", CLI_SIZE, &o->max_size), .min = 1, .max = 16384, .arg = "N",
         .help = "largest (default 1024)"},
        {CLI_ENTRY("--stepfactor", "-f", CLI_SIZE, &o->factor), .min = 2, .max = 1024, .arg = "N",
         .help = "size multiplier between rows (default 2)"},
        {CLI_ENTRY("--repeat", "-r", CLI_UNSIGNED, &o->repeat), .min = 1, .max = 10000, .arg = "N",
         .help = "runs per size, alternating with OpenBLAS; the best of each counts (default "
                 "5)"},
        {CLI_ENTRY("--json", NULL, CLI_STRING, &o->json_path), .arg = "FILE",
         .help = BENCH_HELP_JSON},
    };
    if (cli_parse_command(&gemm_command, table, sizeof table / sizeof table[0], argc, argv,
                          exit_status))
        return 1;
    if (o->min_size > o->max_size) {
        fprintf(stderr, "tandem bench gemm: -b (%zu) is larger than -e (%zu)\n", o->min_size,
                o->max_size);
        *exit_status = 2;
        return 1;
    }
    return 0;
}

/* OpenBLAS's cblas_sgemm, or NULL (with why) when it is not installed. */
static cblas_sgemm_fn load_openblas(void **handle, const char **why)
{
    *handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!*handle) {
        *why = "libopenblas.so.0 not found (Debian: libopenblas0-pthread)";
        return NULL;
    }
    cblas_sgemm_fn f;
    *(void **)&f = dlsym(*handle, "cblas_sgemm");
    *why = f ? NULL : "libopenblas.so.0 has no cblas_sgemm";
    return f;
}

/* Small values on a coarse grid: products and sums stay well inside float. */
static void fill(float *x, size_t count, unsigned seed)
{
    for (size_t i = 0; i < count; i++)
        x[i] = (float)((int)((i * 2654435761u + seed * 40503u) % 33u) - 16) / 16.0f;
}

/* Sampled elements of c against a double sum over a and b: the ones off by more
 * than float rounding of a sum of n products can explain. */
static size_t count_wrong(const float *a, const float *b, const float *c, size_t n)
{
    size_t wrong = 0;
    for (size_t s = 0; s < CHECKED_ELEMENTS; s++) {
        size_t i = (s * 7919u) % n, j = (s * 104729u) % n;
        double want = 0, magnitude = 0;
        for (size_t p = 0; p < n; p++) {
            want += (double)a[i * n + p] * b[p * n + j];
            magnitude += fabs((double)a[i * n + p] * b[p * n + j]);
        }
        wrong += fabs(c[i * n + j] - want) > 0x1p-18 * magnitude + 1e-30;
    }
    return wrong;
}

typedef struct gemm_data {
    size_t n;
    float *a, *b, *c;         /* host copies */
    tdm_tensor *ta, *tb, *tc; /* on the device */
} gemm_data;

static tdm_status data_begin(tdm_device *dev, size_t n, gemm_data *d)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    d->a = malloc(n * n * sizeof *d->a);
    d->b = malloc(n * n * sizeof *d->b);
    d->c = malloc(n * n * sizeof *d->c);
    if (!d->a || !d->b || !d->c)
        return TDM_ERR_OUT_OF_MEMORY;
    fill(d->a, n * n, 1);
    fill(d->b, n * n, 2);
    tdm_status s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(n, n), &d->ta);
    if (s == TDM_OK)
        s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(n, n), &d->tb);
    if (s == TDM_OK)
        s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(n, n), &d->tc);
    if (s == TDM_OK)
        s = tdm_tensor_write(d->ta, d->a, n * n * sizeof *d->a);
    if (s == TDM_OK)
        s = tdm_tensor_write(d->tb, d->b, n * n * sizeof *d->b);
    return s;
}

static void data_end(gemm_data *d)
{
    tdm_tensor_destroy(d->ta);
    tdm_tensor_destroy(d->tb);
    tdm_tensor_destroy(d->tc);
    free(d->a);
    free(d->b);
    free(d->c);
}

static tdm_status device_gemm(tdm_device *dev, gemm_data *d, double *seconds)
{
    double t0 = bench_seconds();
    tdm_status s = tdm_op_matmul(d->tc, d->ta, 0, d->tb, 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_device_finish(dev);
    *seconds = bench_seconds() - t0;
    return s;
}

static double host_gemm(cblas_sgemm_fn sgemm, gemm_data *d)
{
    int n = (int)d->n;
    double t0 = bench_seconds();
    sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, n, n, n, 1.0f, d->a, n, d->b, n, 0.0f,
          d->c, n);
    return bench_seconds() - t0;
}

/* One row: a warm-up launch (program builds), then the repeats in turn. */
static tdm_status measure(tdm_device *dev, cblas_sgemm_fn sgemm, const gemm_options *o,
                          gemm_row *row)
{
    gemm_data d;
    double best = 0, host_best = 0, seconds;
    tdm_status s = data_begin(dev, row->size, &d);
    if (s == TDM_OK)
        s = device_gemm(dev, &d, &seconds);
    if (s == TDM_OK)
        s = tdm_tensor_read(d.tc, d.c, d.n * d.n * sizeof *d.c);
    if (s == TDM_OK)
        row->wrong = count_wrong(d.a, d.b, d.c, d.n);
    for (unsigned i = 0; i < o->repeat && s == TDM_OK; i++) {
        s = device_gemm(dev, &d, &seconds);
        bench_keep_best(&best, seconds);
        if (sgemm)
            bench_keep_best(&host_best, host_gemm(sgemm, &d));
    }
    double flops = 2.0 * (double)d.n * (double)d.n * (double)d.n;
    if (s == TDM_OK) {
        row->gflops = flops / best / 1e9;
        row->openblas_gflops = host_best > 0 ? flops / host_best / 1e9 : 0;
    }
    data_end(&d);
    return s;
}

static void json_row(json_writer *w, const void *rows, size_t i)
{
    const gemm_row *r = (const gemm_row *)rows + i;
    json_begin_object(w, NULL);
    json_string(w, "device", r->device);
    json_string(w, "gemm", r->gemm);
    json_uint(w, "size", r->size);
    json_double(w, "gflops", r->gflops);
    json_double(w, "openblas_gflops", r->openblas_gflops);
    json_uint(w, "wrong", r->wrong);
    json_end_object(w);
}

/* Prints and fills a device's rows; returns how many went wrong or could not run. */
static int bench_device(tdm_device *dev, cblas_sgemm_fn sgemm, const gemm_options *o,
                        gemm_row *rows, size_t *count)
{
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    tdm_device_describe(dev, &desc);
    printf("%s (%s), gemm through %s: best of %u, alternating with OpenBLAS\n", desc.id, desc.name,
           desc.gemm, o->repeat);
    printf("  %6s %10s %10s %8s %7s\n", "size", "GFLOP/s", "OpenBLAS", "of BLAS", "#wrong");
    int failed = 0;
    for (size_t n = o->min_size; n <= o->max_size; n *= o->factor) {
        gemm_row *row = &rows[(*count)++];
        *row = (gemm_row){.size = n};
        snprintf(row->device, sizeof row->device, "%s", desc.id);
        snprintf(row->gemm, sizeof row->gemm, "%s", desc.gemm);
        if (measure(dev, sgemm, o, row) != TDM_OK) {
            printf("  %6zu %10s  %s\n", n, "n/a", tdm_last_error());
            failed++;
        } else {
            if (row->openblas_gflops > 0)
                printf("  %6zu %10.2f %10.2f %7.0f%% %7zu\n", n, row->gflops, row->openblas_gflops,
                       100 * row->gflops / row->openblas_gflops, row->wrong);
            else
                printf("  %6zu %10.2f %10s %8s %7zu\n", n, row->gflops, "-", "-", row->wrong);
            failed += row->wrong != 0;
        }
        fflush(stdout);
    }
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
    void *openblas;
    const char *why;
    cblas_sgemm_fn sgemm = load_openblas(&openblas, &why);
    if (!sgemm)
        printf("OpenBLAS: not measured: %s\n", why);
    tdm_device *reference, *devices[MAX_SELECTED];
    size_t device_count = 0, sizes = 0, count = 0;
    for (size_t n = o.min_size; n <= o.max_size; n *= o.factor)
        sizes++;
    gemm_row *rows = NULL;
    rc = 1;
    if (ctx && cli_select_devices(ctx, &o.devices, &reference, devices, &device_count) == 0 &&
        (rows = calloc(device_count * sizes + 1, sizeof *rows)) != NULL)
        rc = 0;
    for (size_t d = 0; rows && d < device_count; d++)
        if (bench_device(devices[d], sgemm, &o, rows, &count))
            rc = 1;
    if (rows && o.json_path && bench_write_rows(o.json_path, json_row, rows, count))
        rc = 1;
    free(rows);
    if (ctx)
        tdm_context_destroy(ctx);
    if (openblas)
        dlclose(openblas);
    return rc;
}
