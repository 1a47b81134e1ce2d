/* tandem conformance --perf: the bandwidth of each memory-bound kernel next to the
 * plain copy kernel on the same device, in the same run. GB/s counts the bytes read
 * plus the bytes written. */
#include <stdio.h>
#include <string.h>

#include "conformance_report.h"

#define PERF_ELEMENTS ((uint32_t)16 << 20) /* 64 MiB per float buffer */
#define PERF_REPEATS 5

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

/* GB/s of the kernel on dev, or a negative value if it did not run. */
static double measure(tdm_device *dev, tdm_kernel kernel)
{
    conf_case c = conf_perf_case(kernel, PERF_ELEMENTS);
    conf_buffers in;
    if (conf_buffers_make(&c, &in) != 0)
        return -1;
    double seconds = 0;
    tdm_status s = conf_time(dev, &c, &in, PERF_REPEATS, &seconds);
    double gbs = s == TDM_OK && seconds > 0 ? bytes_moved(&c, &in) / seconds / 1e9 : -1;
    conf_buffers_free(&in);
    return gbs;
}

static void perf_device(tdm_device *dev, const tdm_kernel *kernels, int kernel_count)
{
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    tdm_device_describe(dev, &desc);
    double copy = measure(dev, TDM_KERNEL_copy);
    printf("%s (%s): %u elements, best of %d launches\n", desc.id, desc.name, PERF_ELEMENTS,
           PERF_REPEATS);
    printf("  %-14s %10s %9s\n", "kernel", "GB/s", "of copy");
    for (int k = 0; k < kernel_count; k++) {
        const tdm_kernel_info *info = tdm_kernel_get(kernels[k]);
        if (!memory_bound(info))
            continue;
        double gbs = kernels[k] == TDM_KERNEL_copy ? copy : measure(dev, kernels[k]);
        if (gbs < 0 || copy <= 0)
            printf("  %-14s %10s\n", info->name, "n/a");
        else
            printf("  %-14s %10.2f %8.0f%%\n", info->name, gbs, 100 * gbs / copy);
        fflush(stdout);
    }
}

int conf_perf(const conf_suite *suite, const tdm_kernel *kernels, int kernel_count)
{
    for (size_t d = 0; d < suite->device_count; d++)
        perf_device(suite->devices[d], kernels, kernel_count);
    return 0;
}
