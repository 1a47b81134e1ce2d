/* Buffer round-trips, fills and copies on a set of devices chosen by argv[1]:
 *   reference       the reference device and two logical devices split from it
 *   opencl          every OpenCL device (PoCL x2: peers in one context) + 2 logical
 *   vulkan          the first Vulkan device
 *   vulkan-logical  the first Vulkan device split into two logical devices
 *   vulkan-two      two physical Vulkan devices (two copies of one ICD)
 *   mixed           reference + every OpenCL device + the first Vulkan device
 * argv[2] is the number of physical devices the environment must provide, so a
 * missing driver fails the test instead of shrinking it. Copies run between every
 * ordered pair of the set, the same device included. An optional argv[3],
 * host-import or no-host-import, checks from the Vulkan devices' DEBUG log that
 * host reads did (and also staged the unaligned rest) or did not import host
 * memory; writes always stage. A free and a small write wait for no device. */
#include <stdlib.h>

#include "harness.h"

#define MAX_SET 16
#define MIB ((size_t)1 << 20)

/* 3 MiB + 5 is over the Vulkan host-import threshold but not aligned: part of a
 * read is imported, part staged. */
static const size_t sizes[] = {0, 1, 4097, 3 * MIB + 5, 64 * MIB};
#define SIZE_COUNT (sizeof sizes / sizeof sizes[0])

static unsigned char *host_alloc(size_t size)
{
    unsigned char *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    return p;
}

/* Writes random bytes at an offset, reads them back, and checks the bytes around
 * the range were not touched. */
static void check_round_trip(tdm_device *dev, size_t size, unsigned seed)
{
    const size_t offset = 3, total = size + 2 * offset;
    unsigned char *data = host_alloc(total), *back = host_alloc(total);
    memset(data, 0x5A, total);
    test_random_bytes(data + offset, size, seed);
    tdm_buffer *buf;
    CHECK_OK(tdm_buffer_alloc(dev, total, &buf));
    if (!buf)
        goto out;
    CHECK_OK(tdm_buffer_fill(buf, 0, &(unsigned char){0x5A}, 1, total));
    CHECK_OK(tdm_buffer_write(buf, offset, data + offset, size));
    CHECK_OK(tdm_buffer_read(buf, 0, back, total));
    CHECK(memcmp(data, back, total) == 0);
    CHECK_OK(tdm_buffer_read(buf, offset, back, size)); /* a read at an offset */
    CHECK(memcmp(data + offset, back, size) == 0);
    tdm_buffer_free(buf);
out:
    free(data);
    free(back);
}

static void expect_fill(unsigned char *expect, size_t offset, const unsigned char *pattern,
                        size_t pattern_size, size_t size)
{
    for (size_t i = 0; i < size; i++)
        expect[offset + i] = pattern[i % pattern_size];
}

/* Every pattern size at several offsets and lengths, unaligned ones included; the
 * 160 MiB case passes lavapipe's 128 MiB storage-buffer binding limit. */
static void check_fills(tdm_device *dev, size_t big)
{
    const size_t total = big ? big : 4096 + 64;
    unsigned char *expect = host_alloc(total), *back = host_alloc(total);
    unsigned char pattern[64];
    test_random_bytes(pattern, sizeof pattern, 7);
    tdm_buffer *buf;
    CHECK_OK(tdm_buffer_alloc(dev, total, &buf));
    if (!buf)
        goto out;
    memset(expect, 0, total);
    CHECK_OK(tdm_buffer_fill(buf, 0, &(unsigned char){0}, 1, total));
    for (size_t p = 1; p <= 64; p *= 2) {
        size_t offset = big ? 0 : p * 3, size = big ? total - p : p * (p < 4 ? 1001 : 37);
        size = size / p * p;
        CHECK_OK(tdm_buffer_fill(buf, offset, pattern, p, size));
        expect_fill(expect, offset, pattern, p, size);
        CHECK_OK(tdm_device_finish(dev));
        CHECK_OK(tdm_buffer_read(buf, 0, back, total));
        if (memcmp(expect, back, total) != 0)
            fprintf(stderr, "fill with a %zu-byte pattern at %zu (+%zu) is wrong\n", p, offset,
                    size);
        CHECK(memcmp(expect, back, total) == 0);
    }
    tdm_buffer_free(buf);
out:
    free(expect);
    free(back);
}

/* Copies `size` bytes from a buffer on `from` (at offset 5) to one on `to` (at 2);
 * the bytes around the destination range must keep their sentinel. */
static void check_copy(tdm_device *to, tdm_device *from, size_t size, unsigned seed)
{
    const size_t src_total = size + 8, dst_total = size + 4;
    unsigned char *data = host_alloc(src_total), *expect = host_alloc(dst_total),
                  *back = host_alloc(dst_total);
    test_random_bytes(data, src_total, seed);
    memset(expect, 0xAB, dst_total);
    memcpy(expect + 2, data + 5, size);
    tdm_buffer *src = NULL, *dst = NULL;
    CHECK_OK(tdm_buffer_alloc(from, src_total, &src));
    CHECK_OK(tdm_buffer_alloc(to, dst_total, &dst));
    if (src && dst) {
        CHECK_OK(tdm_buffer_write(src, 0, data, src_total));
        CHECK_OK(tdm_buffer_fill(dst, 0, &(unsigned char){0xAB}, 1, dst_total));
        tdm_buffer_view d = {dst, 2, size}, s = {src, 5, size};
        CHECK_OK(tdm_buffer_copy(&d, &s));
        CHECK_OK(tdm_device_finish(to));
        CHECK_OK(tdm_buffer_read(dst, 0, back, dst_total));
        CHECK(memcmp(expect, back, dst_total) == 0);
    }
    tdm_buffer_free(src);
    tdm_buffer_free(dst);
    free(data);
    free(expect);
    free(back);
}

/* Two non-overlapping ranges of one buffer, then a copy whose source is written
 * again right after: the copy must have read the old bytes. */
static void check_copy_ordering(tdm_device *to, tdm_device *from)
{
    const size_t n = 1 << 20;
    unsigned char *old_bytes = host_alloc(n), *new_bytes = host_alloc(n), *back = host_alloc(n);
    test_random_bytes(old_bytes, n, 11);
    test_random_bytes(new_bytes, n, 12);
    tdm_buffer *src = NULL, *dst = NULL;
    CHECK_OK(tdm_buffer_alloc(from, 2 * n, &src));
    CHECK_OK(tdm_buffer_alloc(to, n, &dst));
    if (src && dst) {
        CHECK_OK(tdm_buffer_write(src, 0, old_bytes, n));
        tdm_buffer_view upper = {src, n, n}, lower = {src, 0, n}, whole = {dst, 0, n};
        CHECK_OK(tdm_buffer_copy(&upper, &lower));
        CHECK_OK(tdm_buffer_copy(&whole, &upper));
        CHECK_OK(tdm_buffer_write(src, n, new_bytes, n));
        CHECK_OK(tdm_device_finish(to));
        CHECK_OK(tdm_buffer_read(dst, 0, back, n));
        CHECK(memcmp(back, old_bytes, n) == 0);
    }
    tdm_buffer_free(src);
    tdm_buffer_free(dst);
    free(old_bytes);
    free(new_bytes);
    free(back);
}

/* After a long fill, an event must report completion once waited for: a wait that
 * returned early would leave the query saying "not done". */
static void check_events(tdm_device *dev)
{
    const size_t size = 64 * MIB;
    tdm_buffer *buf;
    CHECK_OK(tdm_buffer_alloc(dev, size, &buf));
    if (!buf)
        return;
    CHECK_OK(tdm_buffer_fill(buf, 0, &(uint32_t){42}, 4, size));
    CHECK_OK(tdm_buffer_fill(buf, 0, &(uint64_t){0x2A0000002Aull}, 8, size));
    tdm_event *event = NULL;
    CHECK_OK(tdm_device_record_event(dev, &event));
    CHECK_OK(tdm_event_wait(event));
    int done = 0;
    CHECK_OK(tdm_event_query(event, &done));
    CHECK(done == 1);
    uint32_t last;
    CHECK_OK(tdm_buffer_read(buf, size - 4, &last, 4));
    CHECK(last == 42);
    tdm_event_destroy(event);
    tdm_buffer_free(buf);
}

/* A free does not wait for the device: the source of a copy still in the queue is
 * freed without a host wait, and the copy still reads its bytes (on Vulkan the
 * validation layer sees a buffer destroyed while a command uses it). A buffer
 * allocated next, filled with other bytes, must not change what the copy read. */
static void check_free_no_wait(tdm_device *dev)
{
    const size_t size = 4 * MIB;
    unsigned char *data = host_alloc(size), *back = host_alloc(size);
    test_random_bytes(data, size, 21);
    tdm_buffer *src = NULL, *dst = NULL, *next = NULL;
    CHECK_OK(tdm_buffer_alloc(dev, size, &src));
    CHECK_OK(tdm_buffer_alloc(dev, size, &dst));
    if (src && dst) {
        CHECK_OK(tdm_buffer_write(src, 0, data, size));
        tdm_buffer_view to = {dst, 0, size}, from = {src, 0, size};
        CHECK_OK(tdm_buffer_copy(&to, &from));
        tdm_device_counters before = TDM_DEVICE_COUNTERS_INIT, after = TDM_DEVICE_COUNTERS_INIT;
        CHECK_OK(tdm_device_read_counters(dev, &before));
        tdm_buffer_free(src);
        src = NULL;
        CHECK_OK(tdm_device_read_counters(dev, &after));
        CHECK(after.host_waits == before.host_waits);
        CHECK_OK(tdm_buffer_alloc(dev, size, &next));
        if (next)
            CHECK_OK(tdm_buffer_fill(next, 0, &(uint32_t){0x5A5A5A5Au}, 4, size));
        CHECK_OK(tdm_buffer_read(dst, 0, back, size));
        CHECK(memcmp(back, data, size) == 0);
    }
    tdm_buffer_free(next);
    tdm_buffer_free(dst);
    tdm_buffer_free(src);
    free(data);
    free(back);
}

/* A write of an input batch's size returns without waiting for the device, and the
 * caller's bytes are free on return: they are scrambled and freed at once (AddressSanitizer
 * sees a write that reads them later). A copy that reads the first write and a second
 * write to the same range stay in the order they were issued. */
static void check_write_no_wait(tdm_device *dev)
{
    const size_t n = 64 << 10;
    unsigned char *first = host_alloc(n), *second = host_alloc(n), *expect = host_alloc(n),
                  *back = host_alloc(n);
    test_random_bytes(first, n, 31);
    memcpy(expect, first, n);
    test_random_bytes(second, n, 32);
    tdm_buffer *buf = NULL, *copy = NULL;
    CHECK_OK(tdm_buffer_alloc(dev, n, &buf));
    CHECK_OK(tdm_buffer_alloc(dev, n, &copy));
    if (buf && copy) {
        tdm_device_counters before = TDM_DEVICE_COUNTERS_INIT, after = TDM_DEVICE_COUNTERS_INIT;
        CHECK_OK(tdm_device_read_counters(dev, &before));
        CHECK_OK(tdm_buffer_write(buf, 0, first, n));
        memset(first, 0xA5, n);
        free(first);
        first = NULL;
        tdm_buffer_view to = {copy, 0, n}, from = {buf, 0, n};
        CHECK_OK(tdm_buffer_copy(&to, &from));
        CHECK_OK(tdm_buffer_write(buf, 0, second, n));
        CHECK_OK(tdm_device_read_counters(dev, &after));
#ifndef _WIN32 /* Wine's OpenCL has no event callbacks: its writes wait */
        CHECK(after.host_waits == before.host_waits);
#endif
        CHECK_OK(tdm_buffer_read(copy, 0, back, n));
        CHECK(memcmp(back, expect, n) == 0);
        CHECK_OK(tdm_buffer_read(buf, 0, back, n));
        CHECK(memcmp(back, second, n) == 0);
    }
    tdm_buffer_free(buf);
    tdm_buffer_free(copy);
    free(first);
    free(second);
    free(expect);
    free(back);
}

/* One byte over the device's single-allocation limit fails, naming the device. */
static void check_limits(tdm_device *dev)
{
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(dev, &desc));
    tdm_buffer *buf = NULL;
    if (desc.max_allocation < SIZE_MAX)
        CHECK_FAILS(tdm_buffer_alloc(dev, (size_t)desc.max_allocation + 1, &buf),
                    TDM_ERR_OUT_OF_MEMORY, desc.id);
    CHECK(buf == NULL);
}

/* Appends up to `max` physical devices of a backend to the set; returns how many. */
static size_t take(tdm_context *ctx, tdm_backend_kind backend, size_t max, tdm_device **set,
                   size_t *n)
{
    size_t k = test_devices_of(ctx, backend, set + *n, max);
    *n += k;
    return k;
}

/* Picks the devices of the scenario; returns how many physical ones were found. */
static size_t pick(tdm_context *ctx, const char *scenario, tdm_device **set, size_t *n)
{
    int mixed = !strcmp(scenario, "mixed");
    size_t physical = 0;
    *n = 0;
    if (mixed || !strcmp(scenario, "reference"))
        physical += take(ctx, TDM_BACKEND_REFERENCE, 1, set, n);
    if (mixed || !strcmp(scenario, "opencl"))
        physical += take(ctx, TDM_BACKEND_OPENCL, MAX_SET / 2, set, n);
    if (mixed || !strncmp(scenario, "vulkan", 6))
        physical += take(ctx, TDM_BACKEND_VULKAN, strcmp(scenario, "vulkan-two") ? 1 : 2, set, n);
    return physical;
}

/* Logical devices split from the first device join the set where they add a path:
 * peers in one OpenCL context, separate VkDevices on one Vulkan device. */
static void add_logical(const char *scenario, tdm_device **set, size_t *n)
{
    int split = !strcmp(scenario, "reference") || !strcmp(scenario, "opencl") ||
                !strcmp(scenario, "vulkan-logical");
    if (!split || *n == 0)
        return;
    tdm_device *logical[2];
    CHECK_OK(tdm_device_split(set[0], 2, logical));
    if (!strcmp(scenario, "vulkan-logical"))
        *n = 0; /* the two logical devices stand in for their parent */
    set[(*n)++] = logical[0];
    set[(*n)++] = logical[1];
}

/* Host-transfer bytes by path, summed over the devices' closing DEBUG lines. */
static unsigned long long imported_bytes, staged_bytes;

static void log_and_count(tdm_log_level level, const char *message, void *user_data)
{
    (void)user_data;
    unsigned long long imported = 0, staged = 0;
    const char *counts = strstr(message, "host transfers: ");
    if (counts && sscanf(counts, "host transfers: %llu bytes imported, %llu staged", &imported,
                         &staged) == 2) {
        imported_bytes += imported;
        staged_bytes += staged;
    }
    if (level >= TDM_LOG_INFO)
        fprintf(stderr, "[tandem %d] %s\n", (int)level, message);
}

static tdm_context *debug_context(void)
{
    tdm_context_options opts = TDM_CONTEXT_OPTIONS_INIT;
    opts.backends = TDM_BACKENDS_ALL;
    opts.log = log_and_count;
    opts.log_level = TDM_LOG_DEBUG;
    tdm_context *ctx;
    if (tdm_context_create(&opts, &ctx) != TDM_OK) {
        fprintf(stderr, "cannot create a context: %s\n", tdm_last_error());
        exit(1);
    }
    return ctx;
}

/* Run after the context is gone: devices log their counts as they close. */
static void check_host_import(const char *mode)
{
    fprintf(stderr, "host transfers: %llu bytes imported, %llu staged\n", imported_bytes,
            staged_bytes);
    CHECK(!strcmp(mode, "host-import") || !strcmp(mode, "no-host-import"));
    CHECK(staged_bytes > 0);
    if (!strcmp(mode, "host-import"))
        CHECK(imported_bytes > 0);
    else
        CHECK(imported_bytes == 0);
}

void test_case_buffers(const test_run *run)
{
    const char *scenario = run->argv[0];
    tdm_context *ctx = run->argc == 3 ? debug_context() : test_context(TDM_BACKENDS_ALL);
    tdm_device *set[MAX_SET];
    size_t n, physical = pick(ctx, scenario, set, &n);
    size_t expected = strtoul(run->argv[1], NULL, 10);
    if (physical != expected) {
        fprintf(stderr, "scenario %s: found %zu physical device(s), expected %zu\n", scenario,
                physical, expected);
        tdm_context_destroy(ctx);
        test_failures++;
        return;
    }
    if (!strcmp(scenario, "vulkan-two")) { /* one driver twice: the same hardware */
        tdm_device_desc first = TDM_DEVICE_DESC_INIT, second = TDM_DEVICE_DESC_INIT;
        CHECK_OK(tdm_device_describe(set[0], &first));
        CHECK_OK(tdm_device_describe(set[1], &second));
        CHECK(first.has_uuid && second.same_hardware_as == (int)tdm_device_index(set[0]));
    }
    add_logical(scenario, set, &n);
    for (size_t i = 0; i < n; i++) {
        for (size_t s = 0; s < SIZE_COUNT; s++)
            check_round_trip(set[i], sizes[s], (unsigned)(i * 10 + s));
        check_fills(set[i], 0);
        check_events(set[i]);
        check_free_no_wait(set[i]);
        check_write_no_wait(set[i]);
        check_limits(set[i]);
    }
    if (!strncmp(scenario, "vulkan", 6))
        check_fills(set[0], 160 * MIB);
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) {
            for (size_t s = 0; s < SIZE_COUNT; s++)
                check_copy(set[a], set[b], sizes[s], (unsigned)(a * 100 + b * 10 + s));
            check_copy_ordering(set[a], set[b]);
        }
    CHECK(tdm_context_validation_messages(ctx) == 0);
    tdm_context_destroy(ctx);
    if (run->argc == 3)
        check_host_import(run->argv[2]);
}
