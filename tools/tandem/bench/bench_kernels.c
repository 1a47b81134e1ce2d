/* tandem bench kernels: the bandwidth of each memory-bound kernel against two
 * ceilings measured in the same run, neither of them tandem's own code: the
 * device's buffer copy (clEnqueueCopyBuffer, vkCmdCopyBuffer; memcpy on the
 * reference) and a host memcpy of the same bytes. GB/s counts the bytes read plus
 * the bytes written. The kernel's launches alternate with both copies and each keeps
 * its best time, so that load from elsewhere skews the ratios as little as
 * possible. With --back-to-back N, also N launches enqueued before one wait, timed
 * per launch: their ceiling is memory's, not that of a launch and its wait. With
 * --image, the convolution and pooling kernels instead, on one image shape (a layer
 * of a CNN), with their time per launch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_json.h"
#include "bench_clock.h"
#include "cli_options.h"
#include "conformance.h"
#include "device_select.h"

typedef struct kb_options {
    cli_list devices, kernels;
    size_t bytes; /* per float buffer */
    unsigned repeat;
    unsigned back_to_back; /* launches per wait in the extra columns; 0: none */
    uint32_t image[4];     /* batch, h, w, c; batch 0: the memory-bound kernels */
    unsigned window, stride;
    const char *json_path;
} kb_options;

typedef struct kb_row {
    char device[TDM_DEVICE_ID_MAX];
    const char *kernel;
    double gbs, device_copy_gbs, memcpy_gbs; /* 0: could not run */
    double ms;                               /* the best launch */
    double b2b_gbs, b2b_ms; /* per launch of the best back-to-back run; 0: not run */
} kb_row;

static const cli_command kernels_command = {
    .name = "bench kernels",
    .about = "GB/s of each memory-bound kernel (bytes read + written) beside the device's own "
             "buffer copy and a host memcpy of the same bytes, measured in turn; with "
             "--back-to-back, also per launch of N enqueued before one wait.",
};

/* --image BxHxWxC: four whole numbers from 1, their product within 2^32. */
static int parse_image(const char *value, void *target, char *err, size_t err_size)
{
    uint32_t *dims = target;
    unsigned long long d[4], product = 1;
    int end = 0;
    if (sscanf(value, "%llux%llux%llux%llu%n", &d[0], &d[1], &d[2], &d[3], &end) != 4 ||
        value[end] != '\0')
        return cli_fail(err, err_size, "'%.40s' is not BATCHxHxWxC", value);
    for (int i = 0; i < 4; i++) {
        if (d[i] == 0 || d[i] > UINT32_MAX || (product *= d[i]) > UINT32_MAX)
            return cli_fail(err, err_size, "'%.40s' is not an image of 1 to 2^32 - 1 elements",
                            value);
        dims[i] = (uint32_t)d[i];
    }
    return 0;
}

/* 0 to go on; otherwise 1 with *exit_status set (--help, a bad option). */
static int parse(int argc, char **argv, kb_options *o, int *exit_status)
{
    *o = (kb_options){.devices = {.what = "device id", .max = MAX_SELECTED},
                      .kernels = {.what = "kernel name", .max = TDM_KERNEL_COUNT},
                      .bytes = (size_t)64 << 20,
                      .repeat = 10,
                      .window = 3,
                      .stride = 1};
    const cli_option table[] = {
        {CLI_ENTRY("--devices", "-d", CLI_CUSTOM, &o->devices), .parse = cli_parse_list,
         .arg = "LIST", .help = BENCH_HELP_DEVICES},
        {CLI_ENTRY("--kernel", "-k", CLI_CUSTOM, &o->kernels), .parse = cli_parse_list,
         .arg = "LIST", .help = "only these kernels (default: every memory-bound one)"},
        {CLI_ENTRY("--size", "-s", CLI_BYTES, &o->bytes), .min = 4, .max = (uint64_t)1 << 30,
         .arg = "N", .help = "bytes per float32 buffer (default 64M; suffixes K, M, G)"},
        {CLI_ENTRY("--repeat", "-r", CLI_UNSIGNED, &o->repeat), .min = 1, .max = 10000, .arg = "N",
         .help = "launches of each, alternating; the best counts (default 10)"},
        {CLI_ENTRY("--back-to-back", NULL, CLI_UNSIGNED, &o->back_to_back), .min = 1, .max = 10000,
         .arg = "N",
         .help = "also N launches enqueued back to back before one wait, per launch: the "
                 "ceiling of memory, not of submission (default: not run)"},
        {CLI_ENTRY("--image", NULL, CLI_CUSTOM, o->image), .parse = parse_image, .arg = "BxHxWxC",
         .help = "time the convolution and pooling kernels on this NHWC image instead "
                 "(SAME padding)"},
        {CLI_ENTRY("--window", NULL, CLI_UNSIGNED, &o->window), .min = 1, .max = 64, .arg = "K",
         .help = "with --image: a K x K window (default 3)"},
        {CLI_ENTRY("--stride", NULL, CLI_UNSIGNED, &o->stride), .min = 1, .max = 64, .arg = "S",
         .help = "with --image: the window's stride (default 1)"},
        {CLI_ENTRY("--json", NULL, CLI_STRING, &o->json_path), .arg = "FILE",
         .help = BENCH_HELP_JSON},
    };
    return cli_parse_command(&kernels_command, table, sizeof table / sizeof table[0], argc, argv,
                             exit_status);
}

static int memory_bound(const tdm_kernel_info *info)
{
    return info->grid == TDM_GRID_N || info->grid == TDM_GRID_PAIRS ||
           info->grid == TDM_GRID_CHUNKS;
}

/* The kernels the run times: on an image with --image, else the memory-bound ones. */
static int timed(const tdm_kernel_info *info, const kb_options *o)
{
    return o->image[0] ? tdm_kernel_uint_place(info, TDM_UINT_batch) >= 0 : memory_bound(info);
}

/* Bytes one launch reads and writes. */
static double bytes_moved(const conf_case *c, const conf_buffers *bufs)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    double bytes = 0;
    for (unsigned b = 0; b < info->buffer_count; b++) {
        const tdm_kernel_buffer *kb = &info->buffers[b];
        if (!tdm_kernel_buffer_used(info, c->u, b))
            continue;
        double size = (double)bufs->elements[b] * tdm_kernel_type_size(kb->type);
        bytes += size * (kb->read + kb->written);
    }
    return bytes;
}

/* The two ceilings' buffers: on the device, and on the host (touched once). */
typedef struct ceilings {
    tdm_device *dev;
    tdm_buffer *dst, *src;
    char *host_dst, *host_src;
    size_t bytes;
    double device_best, host_best;
} ceilings;

static tdm_status ceilings_begin(tdm_device *dev, size_t bytes, ceilings *c)
{
    memset(c, 0, sizeof *c);
    c->dev = dev;
    c->bytes = bytes;
    c->host_dst = malloc(bytes);
    c->host_src = malloc(bytes);
    if (!c->host_dst || !c->host_src)
        return TDM_ERR_OUT_OF_MEMORY;
    memset(c->host_src, 1, bytes);
    memset(c->host_dst, 0, bytes);
    tdm_status s = tdm_buffer_alloc(dev, bytes, &c->src);
    if (s == TDM_OK)
        s = tdm_buffer_alloc(dev, bytes, &c->dst);
    if (s == TDM_OK)
        s = tdm_buffer_write(c->src, 0, c->host_src, bytes);
    return s;
}

static tdm_status ceilings_time(ceilings *c)
{
    tdm_buffer_view dst = tdm_buffer_whole(c->dst), src = tdm_buffer_whole(c->src);
    double t0 = bench_seconds();
    tdm_status s = tdm_buffer_copy(&dst, &src);
    if (s == TDM_OK)
        s = tdm_device_finish(c->dev);
    double t1 = bench_seconds();
    memcpy(c->host_dst, c->host_src, c->bytes);
    double t2 = bench_seconds();
    if (s == TDM_OK)
        bench_keep_best(&c->device_best, t1 - t0);
    bench_keep_best(&c->host_best, t2 - t1);
    return s;
}

static void ceilings_end(ceilings *c)
{
    tdm_buffer_free(c->dst);
    tdm_buffer_free(c->src);
    free(c->host_dst);
    free(c->host_src);
}

/* One kernel's row: its launches alternate with both copies, whose best times
 * start afresh for the row (the buffers are the device's, allocated once). */
static tdm_status measure(ceilings *ceil, tdm_kernel kernel, const kb_options *o, kb_row *row)
{
    conf_case c = o->image[0] ? conf_image_perf_case(kernel, o->image, o->window, o->stride)
                              : conf_perf_case(kernel, (uint32_t)(o->bytes / 4));
    conf_buffers in;
    conf_prepared prepared;
    double best = 0, b2b_best = 0;
    if (conf_buffers_make(&c, &in) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    tdm_status s = conf_prepare(ceil->dev, &c, &in, &prepared);
    if (s == TDM_OK) {
        ceil->device_best = ceil->host_best = 0;
        for (unsigned i = 0; i < o->repeat && s == TDM_OK; i++) {
            double seconds;
            s = ceilings_time(ceil);
            if (s == TDM_OK)
                s = conf_launch_timed(&prepared, &seconds);
            if (s == TDM_OK)
                bench_keep_best(&best, seconds);
            if (s == TDM_OK && o->back_to_back)
                s = conf_launches_timed(&prepared, o->back_to_back, &seconds);
            if (s == TDM_OK && o->back_to_back)
                bench_keep_best(&b2b_best, seconds / o->back_to_back);
        }
        if (s == TDM_OK) {
            row->gbs = bytes_moved(&c, &in) / best / 1e9;
            row->ms = best * 1e3;
            row->b2b_gbs = b2b_best > 0 ? bytes_moved(&c, &in) / b2b_best / 1e9 : 0;
            row->b2b_ms = b2b_best * 1e3;
            row->device_copy_gbs = 2.0 * (double)o->bytes / ceil->device_best / 1e9;
            row->memcpy_gbs = 2.0 * (double)o->bytes / ceil->host_best / 1e9;
        }
        conf_release(&prepared);
    }
    conf_buffers_free(&in);
    return s;
}

/* The kernels named, or every one the run times; -1 after printing why. */
static int select_kernels(const kb_options *o, tdm_kernel *out)
{
    int count = 0;
    for (int k = 0; k < TDM_KERNEL_COUNT && o->kernels.count == 0; k++)
        if (timed(tdm_kernel_get((tdm_kernel)k), o))
            out[count++] = (tdm_kernel)k;
    for (size_t i = 0; i < o->kernels.count; i++) {
        tdm_kernel k = tdm_kernel_find(o->kernels.item[i]);
        if (k == TDM_KERNEL_COUNT || !timed(tdm_kernel_get(k), o)) {
            fprintf(stderr, "tandem bench kernels: '%s' is not a %s kernel\n", o->kernels.item[i],
                    o->image[0] ? "convolution or pooling" : "memory-bound");
            return -1;
        }
        out[count++] = k;
    }
    return count;
}

static void json_row(json_writer *w, const void *rows, size_t i)
{
    const kb_row *r = (const kb_row *)rows + i;
    json_begin_object(w, NULL);
    json_string(w, "device", r->device);
    json_string(w, "kernel", r->kernel);
    json_double(w, "gbs", r->gbs);
    json_double(w, "device_copy_gbs", r->device_copy_gbs);
    json_double(w, "memcpy_gbs", r->memcpy_gbs);
    json_double(w, "ms", r->ms);
    json_double(w, "b2b_gbs", r->b2b_gbs);
    json_double(w, "b2b_ms", r->b2b_ms);
    json_end_object(w);
}

/* Prints a device's rows into rows; returns how many kernels could not run. */
static int bench_device(tdm_device *dev, const tdm_kernel *kernels, int count, const kb_options *o,
                        kb_row *rows)
{
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    tdm_device_describe(dev, &desc);
    printf("%s (%s): %zu bytes per buffer, best of %u, alternating with the ceilings\n", desc.id,
           desc.name, o->bytes, o->repeat);
    if (o->image[0])
        printf("  image %ux%ux%ux%u, window %ux%u, stride %u, SAME\n", o->image[0], o->image[1],
               o->image[2], o->image[3], o->window, o->window, o->stride);
    if (o->back_to_back)
        printf("  b2b: per launch of %u enqueued back to back before one wait\n", o->back_to_back);
    printf("  %-16s %8s %8s %9s %7s %8s %9s", "kernel", "ms", "GB/s", "dev copy", "of dev",
           "memcpy", "of memcpy");
    printf(o->back_to_back ? " %8s %8s\n" : "\n", "b2b ms", "b2b GB/s");
    ceilings ceil;
    tdm_status s = ceilings_begin(dev, o->bytes, &ceil);
    int missed = 0;
    for (int k = 0; k < count; k++) {
        kb_row *row = &rows[k];
        *row = (kb_row){.kernel = tdm_kernel_get(kernels[k])->name};
        snprintf(row->device, sizeof row->device, "%s", desc.id);
        if (s != TDM_OK || measure(&ceil, kernels[k], o, row) != TDM_OK) {
            printf("  %-16s %8s  %s\n", row->kernel, "n/a", tdm_last_error());
            missed++;
        } else {
            printf("  %-16s %8.3f %8.2f %9.2f %6.0f%% %8.2f %8.0f%%", row->kernel, row->ms,
                   row->gbs, row->device_copy_gbs, 100 * row->gbs / row->device_copy_gbs,
                   row->memcpy_gbs, 100 * row->gbs / row->memcpy_gbs);
            if (o->back_to_back)
                printf(" %8.3f %8.2f", row->b2b_ms, row->b2b_gbs);
            printf("\n");
        }
        fflush(stdout);
    }
    ceilings_end(&ceil);
    return missed;
}

int bench_kernels(int argc, char **argv)
{
    kb_options o;
    int rc;
    if (parse(argc, argv, &o, &rc))
        return rc;
    tdm_kernel kernels[TDM_KERNEL_COUNT];
    int count = select_kernels(&o, kernels);
    if (count < 0)
        return 2;
    tdm_context *ctx = cli_context();
    if (!ctx)
        return 1;
    tdm_device *reference, *devices[MAX_SELECTED];
    size_t device_count;
    kb_row *rows = NULL;
    rc = 2;
    if (cli_select_devices(ctx, &o.devices, &reference, devices, &device_count) == 0) {
        rows = calloc(device_count * (size_t)count + 1, sizeof *rows);
        rc = rows ? 0 : 1;
    }
    for (size_t d = 0; rows && d < device_count; d++)
        if (bench_device(devices[d], kernels, count, &o, &rows[d * (size_t)count]))
            rc = 1;
    if (rows && o.json_path &&
        bench_write_rows(o.json_path, json_row, rows, device_count * (size_t)count))
        rc = 1;
    free(rows);
    tdm_context_destroy(ctx);
    return rc;
}
