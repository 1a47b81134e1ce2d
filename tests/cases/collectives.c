/* Cross-device collectives on a set of devices chosen by argv[1]:
 *   reference       the reference device split into 3 logical devices
 *   opencl          every OpenCL device (PoCL x2: one context) + 2 logical of the first
 *   vulkan-logical  the first Vulkan device split into 2 logical devices
 *   vulkan-two      two physical Vulkan devices (two copies of one ICD)
 *   mixed           reference + every OpenCL device + the first Vulkan device
 * argv[2] is the number of physical devices the environment must provide. Every
 * result must equal the host's fold in replica order bit for bit, whatever the
 * algorithm; float16 sums too, each partial rounded to float16. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/half_bits.h"
#include "collective/collectives.h"
#include "harness.h"

#define MAX_SET 8
#define GUARD 4 /* bytes before each view */

typedef struct dev_set {
    tdm_device *dev[MAX_SET];
    size_t n;
    int shares; /* every device reaches every other's memory: DIRECT works */
} dev_set;

static const tdm_collective_algorithm algorithms[] = {
    TDM_COLLECTIVE_AUTO, TDM_COLLECTIVE_ONE_DEVICE, TDM_COLLECTIVE_RING,
    TDM_COLLECTIVE_TREE, TDM_COLLECTIVE_DIRECT,     TDM_COLLECTIVE_HOST};
#define ALGORITHM_COUNT (sizeof algorithms / sizeof algorithms[0])
static const tdm_reduce_op ops[] = {TDM_REDUCE_SUM, TDM_REDUCE_MEAN, TDM_REDUCE_MAX,
                                    TDM_REDUCE_MIN};
static const size_t sizes[] = {4, 4 * 4097, 4 * ((size_t)1 << 20) + 12};

static void *host_alloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    return p;
}

/* Small integers (every order exact) or floats of widely varying magnitude. */
static void make_data(float *x, size_t n, unsigned seed, int integer)
{
    uint32_t *bits = host_alloc(n * sizeof *bits);
    test_random_bytes(bits, n * sizeof *bits, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = integer ? (float)((int)(bits[i] % 201) - 100)
                       : ldexpf((float)(bits[i] >> 8) * 0x1p-24f - 0.5f, (int)(bits[i] % 21) - 10);
    free(bits);
}

static float apply(tdm_reduce_op op, float a, float b)
{
    if (op == TDM_REDUCE_SUM || op == TDM_REDUCE_MEAN)
        return a + b;
    if (isnan(a) || isnan(b))
        return NAN;
    return op == TDM_REDUCE_MAX ? (a > b ? a : b) : (a < b ? a : b);
}

/* The host fold in replica order, in float. */
static void host_fold(tdm_reduce_op op, float *const *in, size_t count, size_t n, float *out)
{
    for (size_t e = 0; e < n; e++) {
        float acc = in[0][e];
        for (size_t i = 1; i < count; i++)
            acc = apply(op, acc, in[i][e]);
        out[e] = op == TDM_REDUCE_MEAN ? acc * (float)(1.0 / (double)count) : acc;
    }
}

/* Bitwise equal, any NaN matching any NaN; prints the first difference. */
static int same(const float *got, const float *want, size_t n, const char *what)
{
    for (size_t e = 0; e < n; e++)
        if (memcmp(&got[e], &want[e], 4) && !(isnan(got[e]) && isnan(want[e]))) {
            fprintf(stderr, "%s: element %zu of %zu is %a, expected %a\n", what, e, n,
                    (double)got[e], (double)want[e]);
            return 0;
        }
    return 1;
}

/* One buffer per device with the view GUARD bytes in. */
typedef struct tensors {
    tdm_buffer *buf[MAX_SET];
    tdm_buffer_view view[MAX_SET];
    float *host[MAX_SET];
    size_t n, count;
} tensors;

static void tensors_make(tensors *t, tdm_device *const *devs, size_t count, size_t size)
{
    memset(t, 0, sizeof *t);
    t->n = size / 4;
    t->count = count;
    for (size_t i = 0; i < count; i++) {
        CHECK_OK(tdm_buffer_alloc(devs[i], size + GUARD, &t->buf[i]));
        t->view[i] = (tdm_buffer_view){t->buf[i], GUARD, size};
        t->host[i] = host_alloc(size);
    }
}

static void tensors_upload(const tensors *t)
{
    for (size_t i = 0; i < t->count; i++)
        CHECK_OK(tdm_buffer_write(t->buf[i], GUARD, t->host[i], t->n * 4));
}

/* Every view holds want. */
static void tensors_expect(const tensors *t, const float *want, const char *what)
{
    float *got = host_alloc(t->n * 4);
    for (size_t i = 0; i < t->count; i++) {
        CHECK_OK(tdm_buffer_read(t->buf[i], GUARD, got, t->n * 4));
        CHECK(same(got, want, t->n, what));
    }
    free(got);
}

static void tensors_free(tensors *t)
{
    for (size_t i = 0; i < t->count; i++) {
        tdm_buffer_free(t->buf[i]);
        free(t->host[i]);
    }
}

static tdm_collective_options options_for(tdm_collective_algorithm algorithm)
{
    tdm_collective_options o = TDM_COLLECTIVE_OPTIONS_INIT;
    o.algorithm = algorithm;
    return o;
}

/* Runs every algorithm on the same inputs; each must give the host's fold. */
static void check_all_reduce(const dev_set *set, tdm_reduce_op op, size_t size, int integer,
                             int with_nan)
{
    tensors t;
    tensors_make(&t, set->dev, set->n, size);
    for (size_t i = 0; i < set->n; i++)
        make_data(t.host[i], t.n, (unsigned)(size + 7 * i + integer), integer);
    if (with_nan)
        t.host[set->n - 1][t.n / 2] = NAN;
    float *want = host_alloc(size);
    host_fold(op, t.host, set->n, t.n, want);
    for (size_t a = 0; a < ALGORITHM_COUNT; a++) {
        char what[96];
        snprintf(what, sizeof what, "all-reduce algorithm %d op %d, %zu bytes, %s%s",
                 (int)algorithms[a], (int)op, size, integer ? "integers" : "random",
                 with_nan ? " + NaN" : "");
        tensors_upload(&t);
        tdm_collective_options o = options_for(algorithms[a]);
        tdm_status s = tdm_all_reduce(op, t.view, set->n, &o);
        if (algorithms[a] == TDM_COLLECTIVE_DIRECT && !set->shares) {
            CHECK_FAILS(s, TDM_ERR_UNSUPPORTED, "share memory");
            continue;
        }
        CHECK_OK(s);
        tensors_expect(&t, want, what);
    }
    if (with_nan)
        CHECK(isnan(want[t.n / 2]));
    free(want);
    tensors_free(&t);
}

/* The host fold of float16 values in replica order: each partial sum rounded to
 * float16, the additions and MEAN's scaling in float. */
static void host_fold_halves(tdm_reduce_op op, uint16_t *const *in, size_t count, size_t n,
                             uint16_t *out)
{
    for (size_t e = 0; e < n; e++) {
        float acc = tdm_f32_from_f16(in[0][e]);
        for (size_t i = 1; i < count; i++)
            acc = tdm_f32_from_f16(tdm_f16_from_f32(acc + tdm_f32_from_f16(in[i][e])));
        out[e] = tdm_f16_from_f32(op == TDM_REDUCE_MEAN ? acc * (float)(1.0 / (double)count) : acc);
    }
}

/* Every view holds want's bits. */
static void tensors_expect_bits(const tensors *t, const void *want, const char *what)
{
    uint16_t *got = host_alloc(t->n * 4);
    const uint16_t *w = want;
    for (size_t i = 0; i < t->count; i++) {
        CHECK_OK(tdm_buffer_read(t->buf[i], GUARD, got, t->n * 4));
        for (size_t e = 0; e < 2 * t->n; e++)
            if (got[e] != w[e]) {
                fprintf(stderr, "%s: value %zu, half %zu of %zu is 0x%04x, expected 0x%04x\n", what,
                        i, e, 2 * t->n, got[e], w[e]);
                CHECK(got[e] == w[e]);
                break;
            }
    }
    free(got);
}

/* Float16 SUM and MEAN by every algorithm give the host's fold of halves: values of
 * widely varying magnitude, subnormals among them, and one element whose sum passes
 * 65504 (infinity). */
static void check_all_reduce_f16(const dev_set *set, tdm_reduce_op op, size_t size)
{
    tensors t;
    tensors_make(&t, set->dev, set->n, size);
    size_t halves = 2 * t.n;
    float *x = host_alloc(halves * sizeof *x);
    uint16_t *in[MAX_SET];
    for (size_t i = 0; i < set->n; i++) {
        make_data(x, halves, (unsigned)(size + 11 * i), 0);
        in[i] = (uint16_t *)(void *)t.host[i];
        for (size_t e = 0; e < halves; e++)
            in[i][e] = tdm_f16_from_f32(e == halves - 1 ? 40000.0f : x[e]);
    }
    uint16_t *want = host_alloc(size);
    host_fold_halves(op, in, set->n, halves, want);
    if (op == TDM_REDUCE_SUM)
        CHECK(want[halves - 1] == 0x7C00); /* +infinity */
    tdm_collective_options o = TDM_COLLECTIVE_OPTIONS_INIT;
    o.dtype = TDM_F16;
    for (size_t a = 0; a < ALGORITHM_COUNT; a++) {
        char what[96];
        snprintf(what, sizeof what, "f16 all-reduce algorithm %d op %d, %zu bytes",
                 (int)algorithms[a], (int)op, size);
        tensors_upload(&t);
        o.algorithm = algorithms[a];
        tdm_status s = tdm_all_reduce(op, t.view, set->n, &o);
        if (algorithms[a] == TDM_COLLECTIVE_DIRECT && !set->shares) {
            CHECK_FAILS(s, TDM_ERR_UNSUPPORTED, "share memory");
            continue;
        }
        CHECK_OK(s);
        tensors_expect_bits(&t, want, what);
    }
    o.algorithm = TDM_COLLECTIVE_AUTO;
    CHECK_FAILS(tdm_all_reduce(TDM_REDUCE_MAX, t.view, set->n, &o), TDM_ERR_UNSUPPORTED, "float16");
    o.dtype = TDM_I32;
    CHECK_FAILS(tdm_all_reduce(op, t.view, set->n, &o), TDM_ERR_INVALID_ARGUMENT, "dtype");
    free(x);
    free(want);
    tensors_free(&t);
}

/* Values on all devices but the last; destinations on the last (holding no value)
 * and the first. MEAN divides by the number of values; the values stay unchanged. */
static void check_reduce_to(const dev_set *set, tdm_reduce_op op)
{
    const size_t size = 4 * 4097, count = set->n - 1;
    tensors values, dsts;
    tensors_make(&values, set->dev, count, size);
    tdm_device *dst_devs[2] = {set->dev[set->n - 1], set->dev[0]};
    tensors_make(&dsts, dst_devs, 2, size);
    for (size_t i = 0; i < count; i++)
        make_data(values.host[i], values.n, (unsigned)(11 * i + 3), 0);
    tensors_upload(&values);
    float *want = host_alloc(size);
    host_fold(op, values.host, count, values.n, want);
    for (size_t a = 0; a < ALGORITHM_COUNT; a++) {
        tdm_collective_options o = options_for(algorithms[a]);
        o.reduce_on = (int)(count - 1);
        tdm_status s = tdm_reduce_to(op, values.view, count, dsts.view, 2, &o);
        if (algorithms[a] == TDM_COLLECTIVE_DIRECT && !set->shares && count > 1) {
            CHECK_FAILS(s, TDM_ERR_UNSUPPORTED, "share memory");
            continue;
        }
        CHECK_OK(s);
        tensors_expect(&dsts, want, "reduce_to");
        CHECK_OK(tdm_reduce_to(op, values.view, count, dsts.view + 1, 1, &o)); /* a subset */
    }
    for (size_t i = 0; i < count; i++) { /* the values are inputs only */
        float *back = host_alloc(size);
        CHECK_OK(tdm_buffer_read(values.buf[i], GUARD, back, size));
        CHECK(same(back, values.host[i], values.n, "reduce_to input"));
        free(back);
    }
    free(want);
    tensors_free(&values);
    tensors_free(&dsts);
}

static void check_broadcast(const dev_set *set)
{
    tensors t;
    tensors_make(&t, set->dev, set->n, 4 * 4097);
    make_data(t.host[0], t.n, 5, 0);
    CHECK_OK(tdm_buffer_write(t.buf[0], GUARD, t.host[0], t.n * 4));
    CHECK_OK(tdm_broadcast(&t.view[0], t.view + 1, set->n - 1));
    tensors_expect(&t, t.host[0], "broadcast");
    tensors_free(&t);
}

/* Five tensors of odd sizes under each packing equal each tensor all-reduced alone. */
static void check_batch(const dev_set *set)
{
    enum { TENSORS = 5 };
    static const size_t elements[TENSORS] = {1, 333, 2500, 7, 4097};
    tdm_packing even = TDM_PACKING_INIT, greedy = TDM_PACKING_INIT;
    even.num_packs = 2;
    greedy.bytes_per_pack = 10000;
    const tdm_packing *packings[] = {&even, &greedy, NULL};
    tensors t[TENSORS];
    float *want[TENSORS];
    tdm_buffer_view views[TENSORS * MAX_SET];
    for (size_t k = 0; k < TENSORS; k++) {
        tensors_make(&t[k], set->dev, set->n, elements[k] * 4);
        for (size_t i = 0; i < set->n; i++) {
            make_data(t[k].host[i], t[k].n, (unsigned)(100 * k + i), 0);
            views[k * set->n + i] = t[k].view[i];
        }
        want[k] = host_alloc(elements[k] * 4);
        host_fold(TDM_REDUCE_MEAN, t[k].host, set->n, t[k].n, want[k]);
    }
    for (size_t p = 0; p < sizeof packings / sizeof packings[0]; p++) {
        for (size_t k = 0; k < TENSORS; k++)
            tensors_upload(&t[k]);
        CHECK_OK(tdm_batch_all_reduce(TDM_REDUCE_MEAN, views, TENSORS, set->n, packings[p], NULL));
        for (size_t k = 0; k < TENSORS; k++)
            tensors_expect(&t[k], want[k], "batch_all_reduce");
    }
    for (size_t k = 0; k < TENSORS; k++) {
        tensors_free(&t[k]);
        free(want[k]);
    }
}

static void check_bad_arguments(const dev_set *set)
{
    const tdm_reduce_op sum = TDM_REDUCE_SUM;
    tensors t;
    tensors_make(&t, set->dev, set->n, 64);
    tdm_buffer_view v[2] = {t.view[0], t.view[1]};
    CHECK_FAILS(tdm_all_reduce(sum, NULL, 2, NULL), TDM_ERR_INVALID_ARGUMENT, "'values'");
    CHECK_FAILS(tdm_all_reduce(sum, v, 0, NULL), TDM_ERR_INVALID_ARGUMENT, "'count'");
    CHECK_FAILS(tdm_all_reduce((tdm_reduce_op)9, v, 2, NULL), TDM_ERR_INVALID_ARGUMENT, "'op'");
    v[1].size = 60;
    CHECK_FAILS(tdm_all_reduce(sum, v, 2, NULL), TDM_ERR_INVALID_ARGUMENT, "values[1]");
    v[0].size = v[1].size = 62;
    CHECK_FAILS(tdm_all_reduce(sum, v, 2, NULL), TDM_ERR_INVALID_ARGUMENT, "multiple of 4");
    v[0] = v[1] = t.view[0];
    CHECK_FAILS(tdm_all_reduce(sum, v, 2, NULL), TDM_ERR_INVALID_ARGUMENT, "both on");
    v[1] = t.view[1];
    tdm_collective_options o = TDM_COLLECTIVE_OPTIONS_INIT;
    o.reduce_on = 2;
    CHECK_FAILS(tdm_all_reduce(sum, v, 2, &o), TDM_ERR_INVALID_ARGUMENT, "reduce_on");
    CHECK_FAILS(tdm_reduce_to(sum, v, 2, t.view, 0, NULL), TDM_ERR_INVALID_ARGUMENT, "'dst_count'");
    CHECK_FAILS(tdm_reduce_to(sum, v, 2, NULL, 1, NULL), TDM_ERR_INVALID_ARGUMENT, "'dsts'");
    CHECK_FAILS(tdm_broadcast(v, v + 1, 0), TDM_ERR_INVALID_ARGUMENT, "'dst_count'");
    CHECK_FAILS(tdm_broadcast(NULL, v, 1), TDM_ERR_INVALID_ARGUMENT, "'src'");
    CHECK_FAILS(tdm_batch_all_reduce(sum, v, 0, 2, NULL, NULL), TDM_ERR_INVALID_ARGUMENT,
                "'tensors'");
    tdm_buffer_view swapped[4] = {t.view[0], t.view[1], t.view[1], t.view[0]};
    CHECK_FAILS(tdm_batch_all_reduce(sum, swapped, 2, 2, NULL, NULL), TDM_ERR_INVALID_ARGUMENT,
                "device i");
    /* Checked once, by the batch: the message names the function the user called. */
    tdm_collective_options halves = TDM_COLLECTIVE_OPTIONS_INIT;
    halves.dtype = TDM_F16;
    CHECK_FAILS(tdm_batch_all_reduce(TDM_REDUCE_MAX, swapped, 1, 2, NULL, &halves),
                TDM_ERR_UNSUPPORTED, "tdm_batch_all_reduce");
    tensors_free(&t);
}

static size_t take(tdm_context *ctx, tdm_backend_kind backend, size_t max, dev_set *set)
{
    size_t k = test_devices_of(ctx, backend, set->dev + set->n, max);
    set->n += k;
    return k;
}

/* Replaces the set by (or adds) logical devices split from its first device. */
static void split_first(dev_set *set, uint32_t count, int replace)
{
    tdm_device *logical[3];
    CHECK_OK(tdm_device_split(set->dev[0], count, logical));
    if (replace)
        set->n = 0;
    for (uint32_t i = 0; i < count; i++)
        set->dev[set->n++] = logical[i];
}

/* The scenario's devices; returns how many physical ones were found. */
static size_t pick(tdm_context *ctx, const char *scenario, dev_set *set)
{
    int mixed = !strcmp(scenario, "mixed");
    size_t physical = 0;
    memset(set, 0, sizeof *set);
    if (mixed || !strcmp(scenario, "reference"))
        physical += take(ctx, TDM_BACKEND_REFERENCE, 1, set);
    if (mixed || !strcmp(scenario, "opencl"))
        physical += take(ctx, TDM_BACKEND_OPENCL, 4, set);
    if (mixed || !strncmp(scenario, "vulkan", 6))
        physical += take(ctx, TDM_BACKEND_VULKAN, strcmp(scenario, "vulkan-two") ? 1 : 2, set);
    /* host memory, and PoCL's devices of one context; none in the GPU shape */
    set->shares =
        !test_gpu_shape() && (!strcmp(scenario, "reference") || !strcmp(scenario, "opencl"));
    if (!strcmp(scenario, "reference") && set->n)
        split_first(set, 3, 1);
    if ((!strcmp(scenario, "opencl") || !strcmp(scenario, "vulkan-logical")) && set->n)
        split_first(set, 2, !strcmp(scenario, "vulkan-logical"));
    return physical;
}

void test_case_collectives(const test_run *run)
{
    tdm_context *ctx = test_context(TDM_BACKENDS_ALL);
    dev_set set;
    size_t physical = pick(ctx, run->argv[0], &set), expected = strtoul(run->argv[1], NULL, 10);
    if (physical != expected || set.n < 2) {
        fprintf(stderr, "scenario %s: found %zu physical device(s), expected %zu\n", run->argv[0],
                physical, expected);
        tdm_context_destroy(ctx);
        test_failures++;
        return;
    }
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (int integer = 0; integer < 2; integer++)
                check_all_reduce(&set, ops[o], sizes[s], integer, 0);
        check_reduce_to(&set, ops[o]);
    }
    check_all_reduce(&set, TDM_REDUCE_MAX, 4 * 4097, 0, 1);
    /* a pair, past 2 MiB: HOST's one pass over both values (AUTO's plan on CPUs) */
    dev_set pair = set;
    pair.n = 2;
    for (int integer = 0; integer < 2; integer++)
        check_all_reduce(&pair, TDM_REDUCE_SUM, sizes[2], integer, 0);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        check_all_reduce_f16(&set, TDM_REDUCE_SUM, sizes[s]);
        check_all_reduce_f16(&set, TDM_REDUCE_MEAN, sizes[s]);
    }
    check_broadcast(&set);
    check_batch(&set);
    check_bad_arguments(&set);
    CHECK(tdm_context_validation_messages(ctx) == 0);
    tdm_context_destroy(ctx);
}
