/* tandem conformance --perf: the bandwidth of each memory-bound kernel next to the
 * plain copy kernel on the same device, in the same run. GB/s counts the bytes read
 * plus the bytes written. Launches of the kernel and of copy alternate, and each
 * keeps its best time, so that load from elsewhere on a shared machine skews the
 * ratio as little as possible. */
#include <stdio.h>
#include <string.h>

#include "conformance_report.h"

#define PERF_ELEMENTS ((uint32_t)16 << 20) /* 64 MiB per float buffer */
#define PERF_REPEATS 10

static int memory_bound(const tdm_kernel_info *info)
{
    return info->grid == TDM_GRID_N || info->grid == TDM_GRID_PAIRS ||
           info->grid == TDM_GRID_CHUNKS;
}

/* Bytes one launch reads and writes. */
static double bytes_moved(const conf_case *c, const conf_buffers *bufs)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    uint64_t inputs = tdm_kernel_uint(info, c->u, "inputs");
    double bytes = 0;
    for (unsigned b = 0; b < info->buffer_count; b++) {
        const tdm_kernel_buffer *kb = &info->buffers[b];
        if (kb->optional && b > inputs)
            continue;
        double size = (double)bufs->elements[b] * tdm_kernel_type_size(kb->type);
        bytes += size * (kb->read + kb->written);
    }
    return bytes;
}

/* One kernel's data on the device, with its best time so far. */
typedef struct timed {
    conf_case c;
    conf_buffers in;
    conf_prepared prepared;
    double best;
} timed;

static int timed_begin(tdm_device *dev, tdm_kernel kernel, timed *t)
{
    t->c = conf_perf_case(kernel, PERF_ELEMENTS);
    t->best = 0;
    if (conf_buffers_make(&t->c, &t->in) != 0)
        return -1;
    if (conf_prepare(dev, &t->c, &t->in, &t->prepared) != TDM_OK) {
        conf_buffers_free(&t->in);
        return -1;
    }
    return 0;
}

static int timed_launch(timed *t)
{
    double seconds;
    if (conf_launch_timed(&t->prepared, &seconds) != TDM_OK)
        return -1;
    t->best = t->best == 0 || seconds < t->best ? seconds : t->best;
    return 0;
}

static double timed_gbs(const timed *t)
{
    return t->best > 0 ? bytes_moved(&t->c, &t->in) / t->best / 1e9 : -1;
}

static void timed_end(timed *t)
{
    conf_release(&t->prepared);
    conf_buffers_free(&t->in);
}

/* The kernel's GB/s and copy's, from alternating launches; -1 if it cannot run. */
static int measure(tdm_device *dev, tdm_kernel kernel, double *gbs, double *copy_gbs)
{
    timed k, copy;
    if (timed_begin(dev, kernel, &k) != 0)
        return -1;
    if (timed_begin(dev, TDM_KERNEL_copy, &copy) != 0) {
        timed_end(&k);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < PERF_REPEATS && rc == 0; i++)
        rc = timed_launch(&copy) | timed_launch(&k);
    *gbs = timed_gbs(&k);
    *copy_gbs = timed_gbs(&copy);
    timed_end(&k);
    timed_end(&copy);
    return rc;
}

/* Returns how many kernels could not be measured. */
static int perf_device(tdm_device *dev, const tdm_kernel *kernels, int kernel_count)
{
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    tdm_device_describe(dev, &desc);
    printf("%s (%s): %u elements, best of %d launches, alternating with copy\n", desc.id,
           desc.name, PERF_ELEMENTS, PERF_REPEATS);
    printf("  %-14s %9s %9s %8s\n", "kernel", "GB/s", "copy GB/s", "of copy");
    int missed = 0;
    for (int k = 0; k < kernel_count; k++) {
        const tdm_kernel_info *info = tdm_kernel_get(kernels[k]);
        double gbs, copy;
        if (!memory_bound(info))
            continue;
        if (measure(dev, kernels[k], &gbs, &copy) != 0 || gbs <= 0 || copy <= 0) {
            printf("  %-14s %9s  %s\n", info->name, "n/a", tdm_last_error());
            missed++;
        } else
            printf("  %-14s %9.2f %9.2f %7.0f%%\n", info->name, gbs, copy, 100 * gbs / copy);
        fflush(stdout);
    }
    return missed;
}

int conf_perf(const conf_suite *suite, const tdm_kernel *kernels, int kernel_count)
{
    int missed = 0;
    for (size_t d = 0; d < suite->device_count; d++)
        missed += perf_device(suite->devices[d], kernels, kernel_count);
    return missed ? 1 : 0;
}
