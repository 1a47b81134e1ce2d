/* All-gather, reduce-scatter, reduce to the root and broadcast on a distribution
 * scenario's devices: the engine's every plan, in place and out of place, sizes 0, 1,
 * primes and a few MiB, bit for bit against the host (reduce-scatter's shard i and the
 * root's reduction, f32 and f16, by every plan, also against the all-reduce);
 * then the replica context (synchronous and started) and cross-replica calls; and the
 * refusals, each named. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collective/collectives.h"
#include "harness.h"

#define GUARD 8 /* bytes before each view */

static tdm_context *ctx;
static tdm_device *devs[3];
static size_t r;
static int shares; /* every device reaches every other's memory: DIRECT works */

static const tdm_collective_algorithm algorithms[] = {
    TDM_COLLECTIVE_AUTO, TDM_COLLECTIVE_ONE_DEVICE, TDM_COLLECTIVE_RING,
    TDM_COLLECTIVE_TREE, TDM_COLLECTIVE_DIRECT,     TDM_COLLECTIVE_HOST};
#define ALGORITHM_COUNT (sizeof algorithms / sizeof algorithms[0])
/* elements per replica: 0, 1, primes, and about 3 MiB of reduce-scatter input */
static const size_t counts[] = {0, 1, 7, 4099, 262147};

static void *host_alloc(size_t size)
{
    void *p = calloc(size ? size : 1, 1);
    if (!p) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    return p;
}

/* Floats of widely varying magnitude: a fold in another order gives other bits. */
static void make_data(float *x, size_t n, unsigned seed)
{
    uint32_t *bits = host_alloc(n * sizeof *bits);
    test_random_bytes(bits, n * sizeof *bits, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = ldexpf((float)(bits[i] >> 8) * 0x1p-24f - 0.5f, (int)(bits[i] % 21) - 10);
    free(bits);
}

static float apply(tdm_reduce_op op, float a, float b)
{
    if (op == TDM_REDUCE_SUM || op == TDM_REDUCE_MEAN)
        return a + b;
    return op == TDM_REDUCE_MAX ? (a > b ? a : b) : (a < b ? a : b);
}

/* Shard `shard` (n elements) of every replica's input folded in replica order. */
static void host_shard(tdm_reduce_op op, float *const *in, size_t shard, size_t n, float *out)
{
    for (size_t e = 0; e < n; e++) {
        float acc = in[0][shard * n + e];
        for (size_t i = 1; i < r; i++)
            acc = apply(op, acc, in[i][shard * n + e]);
        out[e] = op == TDM_REDUCE_MEAN ? acc * (float)(1.0 / (double)r) : acc;
    }
}

static int same(const void *got, const void *want, size_t bytes, const char *what)
{
    if (!memcmp(got, want, bytes))
        return 1;
    size_t e = 0;
    while (!memcmp((const char *)got + e * 4, (const char *)want + e * 4, 4))
        e++;
    fprintf(stderr, "%s: element %zu of %zu differs\n", what, e, bytes / 4);
    return 0;
}

static tdm_collective_options options_for(tdm_collective_algorithm a)
{
    tdm_collective_options o = TDM_COLLECTIVE_OPTIONS_INIT;
    o.algorithm = a;
    return o;
}

/* Which plans refuse: TREE has nothing to fold in an all-gather; DIRECT needs shared
 * memory. Checks the refusal and returns 1 for them. */
static int refused(tdm_status s, tdm_collective_algorithm a, int gather, const char *what)
{
    if (gather && a == TDM_COLLECTIVE_TREE) {
        if (s != TDM_ERR_UNSUPPORTED || !strstr(tdm_last_error(), "folds nothing")) {
            fprintf(stderr, "%s: TREE all-gather gave %s: %s\n", what, tdm_status_str(s),
                    tdm_last_error());
            test_failures++;
        }
        return 1;
    }
    if (a == TDM_COLLECTIVE_DIRECT && !shares && r > 1) {
        if (s != TDM_ERR_UNSUPPORTED || !strstr(tdm_last_error(), "share memory")) {
            fprintf(stderr, "%s: DIRECT gave %s: %s\n", what, tdm_status_str(s), tdm_last_error());
            test_failures++;
        }
        return 1;
    }
    if (s != TDM_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, tdm_status_str(s), tdm_last_error());
        test_failures++;
        return 1;
    }
    return 0;
}

/* Buffers of `whole` bytes + GUARD per device; part views (part bytes) either their
 * own buffers or, in place, slice i of the whole on replica i. */
typedef struct layout {
    tdm_buffer *whole_buf[3], *part_buf[3];
    tdm_buffer_view whole[3], part[3];
} layout;

static void layout_make(layout *l, size_t part, int in_place)
{
    memset(l, 0, sizeof *l);
    for (size_t i = 0; i < r; i++) {
        CHECK_OK(tdm_buffer_alloc(devs[i], GUARD + part * r, &l->whole_buf[i]));
        l->whole[i] = (tdm_buffer_view){l->whole_buf[i], GUARD, part * r};
        if (in_place) {
            l->part[i] = (tdm_buffer_view){l->whole_buf[i], GUARD + i * part, part};
        } else {
            CHECK_OK(tdm_buffer_alloc(devs[i], GUARD + part, &l->part_buf[i]));
            l->part[i] = (tdm_buffer_view){l->part_buf[i], GUARD, part};
        }
    }
}

static void layout_free(layout *l)
{
    for (size_t i = 0; i < r; i++) {
        tdm_buffer_free(l->whole_buf[i]);
        tdm_buffer_free(l->part_buf[i]);
    }
}

static void check_all_gather(size_t n, int in_place, size_t a)
{
    char what[96];
    snprintf(what, sizeof what, "all-gather of %zu x %zu, algorithm %d, %s", r, n,
             (int)algorithms[a], in_place ? "in place" : "out of place");
    float *want = host_alloc(n * r * 4), *got = host_alloc(n * r * 4);
    make_data(want, n * r, (unsigned)(n + a));
    layout l;
    layout_make(&l, n * 4, in_place);
    for (size_t i = 0; i < r; i++)
        CHECK_OK(tdm_buffer_write(l.part[i].buffer, l.part[i].offset, want + i * n, n * 4));
    tdm_collective_options o = options_for(algorithms[a]);
    if (!refused(tdm_all_gather(l.part, l.whole, r, &o), algorithms[a], 1, what))
        for (size_t j = 0; j < r; j++) {
            CHECK_OK(tdm_buffer_read(l.whole_buf[j], GUARD, got, n * r * 4));
            CHECK(same(got, want, n * r * 4, what));
        }
    layout_free(&l);
    free(want);
    free(got);
}

static void check_reduce_scatter(tdm_reduce_op op, size_t n, int in_place, size_t a)
{
    char what[112];
    snprintf(what, sizeof what, "reduce-scatter %d of %zu x %zu, algorithm %d, %s", (int)op, r, n,
             (int)algorithms[a], in_place ? "in place" : "out of place");
    float *in[3], *want = host_alloc(n * 4), *got = host_alloc(n * 4);
    layout l;
    layout_make(&l, n * 4, in_place);
    for (size_t i = 0; i < r; i++) {
        in[i] = host_alloc(n * r * 4);
        make_data(in[i], n * r, (unsigned)(7 * i + n + a));
        CHECK_OK(tdm_buffer_write(l.whole_buf[i], GUARD, in[i], n * r * 4));
    }
    tdm_collective_options o = options_for(algorithms[a]);
    if (!refused(tdm_reduce_scatter(op, l.whole, l.part, r, &o), algorithms[a], 0, what))
        for (size_t i = 0; i < r; i++) {
            host_shard(op, in, i, n, want);
            CHECK_OK(tdm_buffer_read(l.part[i].buffer, l.part[i].offset, got, n * 4));
            CHECK(same(got, want, n * 4, what));
        }
    layout_free(&l);
    for (size_t i = 0; i < r; i++)
        free(in[i]);
    free(want);
    free(got);
}

/* Shard i of the reduce-scatter by plan `a` has the bits of slice i of the AUTO
 * all-reduce, float16 too (each partial rounded to float16 in both). */
static void check_matches_all_reduce(tdm_dtype dtype, size_t a)
{
    size_t n = 4098, elem = dtype == TDM_F16 ? 2 : 4, bytes = n * elem;
    layout l;
    layout_make(&l, bytes, 0);
    tdm_buffer *ar[3];
    tdm_buffer_view arv[3];
    unsigned char *data = host_alloc(bytes * r), *got = host_alloc(bytes),
                  *want = host_alloc(bytes);
    for (size_t i = 0; i < r; i++) {
        float *f = host_alloc(n * r * 4);
        make_data(f, n * r, (unsigned)(100 + i));
        for (size_t e = 0; e < n * r; e++) /* halves: finite bits of small magnitude */
            if (dtype == TDM_F16)
                ((uint16_t *)data)[e] = (uint16_t)(0x2000u + ((uint32_t)(f[e] * 4096.0f) & 0x1fff));
        if (dtype == TDM_F32)
            memcpy(data, f, bytes * r);
        free(f);
        CHECK_OK(tdm_buffer_write(l.whole_buf[i], GUARD, data, bytes * r));
        CHECK_OK(tdm_buffer_alloc(devs[i], bytes * r, &ar[i]));
        arv[i] = tdm_buffer_whole(ar[i]);
        CHECK_OK(tdm_buffer_copy(&arv[i], &l.whole[i]));
    }
    tdm_collective_options o = options_for(algorithms[a]), auto_o = TDM_COLLECTIVE_OPTIONS_INIT;
    o.dtype = auto_o.dtype = dtype;
    int skip = refused(tdm_reduce_scatter(TDM_REDUCE_MEAN, l.whole, l.part, r, &o), algorithms[a],
                       0, dtype == TDM_F16 ? "f16 shard" : "f32 shard");
    CHECK_OK(tdm_all_reduce(TDM_REDUCE_MEAN, arv, r, &auto_o));
    for (size_t i = 0; i < r; i++) {
        if (skip) {
            tdm_buffer_free(ar[i]);
            continue;
        }
        CHECK_OK(tdm_buffer_read(l.part[i].buffer, l.part[i].offset, got, bytes));
        CHECK_OK(tdm_buffer_read(ar[i], i * bytes, want, bytes));
        CHECK(same(got, want, bytes,
                   dtype == TDM_F16 ? "f16 shard vs all-reduce" : "f32 shard vs all-reduce"));
        tdm_buffer_free(ar[i]);
    }
    layout_free(&l);
    free(data);
    free(got);
    free(want);
}

/* Reduce to root and broadcast from it: inputs in their own buffers, outputs the
 * inputs themselves (in place) or buffers preset to a sentinel that every output the
 * call must not write keeps. */
static void check_root_call(int broadcast, tdm_reduce_op op, size_t n, int in_place, size_t a,
                            size_t root)
{
    char what[112];
    snprintf(what, sizeof what, "%s %d of %zu x %zu to %zu, algorithm %d, %s",
             broadcast ? "broadcast" : "reduce", (int)op, r, n, root, (int)algorithms[a],
             in_place ? "in place" : "out of place");
    float *in[3], *want = host_alloc(n * 4), *got = host_alloc(n * 4),
                  *sentinel = host_alloc(n * 4);
    make_data(sentinel, n, 99);
    layout l;
    layout_make(&l, n * 4, 0);
    tdm_buffer_view *inputs = l.part, *outputs = in_place ? l.part : l.whole;
    for (size_t i = 0; i < r; i++) {
        in[i] = host_alloc(n * 4);
        make_data(in[i], n, (unsigned)(11 * i + n + a));
        CHECK_OK(tdm_buffer_write(l.part[i].buffer, l.part[i].offset, in[i], n * 4));
        l.whole[i].size = n * 4; /* the out-of-place outputs */
        CHECK_OK(tdm_buffer_write(l.whole_buf[i], GUARD, sentinel, n * 4));
    }
    tdm_collective_call call = {.kind = broadcast ? TDM_COLL_ROOT_BROADCAST : TDM_COLL_ROOT_REDUCE,
                                .func = what,
                                .op = op,
                                .inputs = inputs,
                                .outputs = outputs,
                                .count = r,
                                .root = root};
    tdm_collective_options o = options_for(algorithms[a]);
    tdm_status s = tdm_collective(&call, &o);
    if (!refused(s, broadcast ? TDM_COLLECTIVE_AUTO : algorithms[a], 0, what)) {
        if (!broadcast)
            host_shard(op, in, 0, n, want);
        for (size_t i = 0; i < r; i++) {
            const float *expect = broadcast   ? in[root]
                                  : i == root ? want
                                  : in_place  ? in[i]
                                              : sentinel;
            CHECK_OK(tdm_buffer_read(outputs[i].buffer, outputs[i].offset, got, n * 4));
            CHECK(same(got, expect, n * 4, what));
        }
    }
    layout_free(&l);
    for (size_t i = 0; i < r; i++)
        free(in[i]);
    free(want);
    free(got);
    free(sentinel);
}

/* The root's float16 MEAN by plan `a` has the bits of the AUTO all-reduce. */
static void check_root_matches_all_reduce(size_t a)
{
    size_t n = 4098, bytes = n * 2;
    layout l;
    layout_make(&l, bytes, 0);
    uint16_t *data = host_alloc(bytes), *got = host_alloc(bytes), *want = host_alloc(bytes);
    for (size_t i = 0; i < r; i++) {
        test_random_bytes(data, bytes, (unsigned)(300 + i));
        for (size_t e = 0; e < n; e++) /* finite halves of small magnitude */
            data[e] = (uint16_t)(0x2000u + (data[e] & 0x1fff));
        CHECK_OK(tdm_buffer_write(l.part[i].buffer, l.part[i].offset, data, bytes));
        l.whole[i].size = bytes;
    }
    size_t root = r - 1;
    tdm_collective_call call = {.kind = TDM_COLL_ROOT_REDUCE,
                                .func = "f16 reduce",
                                .op = TDM_REDUCE_MEAN,
                                .inputs = l.part,
                                .outputs = l.whole,
                                .count = r,
                                .root = root};
    tdm_collective_options o = options_for(algorithms[a]), auto_o = TDM_COLLECTIVE_OPTIONS_INIT;
    o.dtype = auto_o.dtype = TDM_F16;
    tdm_status s = tdm_collective(&call, &o);
    int skip = refused(s, algorithms[a], 0, "f16 reduce");
    CHECK_OK(tdm_all_reduce(TDM_REDUCE_MEAN, l.part, r, &auto_o));
    if (!skip) {
        CHECK_OK(tdm_buffer_read(l.whole_buf[root], GUARD, got, bytes));
        CHECK_OK(tdm_buffer_read(l.part[root].buffer, l.part[root].offset, want, bytes));
        CHECK(same(got, want, bytes, "f16 reduce vs all-reduce"));
    }
    layout_free(&l);
    free(data);
    free(got);
    free(want);
}

static void check_root_refusals(void)
{
    layout l;
    layout_make(&l, 16, 0);
    tdm_collective_call call = {.kind = TDM_COLL_ROOT_REDUCE,
                                .func = "root call",
                                .op = TDM_REDUCE_SUM,
                                .inputs = l.part,
                                .outputs = l.whole,
                                .count = r};
    CHECK_FAILS(tdm_collective_check(&call, NULL), TDM_ERR_INVALID_ARGUMENT, "sizes must match");
    for (size_t i = 0; i < r; i++)
        l.whole[i].size = 16;
    call.root = r;
    call.kind = TDM_COLL_ROOT_BROADCAST;
    CHECK_FAILS(tdm_collective_check(&call, NULL), TDM_ERR_INVALID_ARGUMENT, "root is replica");
    call.kind = TDM_COLL_ROOT_REDUCE;
    call.root = 0;
    tdm_buffer_view shifted[3];
    for (size_t i = 0; i < r; i++) /* overlaps the input without being it */
        shifted[i] = (tdm_buffer_view){l.part[i].buffer, l.part[i].offset + 4, 12};
    tdm_collective_call overlapping = call;
    overlapping.inputs = shifted;
    for (size_t i = 0; i < r; i++)
        l.whole[i] = (tdm_buffer_view){l.part[i].buffer, l.part[i].offset, 12};
    CHECK_FAILS(tdm_collective_check(&overlapping, NULL), TDM_ERR_INVALID_ARGUMENT,
                "without being it");
    tdm_collective_options o = TDM_COLLECTIVE_OPTIONS_INIT;
    o.dtype = TDM_F16;
    call.op = TDM_REDUCE_MIN;
    call.outputs = l.part;
    CHECK_FAILS(tdm_collective_check(&call, &o), TDM_ERR_UNSUPPORTED, "float16");
    call.kind = (tdm_collective_kind)99;
    CHECK_FAILS(tdm_collective_check(&call, &o), TDM_ERR_INVALID_ARGUMENT,
                "unknown collective kind 99");
    layout_free(&l);
}

static void check_refusals(void)
{
    layout l;
    layout_make(&l, 16, 0);
    tdm_buffer_view short_whole[3];
    for (size_t i = 0; i < r; i++)
        short_whole[i] = (tdm_buffer_view){l.whole_buf[i], GUARD + 4, 16 * r - 4};
    CHECK_FAILS(tdm_all_gather(l.part, short_whole, r, NULL), TDM_ERR_INVALID_ARGUMENT,
                "times the second");
    CHECK_FAILS(tdm_reduce_scatter(TDM_REDUCE_SUM, short_whole, l.part, r, NULL),
                TDM_ERR_INVALID_ARGUMENT, "pad the tensor");
    tdm_buffer_view skewed[3];
    for (size_t i = 0; i < r; i++) /* inside the whole, but not at slice i */
        skewed[i] = (tdm_buffer_view){l.whole_buf[i], GUARD + ((i + 1) % r) * 16, 16};
    CHECK_FAILS(tdm_all_gather(skewed, l.whole, r, NULL), TDM_ERR_INVALID_ARGUMENT,
                "in-place layout");
    CHECK_FAILS(tdm_reduce_scatter(TDM_REDUCE_SUM, l.whole, skewed, r, NULL),
                TDM_ERR_INVALID_ARGUMENT, "in-place layout");
    tdm_buffer_view swapped[3];
    for (size_t i = 0; i < r; i++)
        swapped[i] = l.part[(i + 1) % r];
    CHECK_FAILS(tdm_all_gather(swapped, l.whole, r, NULL), TDM_ERR_INVALID_ARGUMENT,
                "input's device");
    CHECK_FAILS(tdm_reduce_scatter((tdm_reduce_op)9, l.whole, l.part, r, NULL),
                TDM_ERR_INVALID_ARGUMENT, "not a tdm_reduce_op");
    tdm_collective_options o = TDM_COLLECTIVE_OPTIONS_INIT;
    o.dtype = TDM_F16;
    CHECK_FAILS(tdm_reduce_scatter(TDM_REDUCE_MAX, l.whole, l.part, r, &o), TDM_ERR_UNSUPPORTED,
                "float16");
    CHECK_FAILS(tdm_all_gather(NULL, l.whole, r, NULL), TDM_ERR_INVALID_ARGUMENT, "'inputs'");
    CHECK_FAILS(tdm_all_gather(l.part, l.whole, 0, NULL), TDM_ERR_INVALID_ARGUMENT, "'count'");
    layout_free(&l);
}

/* Replica context: each replica gathers its 5 elements 100 i + j (in place through a
 * slice of the output when asked), and reduce-scatters 2 r elements. */
typedef struct replica_case {
    int in_place, started;
} replica_case;

static tdm_tensor *tensor_of(tdm_device *dev, size_t count, const float *data)
{
    tdm_tensor *t = NULL;
    tdm_shape shape = TDM_SHAPE(count);
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &shape, &t));
    if (t && data)
        CHECK_OK(tdm_tensor_write(t, data, count * 4));
    return t;
}

static float replica_value(size_t i, size_t j)
{
    return (float)(100 * i + j) * 0.1f;
}

/* The synchronous call, or start then wait. */
static tdm_status replica_call(tdm_replica_context *rc, const replica_case *c, int gather,
                               tdm_tensor *value, tdm_tensor *out)
{
    if (!c->started)
        return gather ? tdm_replica_all_gather(rc, value, out)
                      : tdm_replica_reduce_scatter(rc, TDM_REDUCE_SUM, value, out);
    tdm_pending *p = NULL;
    tdm_status s = gather ? tdm_replica_all_gather_start(rc, value, out, &p)
                          : tdm_replica_reduce_scatter_start(rc, TDM_REDUCE_SUM, value, out, &p);
    return s == TDM_OK ? tdm_pending_wait(p) : s;
}

/* The replica's part of n elements: in place, its slice of whole; else its own. */
static tdm_tensor *part_of(tdm_replica_context *rc, const replica_case *c, tdm_tensor *whole,
                           size_t n)
{
    tdm_tensor *part = NULL;
    tdm_shape shape = TDM_SHAPE(n);
    if (c->in_place)
        CHECK_OK(tdm_tensor_slice(whole, tdm_replica_id(rc) * n, &shape, &part));
    else
        part = tensor_of(tdm_replica_device(rc), n, NULL);
    return part;
}

static tdm_status gathering_fn(tdm_replica_context *rc, void *user)
{
    const replica_case *c = user;
    size_t id = tdm_replica_id(rc);
    float v[5];
    for (size_t j = 0; j < 5; j++)
        v[j] = replica_value(id, j);
    tdm_tensor *out = tensor_of(tdm_replica_device(rc), 5 * r, NULL);
    tdm_tensor *value = part_of(rc, c, out, 5);
    CHECK_OK(tdm_tensor_write(value, v, sizeof v));
    tdm_status s = replica_call(rc, c, 1, value, out);
    tdm_tensor_destroy(value);
    return s == TDM_OK ? tdm_replica_set_result(rc, out) : s;
}

static tdm_status scattering_fn(tdm_replica_context *rc, void *user)
{
    const replica_case *c = user;
    size_t id = tdm_replica_id(rc);
    float v[6];
    for (size_t j = 0; j < 2 * r; j++)
        v[j] = replica_value(id, j);
    tdm_tensor *value = tensor_of(tdm_replica_device(rc), 2 * r, v);
    tdm_tensor *out = part_of(rc, c, value, 2);
    tdm_status s = replica_call(rc, c, 0, value, out);
    float got[2] = {0};
    if (s == TDM_OK)
        s = tdm_tensor_read(out, got, sizeof got);
    for (size_t e = 0; e < 2 && s == TDM_OK; e++) {
        float want = replica_value(0, id * 2 + e);
        for (size_t i = 1; i < r; i++)
            want += replica_value(i, id * 2 + e);
        CHECK(memcmp(&got[e], &want, 4) == 0);
    }
    tdm_tensor_destroy(out);
    tdm_tensor_destroy(value);
    return s;
}

static tdm_status uneven_fn(tdm_replica_context *rc, void *user)
{
    (void)user;
    tdm_tensor *value = tensor_of(tdm_replica_device(rc), 2 * r + 1, NULL);
    tdm_tensor *out = tensor_of(tdm_replica_device(rc), 2, NULL);
    CHECK_FAILS(tdm_replica_reduce_scatter(rc, TDM_REDUCE_SUM, value, out),
                TDM_ERR_INVALID_ARGUMENT, "pad the tensor");
    CHECK_FAILS(tdm_replica_all_gather(rc, out, value), TDM_ERR_INVALID_ARGUMENT, "pad the tensor");
    tdm_tensor_destroy(out);
    tdm_tensor_destroy(value);
    return TDM_OK;
}

/* Replica context, reduce to the root and broadcast from it: each replica's 5
 * elements 100 id + j, into an output preset to -1 or in place. */
typedef struct root_case {
    replica_case how;
    int broadcast;
    size_t root;
} root_case;

static tdm_status root_call(tdm_replica_context *rc, const root_case *c, tdm_tensor *value,
                            tdm_tensor *out)
{
    if (!c->how.started)
        return c->broadcast ? tdm_replica_broadcast(rc, value, out, c->root)
                            : tdm_replica_reduce(rc, TDM_REDUCE_SUM, value, out, c->root);
    tdm_pending *p = NULL;
    tdm_status s = c->broadcast
                       ? tdm_replica_broadcast_start(rc, value, out, c->root, &p)
                       : tdm_replica_reduce_start(rc, TDM_REDUCE_SUM, value, out, c->root, &p);
    return s == TDM_OK ? tdm_pending_wait(p) : s;
}

static tdm_status rooting_fn(tdm_replica_context *rc, void *user)
{
    const root_case *c = user;
    size_t id = tdm_replica_id(rc);
    float v[5], preset[5], got[5];
    for (size_t j = 0; j < 5; j++) {
        v[j] = replica_value(id, j);
        preset[j] = -1.0f;
    }
    tdm_tensor *value = tensor_of(tdm_replica_device(rc), 5, v);
    tdm_tensor *out = c->how.in_place ? NULL : tensor_of(tdm_replica_device(rc), 5, preset);
    tdm_status s = root_call(rc, c, value, out);
    if (s == TDM_OK)
        s = tdm_tensor_read(out ? out : value, got, sizeof got);
    for (size_t j = 0; j < 5 && s == TDM_OK; j++) {
        float want = replica_value(c->root, j);
        if (!c->broadcast && id == c->root)
            for (size_t i = 0, first = 1; i < r; i++, first = 0)
                want = first ? replica_value(0, j) : want + replica_value(i, j);
        else if (!c->broadcast)
            want = out ? -1.0f : v[j];
        CHECK(memcmp(&got[j], &want, 4) == 0);
    }
    tdm_tensor_destroy(out);
    tdm_tensor_destroy(value);
    return s;
}

static tdm_status bad_root_fn(tdm_replica_context *rc, void *user)
{
    (void)user;
    tdm_tensor *value = tensor_of(tdm_replica_device(rc), 4, NULL);
    tdm_tensor *out = tensor_of(tdm_replica_device(rc), 3, NULL);
    CHECK_FAILS(tdm_replica_reduce(rc, TDM_REDUCE_SUM, value, NULL, r), TDM_ERR_INVALID_ARGUMENT,
                "root is replica");
    CHECK_FAILS(tdm_replica_broadcast(rc, value, out, 0), TDM_ERR_INVALID_ARGUMENT,
                "the value's size");
    tdm_tensor *halves = NULL;
    CHECK_OK(tdm_tensor_create(tdm_replica_device(rc), TDM_F16, &TDM_SHAPE(4), &halves));
    CHECK_FAILS(tdm_replica_reduce(rc, TDM_REDUCE_MAX, halves, NULL, 0), TDM_ERR_UNSUPPORTED,
                "float16");
    tdm_tensor_destroy(halves);
    tdm_tensor_destroy(out);
    tdm_tensor_destroy(value);
    return TDM_OK;
}

/* Replicas naming different roots: the run fails naming both. */
static tdm_status split_root_fn(tdm_replica_context *rc, void *user)
{
    (void)user;
    tdm_tensor *value = tensor_of(tdm_replica_device(rc), 4, NULL);
    tdm_status s = tdm_replica_broadcast(rc, value, NULL, tdm_replica_id(rc) ? 1 : 0);
    tdm_tensor_destroy(value);
    return s;
}

static void check_replica_roots(void)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, r, NULL, &s));
    for (int k = 0; k < 8; k++) {
        root_case c = {{k & 1, (k >> 1) & 1}, k >> 2, (size_t)k % r};
        CHECK_OK(tdm_strategy_run(s, rooting_fn, &c, NULL, 0, NULL));
    }
    CHECK_OK(tdm_strategy_run(s, bad_root_fn, NULL, NULL, 0, NULL));
    CHECK_FAILS(tdm_strategy_run(s, split_root_fn, NULL, NULL, 0, NULL), TDM_ERR_INVALID_STATE,
                "the same root");
    tdm_strategy_destroy(s);
}

static void check_replica_context(void)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, r, NULL, &s));
    for (int k = 0; k < 4; k++) {
        replica_case c = {k & 1, k >> 1};
        tdm_value *result = NULL;
        CHECK_OK(tdm_strategy_run(s, gathering_fn, &c, NULL, 0, &result));
        for (size_t j = 0; result && j < r; j++) {
            float got[15];
            CHECK_OK(tdm_tensor_read(tdm_value_component(result, j), got, 5 * r * 4));
            for (size_t e = 0; e < 5 * r; e++)
                CHECK(got[e] == replica_value(e / 5, e % 5));
        }
        tdm_value_destroy(result);
        CHECK_OK(tdm_strategy_run(s, scattering_fn, &c, NULL, 0, NULL));
    }
    CHECK_OK(tdm_strategy_run(s, uneven_fn, NULL, NULL, 0, NULL));
    tdm_strategy_destroy(s);
}

static void check_cross_replica(void)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, r, NULL, &s));
    tdm_tensor *t[3];
    float v[6];
    for (size_t i = 0; i < r; i++) {
        for (size_t j = 0; j < 2 * r; j++)
            v[j] = replica_value(i, j);
        t[i] = tensor_of(devs[i], 2 * r, v);
    }
    tdm_value *value = NULL, *gathered = NULL, *scattered = NULL;
    CHECK_OK(tdm_value_create(TDM_VALUE_PER_REPLICA, t, r, &value));
    CHECK_OK(tdm_strategy_all_gather(s, value, &gathered));
    CHECK_OK(tdm_strategy_reduce_scatter(s, TDM_REDUCE_MAX, value, &scattered));
    for (size_t i = 0; gathered && scattered && i < r; i++) {
        float got[18], shard[2];
        CHECK_OK(tdm_tensor_read(tdm_value_component(gathered, i), got, 2 * r * r * 4));
        for (size_t e = 0; e < 2 * r * r; e++)
            CHECK(got[e] == replica_value(e / (2 * r), e % (2 * r)));
        CHECK_OK(tdm_tensor_read(tdm_value_component(scattered, i), shard, sizeof shard));
        for (size_t e = 0; e < 2; e++)
            CHECK(shard[e] == replica_value(r - 1, 2 * i + e));
    }
    CHECK(tdm_value_kind_of(gathered) == TDM_VALUE_MIRRORED);
    CHECK(tdm_value_kind_of(scattered) == TDM_VALUE_PER_REPLICA);
    tdm_value_destroy(gathered);
    tdm_value_destroy(scattered);
    tdm_value_destroy(value);
    for (size_t i = 0; i < r; i++)
        t[i] = tensor_of(devs[i], 2 * r + 1, NULL);
    CHECK_OK(tdm_value_create(TDM_VALUE_PER_REPLICA, t, r, &value));
    CHECK_FAILS(tdm_strategy_reduce_scatter(s, TDM_REDUCE_SUM, value, &scattered),
                TDM_ERR_INVALID_ARGUMENT, "equal shards");
    tdm_value_destroy(value);
    tdm_strategy_destroy(s);
}

void test_case_gather_scatter(const test_run *run)
{
    r = test_scenario_of(run, &ctx, devs);
    CHECK(r >= 2); /* every scenario has two devices at least: something crosses */
    shares = !test_gpu_shape() &&
             (!strcmp(run->scenario, "reference") || !strcmp(run->scenario, "opencl"));
    const tdm_reduce_op ops[] = {TDM_REDUCE_SUM, TDM_REDUCE_MEAN, TDM_REDUCE_MAX, TDM_REDUCE_MIN};
    for (size_t a = 0; a < ALGORITHM_COUNT; a++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (int in_place = 0; in_place < 2; in_place++) {
                check_all_gather(counts[c], in_place, a);
                /* every op on the small sizes, SUM on the large one */
                for (size_t o = 0; o < 4 && (o == 0 || counts[c] < 100000); o++) {
                    check_reduce_scatter(ops[o], counts[c], in_place, a);
                    check_root_call(0, ops[o], counts[c], in_place, a, (o + c) % r);
                }
                check_root_call(1, TDM_REDUCE_SUM, counts[c], in_place, a, c % r);
            }
    for (size_t a = 0; a < ALGORITHM_COUNT; a++) {
        check_matches_all_reduce(TDM_F32, a);
        check_matches_all_reduce(TDM_F16, a);
        check_root_matches_all_reduce(a);
    }
    check_refusals();
    check_root_refusals();
    check_replica_context();
    check_replica_roots();
    check_cross_replica();
}
