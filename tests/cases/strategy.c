/* Strategies, contexts, run and merge_call, per-replica values, Strategy.reduce and
 * the cross-device ops (docs/SEMANTICS.md: Modes, Strategies, Reductions) on the
 * replicas of a scenario (see test_scenario_devices). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "harness.h"

#define MAX_REPLICAS 3

static tdm_context *ctx;
static tdm_device *devs[MAX_REPLICAS];
static size_t n_devs;

static tdm_tensor *tensor_of(tdm_device *dev, tdm_shape shape, const float *data)
{
    tdm_tensor *t = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &shape, &t));
    if (t && data)
        CHECK_OK(tdm_tensor_write(t, data, tdm_tensor_bytes(t)));
    return t;
}

static float read_at(const tdm_tensor *t, size_t i)
{
    float v[64] = {0};
    CHECK(tdm_tensor_count(t) <= 64);
    CHECK_OK(tdm_tensor_read(t, v, tdm_tensor_bytes(t)));
    return v[i];
}

/* A PER_REPLICA value: replica i holds `count` elements base + 10 i + j. */
static tdm_value *per_replica(tdm_strategy *s, size_t count, float base)
{
    tdm_tensor *t[MAX_REPLICAS];
    for (size_t i = 0; i < tdm_strategy_num_replicas(s); i++) {
        float data[16];
        for (size_t j = 0; j < count; j++)
            data[j] = base + 10.0f * (float)i + (float)j;
        t[i] = tensor_of(tdm_strategy_device(s, i), TDM_SHAPE(count), data);
    }
    tdm_value *v = NULL;
    CHECK_OK(tdm_value_create(TDM_VALUE_PER_REPLICA, t, tdm_strategy_num_replicas(s), &v));
    return v;
}

static tdm_strategy *mirrored(const tdm_strategy_options *opts)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, n_devs, opts, &s));
    return s;
}

/* ---- Contexts ---------------------------------------------------------------- */

static void check_default_mode(void)
{
    tdm_strategy *d = NULL, *again = NULL;
    CHECK_OK(tdm_strategy_current(ctx, &d));
    CHECK_OK(tdm_strategy_default(ctx, &again));
    CHECK(d && d == again);
    CHECK(tdm_strategy_kind_of(d) == TDM_STRATEGY_DEFAULT);
    CHECK(tdm_strategy_num_replicas(d) == 1);
    CHECK(!tdm_in_cross_replica_context());
    CHECK(tdm_replica_context_current() == NULL);
    tdm_strategy_destroy(d); /* the context owns it: a no-op */
    CHECK_OK(tdm_strategy_current(ctx, &again));
    CHECK(again == d);
}

static void check_scopes(void)
{
    tdm_strategy *a = mirrored(NULL), *b = mirrored(NULL), *cur = NULL;
    CHECK_OK(tdm_strategy_scope_enter(a));
    CHECK(tdm_in_cross_replica_context());
    CHECK_OK(tdm_strategy_current(ctx, &cur));
    CHECK(cur == a);
    CHECK_OK(tdm_strategy_scope_enter(a)); /* re-entering the same scope is fine */
    CHECK_FAILS(tdm_strategy_scope_enter(b), TDM_ERR_INVALID_STATE, "mixing strategies");
    tdm_value *v = per_replica(b, 2, 0);
    tdm_tensor *r = NULL;
    CHECK_FAILS(tdm_strategy_reduce(b, TDM_REDUCE_SUM, v, TDM_AXIS_NONE, &r), TDM_ERR_INVALID_STATE,
                "mixing strategies");
    CHECK_OK(tdm_strategy_scope_exit(a));
    CHECK_OK(tdm_strategy_scope_exit(a));
    CHECK(!tdm_in_cross_replica_context());
    CHECK_FAILS(tdm_strategy_scope_exit(a), TDM_ERR_INVALID_STATE, "not entered");
    CHECK_OK(tdm_strategy_scope_enter(b)); /* after exiting, another strategy is fine */
    CHECK_OK(tdm_strategy_reduce(b, TDM_REDUCE_SUM, v, TDM_AXIS_NONE, &r));
    CHECK_OK(tdm_strategy_scope_exit(b));
    tdm_tensor_destroy(r);
    tdm_value_destroy(v);
    tdm_strategy_destroy(a);
    tdm_strategy_destroy(b);
}

typedef struct replica_probe {
    atomic_int seen[MAX_REPLICAS];
    atomic_int bad;
    tdm_strategy *other;
    tdm_value *value;
} replica_probe;

/* Records what a replica sees, and that cross-replica calls are refused here. */
static tdm_status probe_fn(tdm_replica_context *rc, void *user)
{
    replica_probe *p = user;
    size_t id = tdm_replica_id(rc), n = tdm_replica_num_replicas(rc);
    tdm_strategy *s = tdm_replica_strategy(rc), *cur = NULL;
    int ok = id < n && n == tdm_strategy_num_replicas(s) &&
             tdm_replica_device(rc) == tdm_strategy_device(s, id) &&
             tdm_replica_context_current() == rc && !tdm_in_cross_replica_context() &&
             tdm_strategy_current(ctx, &cur) == TDM_OK && cur == s;
    tdm_tensor *t = NULL;
    tdm_value *out = NULL;
    ok =
        ok &&
        tdm_strategy_reduce(s, TDM_REDUCE_SUM, p->value, TDM_AXIS_NONE, &t) ==
            TDM_ERR_INVALID_STATE &&
        strstr(tdm_last_error(), "merge_call") &&
        tdm_strategy_reduce_to(s, TDM_REDUCE_SUM, p->value, NULL, 0, &out) ==
            TDM_ERR_INVALID_STATE &&
        tdm_strategy_broadcast(s, tdm_replica_arg(rc, 0), NULL, 0, &out) == TDM_ERR_INVALID_STATE &&
        tdm_strategy_run(s, probe_fn, p, NULL, 0, NULL) == TDM_ERR_INVALID_STATE &&
        tdm_strategy_scope_enter(p->other) == TDM_ERR_INVALID_STATE &&
        strstr(tdm_last_error(), "mixing strategies") && tdm_strategy_scope_enter(s) == TDM_OK &&
        tdm_strategy_scope_exit(s) == TDM_OK &&
        tdm_strategy_scope_exit(s) == TDM_ERR_INVALID_STATE; /* run's own scope */
    if (!ok)
        atomic_fetch_add(&p->bad, 1);
    if (id < MAX_REPLICAS)
        atomic_fetch_add(&p->seen[id], 1);
    return TDM_OK;
}

static void check_replica_context(void)
{
    tdm_strategy *s = mirrored(NULL);
    replica_probe p = {.other = mirrored(NULL), .value = per_replica(s, 1, 1)};
    CHECK_OK(tdm_strategy_run(s, probe_fn, &p, &p.value, 1, NULL));
    CHECK(atomic_load(&p.bad) == 0);
    for (size_t i = 0; i < n_devs; i++)
        CHECK(atomic_load(&p.seen[i]) == 1);
    CHECK(!tdm_in_cross_replica_context()); /* run left its scope */
    tdm_value_destroy(p.value);
    tdm_strategy_destroy(p.other);
    tdm_strategy_destroy(s);
}

/* ---- run: arguments, results, local_results --------------------------------- */

/* result = 2 * arg0 + arg1 */
static tdm_status twice_plus(tdm_replica_context *rc, void *user)
{
    (void)user;
    tdm_tensor *x = tdm_replica_arg(rc, 0), *y = tdm_replica_arg(rc, 1), *out = NULL;
    tdm_shape shape = tdm_tensor_shape(x);
    tdm_status s = tdm_tensor_create(tdm_replica_device(rc), TDM_F32, &shape, &out);
    if (s == TDM_OK && (s = tdm_op_scale(out, x, 2.0f)) == TDM_OK &&
        (s = tdm_op_add(out, out, y)) == TDM_OK)
        return tdm_replica_set_result(rc, out);
    tdm_tensor_destroy(out);
    return s;
}

static void check_run_arguments(void)
{
    tdm_strategy *s = mirrored(NULL);
    tdm_value *args[2] = {per_replica(s, 3, 1), NULL};
    float plain[3] = {100, 200, 300};
    tdm_tensor *p = tensor_of(devs[n_devs - 1], TDM_SHAPE(3), plain);
    CHECK_OK(tdm_value_create(TDM_VALUE_PLAIN, &p, 1, &args[1]));
    tdm_value *result = NULL;
    CHECK_OK(tdm_strategy_run(s, twice_plus, NULL, args, 2, &result));
    CHECK(tdm_value_kind_of(result) == TDM_VALUE_PER_REPLICA);
    tdm_tensor *local[MAX_REPLICAS + 1];
    size_t count = 0;
    CHECK_OK(tdm_local_results(result, local, MAX_REPLICAS + 1, &count));
    CHECK(count == n_devs);
    for (size_t i = 0; i < count; i++) {
        CHECK(tdm_tensor_device(local[i]) == devs[i]);
        for (size_t j = 0; j < 3; j++)
            CHECK(read_at(local[i], j) == 2.0f * (1 + 10.0f * (float)i + (float)j) + plain[j]);
    }
    CHECK_OK(tdm_local_results(args[1], local, 1, &count)); /* a plain value: one element */
    CHECK(count == 1 && local[0] == p);
    tdm_value_destroy(result);
    tdm_value *wrong = NULL;
    tdm_tensor *one = tensor_of(devs[0], TDM_SHAPE(3), plain);
    CHECK_OK(tdm_value_create(TDM_VALUE_PER_REPLICA, &one, 1, &wrong));
    tdm_value *bad_args[2] = {wrong, args[1]};
    CHECK_FAILS(tdm_strategy_run(s, twice_plus, NULL, bad_args, 2, &result),
                TDM_ERR_INVALID_ARGUMENT, "components");
    tdm_value_destroy(wrong);
    tdm_value_destroy(args[0]);
    tdm_value_destroy(args[1]);
    tdm_strategy_destroy(s);
}

/* The seed example: OneDevice, summing run(x * 2) over x = 0..9 gives 90. */
static tdm_status times_two(tdm_replica_context *rc, void *user)
{
    (void)user;
    return twice_plus(rc, NULL);
}

static void check_one_device_seed(void)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_one_device(devs[0], NULL, &s));
    CHECK(tdm_strategy_num_replicas(s) == 1);
    CHECK(tdm_strategy_kind_of(s) == TDM_STRATEGY_ONE_DEVICE);
    float total = 0, zero = 0;
    for (int x = 0; x < 10; x++) {
        float fx = (float)x;
        tdm_tensor *t[2] = {tensor_of(devs[0], TDM_SCALAR, &fx),
                            tensor_of(devs[0], TDM_SCALAR, &zero)};
        tdm_value *args[2] = {NULL, NULL}, *result = NULL;
        CHECK_OK(tdm_value_create(TDM_VALUE_PLAIN, &t[0], 1, &args[0]));
        CHECK_OK(tdm_value_create(TDM_VALUE_PLAIN, &t[1], 1, &args[1]));
        CHECK_OK(tdm_strategy_run(s, times_two, NULL, args, 2, &result));
        tdm_tensor *sum = NULL;
        CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_SUM, result, TDM_AXIS_NONE, &sum));
        total += read_at(sum, 0);
        tdm_tensor_destroy(sum);
        tdm_value_destroy(result);
        tdm_value_destroy(args[0]);
        tdm_value_destroy(args[1]);
    }
    CHECK(total == 90.0f);
    tdm_strategy_destroy(s);
}

/* ---- merge_call and all_reduce ------------------------------------------------ */

typedef struct merge_probe {
    atomic_int calls;
    int in_cross_replica;
    size_t gathered;
} merge_probe;

/* Sums the gathered values and hands every replica the sum plus its id. */
static tdm_status merge_sum(tdm_strategy *s, const tdm_value *gathered, void *user,
                            tdm_value **result)
{
    merge_probe *p = user;
    atomic_fetch_add(&p->calls, 1);
    p->in_cross_replica = tdm_in_cross_replica_context() && !tdm_replica_context_current();
    p->gathered = tdm_value_count(gathered);
    tdm_tensor *sum = NULL;
    tdm_status st = tdm_strategy_reduce(s, TDM_REDUCE_SUM, gathered, TDM_AXIS_NONE, &sum);
    tdm_value *mirror = NULL;
    if (st == TDM_OK)
        st = tdm_strategy_broadcast(s, sum, NULL, 0, &mirror);
    tdm_tensor_destroy(sum);
    for (size_t i = 0; st == TDM_OK && i < tdm_value_count(mirror); i++) {
        tdm_tensor *c = tdm_value_component(mirror, i);
        float id = (float)i;
        tdm_tensor *t = tensor_of(tdm_tensor_device(c), TDM_SCALAR, &id);
        st = tdm_op_add(c, c, t);
        tdm_tensor_destroy(t);
    }
    *result = mirror;
    return st;
}

static tdm_status merging_fn(tdm_replica_context *rc, void *user)
{
    float mine = (float)(tdm_replica_id(rc) + 1);
    tdm_tensor *t = tensor_of(tdm_replica_device(rc), TDM_SCALAR, &mine), *out = NULL;
    tdm_status s = tdm_replica_merge_call(rc, merge_sum, user, t, &out);
    tdm_tensor_destroy(t);
    if (s == TDM_OK && out && tdm_tensor_device(out) == tdm_replica_device(rc))
        s = tdm_replica_set_result(rc, out);
    else
        tdm_tensor_destroy(out);
    return s;
}

static void check_merge_call(void)
{
    tdm_strategy *s = mirrored(NULL);
    merge_probe p = {0};
    tdm_value *result = NULL;
    CHECK_OK(tdm_strategy_run(s, merging_fn, &p, NULL, 0, &result));
    CHECK(atomic_load(&p.calls) == 1);
    CHECK(p.in_cross_replica);
    CHECK(p.gathered == n_devs);
    float sum = (float)(n_devs * (n_devs + 1) / 2);
    for (size_t i = 0; i < n_devs; i++)
        CHECK(read_at(tdm_value_component(result, i), 0) == sum + (float)i);
    tdm_value_destroy(result);
    tdm_strategy_destroy(s);
}

typedef struct reduce_case {
    tdm_reduce_op op;
} reduce_case;

static tdm_status all_reducing_fn(tdm_replica_context *rc, void *user)
{
    reduce_case *c = user;
    float v[4];
    for (int j = 0; j < 4; j++)
        v[j] = (float)(tdm_replica_id(rc) * 3 + (size_t)j);
    tdm_tensor *t = tensor_of(tdm_replica_device(rc), TDM_SHAPE(4), v);
    tdm_status s = tdm_replica_all_reduce(rc, c->op, t);
    return s == TDM_OK ? tdm_replica_set_result(rc, t) : s;
}

static void check_all_reduce(void)
{
    tdm_strategy *s = mirrored(NULL);
    const tdm_reduce_op ops[] = {TDM_REDUCE_SUM, TDM_REDUCE_MEAN, TDM_REDUCE_MAX, TDM_REDUCE_MIN};
    for (size_t o = 0; o < 4; o++) {
        reduce_case c = {ops[o]};
        tdm_value *result = NULL;
        CHECK_OK(tdm_strategy_run(s, all_reducing_fn, &c, NULL, 0, &result));
        for (size_t j = 0; j < 4; j++) {
            float sum = 0, n = (float)n_devs;
            for (size_t i = 0; i < n_devs; i++)
                sum += (float)(i * 3 + j);
            float want = ops[o] == TDM_REDUCE_SUM    ? sum
                         : ops[o] == TDM_REDUCE_MEAN ? sum * (float)(1.0 / n_devs)
                         : ops[o] == TDM_REDUCE_MAX  ? (float)((n - 1) * 3 + (float)j)
                                                     : (float)j;
            for (size_t i = 0; i < n_devs; i++)
                CHECK(read_at(tdm_value_component(result, i), j) == want);
        }
        tdm_value_destroy(result);
    }
    tdm_strategy_destroy(s);
}

/* Replica i's 4 values i * 3 + j as float16, summed in float16, back in float32
 * (whole numbers: exact); each refusal of a float16 all-reduce names its cause. */
static tdm_status f16_reducing_fn(tdm_replica_context *rc, void *user)
{
    (void)user;
    float v[4];
    for (int j = 0; j < 4; j++)
        v[j] = (float)(tdm_replica_id(rc) * 3 + (size_t)j);
    tdm_device *dev = tdm_replica_device(rc);
    tdm_tensor *t = tensor_of(dev, TDM_SHAPE(4), v), *h = NULL, *odd = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F16, &TDM_SHAPE(4), &h));
    CHECK_OK(tdm_tensor_create(dev, TDM_F16, &TDM_SHAPE(3), &odd));
    CHECK_OK(tdm_op_cast(h, t));
    CHECK_FAILS(tdm_replica_all_reduce(rc, TDM_REDUCE_MAX, h), TDM_ERR_UNSUPPORTED, "float16");
    CHECK_FAILS(tdm_replica_all_reduce(rc, TDM_REDUCE_SUM, odd), TDM_ERR_UNSUPPORTED, "even");
    tdm_status s = tdm_replica_all_reduce(rc, TDM_REDUCE_SUM, h);
    if (s == TDM_OK)
        s = tdm_op_cast(t, h);
    tdm_tensor_destroy(h);
    tdm_tensor_destroy(odd);
    return s == TDM_OK ? tdm_replica_set_result(rc, t) : s;
}

static void check_f16_all_reduce(void)
{
    tdm_strategy *s = mirrored(NULL);
    tdm_value *result = NULL;
    CHECK_OK(tdm_strategy_run(s, f16_reducing_fn, NULL, NULL, 0, &result));
    for (size_t j = 0; j < 4; j++) {
        float sum = 0;
        for (size_t i = 0; i < n_devs; i++)
            sum += (float)(i * 3 + j);
        for (size_t i = 0; i < n_devs; i++)
            CHECK(read_at(tdm_value_component(result, i), j) == sum);
    }
    tdm_value_destroy(result);
    tdm_strategy_destroy(s);
}

/* Two all-reduces in flight at once on every replica, waited for in the other
 * order, with queries; a third started and never waited for, which the run waits
 * for when the function returns. */
static tdm_status async_fn(tdm_replica_context *rc, void *user)
{
    (void)user;
    size_t id = tdm_replica_id(rc);
    float a[4], b[4], c[4];
    for (int j = 0; j < 4; j++) {
        a[j] = (float)(id * 3 + (size_t)j);
        b[j] = (float)(10 * id) - (float)j;
        c[j] = 1.0f;
    }
    tdm_device *dev = tdm_replica_device(rc);
    tdm_tensor *ta = tensor_of(dev, TDM_SHAPE(4), a), *tb = tensor_of(dev, TDM_SHAPE(4), b),
               *tc = tensor_of(dev, TDM_SHAPE(4), c);
    tdm_pending *pa = NULL, *pb = NULL, *pc = NULL;
    int done = 0;
    CHECK_OK(tdm_replica_all_reduce_start(rc, TDM_REDUCE_SUM, ta, &pa));
    CHECK_OK(tdm_replica_all_reduce_start(rc, TDM_REDUCE_MAX, tb, &pb));
    CHECK_OK(tdm_pending_query(pa, &done));
    CHECK_OK(tdm_pending_wait(pb));
    CHECK_OK(tdm_pending_wait(pa));
    CHECK_OK(tdm_replica_all_reduce_start(rc, TDM_REDUCE_SUM, tc, &pc));
    float sum = 0, max = (float)(10 * (n_devs - 1));
    for (size_t i = 0; i < n_devs; i++)
        sum += (float)(i * 3);
    CHECK(read_at(ta, 0) == sum && read_at(ta, 3) == sum + 3.0f * (float)n_devs);
    CHECK(read_at(tb, 0) == max && read_at(tb, 2) == max - 2.0f);
    tdm_tensor_destroy(ta);
    tdm_tensor_destroy(tb);
    return tdm_replica_set_result(rc, tc); /* pc is waited for on return */
}

static void check_async_all_reduce(void)
{
    tdm_strategy *s = mirrored(NULL);
    for (int round = 0; round < 3; round++) { /* the workers and engine are reused */
        tdm_value *result = NULL;
        CHECK_OK(tdm_strategy_run(s, async_fn, NULL, NULL, 0, &result));
        for (size_t i = 0; i < n_devs; i++)
            CHECK(read_at(tdm_value_component(result, i), 1) == (float)n_devs);
        tdm_value_destroy(result);
    }
    tdm_strategy_destroy(s);
}

/* The last replica reduces 2 float32 values where the others reduce 4 float16 ones:
 * the same bytes, another dtype. */
static tdm_status mistyped_fn(tdm_replica_context *rc, void *user)
{
    (void)user;
    int last = tdm_replica_id(rc) + 1 == tdm_replica_num_replicas(rc);
    tdm_tensor *t = NULL;
    CHECK_OK(tdm_tensor_create(tdm_replica_device(rc), last ? TDM_F32 : TDM_F16,
                               &TDM_SHAPE(last ? 2 : 4), &t));
    tdm_status s = tdm_replica_all_reduce(rc, TDM_REDUCE_SUM, t);
    tdm_tensor_destroy(t);
    return s;
}

/* The last replica asks for MEAN where the others ask for SUM. */
static tdm_status mismatched_fn(tdm_replica_context *rc, void *user)
{
    (void)user;
    float one = 1;
    tdm_tensor *t = tensor_of(tdm_replica_device(rc), TDM_SCALAR, &one);
    int last = tdm_replica_id(rc) + 1 == tdm_replica_num_replicas(rc);
    tdm_status s = tdm_replica_all_reduce(rc, last ? TDM_REDUCE_MEAN : TDM_REDUCE_SUM, t);
    tdm_tensor_destroy(t);
    return s;
}

/* Replica 1 fails while replica 0 waits in merge_call: the run reports replica 1's
 * error and replica 0 is released, not left hanging. */
static tdm_status failing_fn(tdm_replica_context *rc, void *user)
{
    atomic_int *cancelled = user;
    if (tdm_replica_id(rc) == 1) {
        tdm_tensor *bad = NULL;
        return tdm_tensor_create(NULL, TDM_F32, NULL, &bad); /* a real failure */
    }
    float one = 1;
    tdm_tensor *t = tensor_of(tdm_replica_device(rc), TDM_SCALAR, &one);
    tdm_status s = tdm_replica_all_reduce(rc, TDM_REDUCE_SUM, t);
    tdm_tensor_destroy(t);
    if (s == TDM_ERR_CANCELLED && strstr(tdm_last_error(), "replica 1"))
        atomic_fetch_add(cancelled, 1);
    return s;
}

/* Replica 0 returns without the all-reduce the others make. */
static tdm_status uneven_fn(tdm_replica_context *rc, void *user)
{
    (void)user;
    if (tdm_replica_id(rc) == 0)
        return TDM_OK;
    float one = 1;
    tdm_tensor *t = tensor_of(tdm_replica_device(rc), TDM_SCALAR, &one);
    tdm_status s = tdm_replica_all_reduce(rc, TDM_REDUCE_SUM, t);
    tdm_tensor_destroy(t);
    return s;
}

static void check_run_failures(void)
{
    tdm_strategy *s = mirrored(NULL);
    atomic_int cancelled = 0;
    CHECK_FAILS(tdm_strategy_run(s, failing_fn, &cancelled, NULL, 0, NULL),
                TDM_ERR_INVALID_ARGUMENT, "replica 1");
    CHECK(atomic_load(&cancelled) == (int)n_devs - 1); /* every other replica */
    CHECK_FAILS(tdm_strategy_run(s, uneven_fn, NULL, NULL, 0, NULL), TDM_ERR_INVALID_STATE,
                "same synchronising calls");
    if (n_devs > 1)
        CHECK_FAILS(tdm_strategy_run(s, mismatched_fn, NULL, NULL, 0, NULL), TDM_ERR_INVALID_STATE,
                    "(MEAN, 4 bytes of f32)");
    if (n_devs > 1)
        CHECK_FAILS(tdm_strategy_run(s, mistyped_fn, NULL, NULL, 0, NULL), TDM_ERR_INVALID_STATE,
                    "(SUM, 8 bytes of f32)");
    CHECK_OK(tdm_strategy_run(s, all_reducing_fn, &(reduce_case){TDM_REDUCE_SUM}, NULL, 0,
                              NULL)); /* the strategy is usable again */
    tdm_strategy_destroy(s);
}

/* ---- Mirrored strategy: devices -------------------------------------------- */

static void check_mirrored_devices(void)
{
    tdm_strategy *s = mirrored(NULL);
    CHECK(tdm_strategy_kind_of(s) == TDM_STRATEGY_MIRRORED);
    CHECK(tdm_strategy_num_replicas(s) == n_devs);
    for (size_t i = 0; i < n_devs; i++)
        CHECK(tdm_strategy_device(s, i) == devs[i]);
    tdm_strategy_destroy(s);
    tdm_device *twice[2] = {devs[0], devs[0]};
    CHECK_FAILS(tdm_strategy_create_mirrored(ctx, twice, 2, NULL, &s), TDM_ERR_INVALID_ARGUMENT,
                "used twice");
    CHECK(s == NULL);
    CHECK_FAILS(tdm_strategy_create_mirrored(ctx, devs, 0, NULL, &s), TDM_ERR_INVALID_ARGUMENT,
                "count");
    /* Default: every usable device once, never a logical device or the same twice. */
    CHECK_OK(tdm_strategy_create_mirrored(ctx, NULL, 0, NULL, &s));
    for (size_t i = 0; i < tdm_strategy_num_replicas(s); i++) {
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        CHECK_OK(tdm_device_describe(tdm_strategy_device(s, i), &d));
        CHECK(d.parent < 0 && d.same_hardware_as < 0);
        CHECK(d.backend != TDM_BACKEND_REFERENCE || tdm_strategy_num_replicas(s) == 1);
    }
    tdm_strategy_destroy(s);
}

/* A logical device and the device it was split from are the same hardware. */
static void check_same_hardware(void)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(devs[0], &d));
    if (d.parent < 0)
        return;
    tdm_device *parent = NULL, *pair[2];
    CHECK_OK(tdm_context_device(ctx, (size_t)d.parent, &parent));
    pair[0] = parent;
    pair[1] = devs[0];
    tdm_strategy *s = NULL;
    CHECK_FAILS(tdm_strategy_create_mirrored(ctx, pair, 2, NULL, &s), TDM_ERR_INVALID_ARGUMENT,
                "same hardware");
}

/* ---- Cross-device ops ------------------------------------------------------- */

/* The host fold in replica order, as the collectives compute it. */
static float fold(tdm_reduce_op op, const float *v, size_t n)
{
    float acc = v[0];
    for (size_t i = 1; i < n; i++)
        acc = op == TDM_REDUCE_MAX   ? fmaxf(acc, v[i])
              : op == TDM_REDUCE_MIN ? fminf(acc, v[i])
                                     : acc + v[i];
    return op == TDM_REDUCE_MEAN ? acc * (float)(1.0 / (double)n) : acc;
}

/* Component i of a PER_REPLICA value of random floats, element j. */
static float random_at(size_t i, size_t j)
{
    uint32_t bits;
    test_random_bytes(&bits, sizeof bits, (unsigned)(i * 1000 + j));
    return ldexpf((float)(bits >> 8) * 0x1p-24f - 0.5f, (int)(bits % 11) - 5);
}

static tdm_value *random_per_replica(tdm_strategy *s, size_t count)
{
    tdm_tensor *t[MAX_REPLICAS];
    float *data = malloc(count * sizeof *data);
    for (size_t i = 0; i < n_devs; i++) {
        for (size_t j = 0; j < count; j++)
            data[j] = random_at(i, j);
        t[i] = tensor_of(tdm_strategy_device(s, i), TDM_SHAPE(count), data);
    }
    free(data);
    tdm_value *v = NULL;
    CHECK_OK(tdm_value_create(TDM_VALUE_PER_REPLICA, t, n_devs, &v));
    return v;
}

/* Every component of a MIRRORED value holds the replica-order fold, bit for bit. */
static void expect_fold(const tdm_value *v, tdm_reduce_op op, size_t count, const char *what)
{
    CHECK(tdm_value_kind_of(v) == TDM_VALUE_MIRRORED);
    float *got = malloc(count * sizeof *got);
    for (size_t c = 0; c < tdm_value_count(v); c++) {
        CHECK_OK(tdm_tensor_read(tdm_value_component(v, c), got, count * sizeof *got));
        for (size_t j = 0; j < count; j++) {
            float in[MAX_REPLICAS] = {0};
            for (size_t i = 0; i < n_devs; i++)
                in[i] = random_at(i, j);
            float want = fold(op, in, n_devs);
            if (memcmp(&got[j], &want, 4)) {
                CHECK(!"bitwise equal to the replica-order fold");
                fprintf(stderr, "%s: component %zu element %zu: %a, expected %a\n", what, c, j,
                        (double)got[j], (double)want);
                break;
            }
        }
    }
    free(got);
}

/* reduce_to with one algorithm: every op to the value's devices, MEAN to one device. */
static void reduce_to_with(tdm_collective_algorithm algorithm, tdm_value *v, tdm_strategy *s)
{
    tdm_value *out = NULL;
    for (int op = TDM_REDUCE_SUM; op <= TDM_REDUCE_MIN; op++) {
        tdm_status st = tdm_strategy_reduce_to(s, (tdm_reduce_op)op, v, NULL, 0, &out);
        if (st == TDM_ERR_UNSUPPORTED && algorithm == TDM_COLLECTIVE_DIRECT)
            return; /* these devices share no memory */
        CHECK_OK(st);
        CHECK(tdm_value_count(out) == n_devs);
        expect_fold(out, (tdm_reduce_op)op, 1001, "reduce_to");
        tdm_value_destroy(out);
    }
    CHECK_OK(tdm_strategy_reduce_to(s, TDM_REDUCE_MEAN, v, devs, 1, &out));
    CHECK(tdm_value_count(out) == 1 && tdm_tensor_device(tdm_value_component(out, 0)) == devs[0]);
    expect_fold(out, TDM_REDUCE_MEAN, 1001, "reduce_to one destination");
    tdm_value_destroy(out);
}

static void check_reduce_to(void)
{
    for (int a = TDM_COLLECTIVE_AUTO; a <= TDM_COLLECTIVE_HOST; a++) {
        tdm_strategy_options o = TDM_STRATEGY_OPTIONS_INIT;
        o.algorithm = (tdm_collective_algorithm)a;
        o.reduce_device = (int)n_devs - 1; /* a chosen target */
        tdm_strategy *s = mirrored(&o);
        tdm_value *v = random_per_replica(s, 1001), *out = NULL;
        reduce_to_with(o.algorithm, v, s);
        CHECK_FAILS(tdm_strategy_reduce_to(s, TDM_REDUCE_SUM, v, devs, 0, &out),
                    TDM_ERR_INVALID_ARGUMENT, "empty");
        tdm_value_destroy(v);
        tdm_strategy_destroy(s);
    }
}

static void check_batch_and_broadcast(void)
{
    tdm_strategy_options o = TDM_STRATEGY_OPTIONS_INIT;
    o.num_packs = 2;
    tdm_strategy *s = mirrored(&o);
    const size_t sizes[3] = {7, 1001, 1};
    tdm_value *values[3], *out[3] = {NULL, NULL, NULL};
    for (size_t k = 0; k < 3; k++)
        values[k] = random_per_replica(s, sizes[k]);
    CHECK_OK(tdm_strategy_batch_reduce_to(s, TDM_REDUCE_SUM, (const tdm_value *const *)values, 3,
                                          NULL, 0, out));
    for (size_t k = 0; k < 3; k++) {
        expect_fold(out[k], TDM_REDUCE_SUM, sizes[k], "batch_reduce_to");
        tdm_value_destroy(out[k]);
    }
    CHECK_OK(tdm_strategy_batch_reduce_to(s, TDM_REDUCE_MEAN, (const tdm_value *const *)values, 3,
                                          devs + n_devs - 1, 1, out)); /* other destinations */
    for (size_t k = 0; k < 3; k++) {
        expect_fold(out[k], TDM_REDUCE_MEAN, sizes[k], "batch_reduce_to one destination");
        tdm_value_destroy(out[k]);
        tdm_value_destroy(values[k]);
    }
    float data[3] = {1.5f, -2, 4};
    tdm_tensor *t = tensor_of(devs[0], TDM_SHAPE(3), data);
    tdm_value *b = NULL;
    CHECK_OK(tdm_strategy_broadcast(s, t, NULL, 0, &b));
    CHECK(tdm_value_kind_of(b) == TDM_VALUE_MIRRORED && tdm_value_count(b) == n_devs);
    for (size_t i = 0; i < tdm_value_count(b); i++)
        for (size_t j = 0; j < 3; j++)
            CHECK(read_at(tdm_value_component(b, i), j) == data[j]);
    tdm_value_destroy(b);
    CHECK_FAILS(tdm_strategy_broadcast(s, t, devs, 0, &b), TDM_ERR_INVALID_ARGUMENT, "empty");
    tdm_tensor_destroy(t);
    tdm_strategy_destroy(s);
}

/* ---- Strategy.reduce ------------------------------------------------------- */

/* Rows per replica for the partial last batch: 4 + 2 (+ 0 for a third replica). */
static tdm_value *batch_rows(tdm_strategy *s, float *all, size_t *total)
{
    static const size_t rows[MAX_REPLICAS] = {4, 2, 0};
    tdm_tensor *t[MAX_REPLICAS];
    *total = 0;
    for (size_t i = 0; i < n_devs; i++) {
        float data[8];
        for (size_t r = 0; r < rows[i]; r++)
            for (size_t c = 0; c < 2; c++)
                all[(*total + r) * 2 + c] = data[r * 2 + c] =
                    (float)(1 + *total + r) * (c ? -1.0f : 1.0f);
        t[i] = tensor_of(tdm_strategy_device(s, i), TDM_SHAPE(rows[i], 2), data);
        *total += rows[i];
    }
    tdm_value *v = NULL;
    CHECK_OK(tdm_value_create(TDM_VALUE_PER_REPLICA, t, n_devs, &v));
    return v;
}

static void check_reduce_axis(void)
{
    tdm_strategy *s = mirrored(NULL);
    float all[16];
    size_t total;
    tdm_value *v = batch_rows(s, all, &total); /* 6 rows: 1..6 and -1..-6 */
    tdm_tensor *r = NULL;
    CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_MEAN, v, 0, &r));
    CHECK(tdm_tensor_shape(r).rank == 1 && tdm_tensor_shape(r).dims[0] == 2);
    CHECK(read_at(r, 0) == 3.5f && read_at(r, 1) == -3.5f); /* 21 / 6, not (2.5 + 5.5) / 2 */
    tdm_tensor_destroy(r);
    CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_SUM, v, 0, &r));
    CHECK(read_at(r, 0) == 21.0f && read_at(r, 1) == -21.0f);
    tdm_tensor_destroy(r);
    CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_MAX, v, 0, &r));
    CHECK(read_at(r, 0) == 6.0f && read_at(r, 1) == -1.0f);
    tdm_tensor_destroy(r);
    CHECK_FAILS(tdm_strategy_reduce(s, TDM_REDUCE_SUM, v, 1, &r), TDM_ERR_INVALID_ARGUMENT,
                "differ outside axis 1");
    CHECK_FAILS(tdm_strategy_reduce(s, TDM_REDUCE_SUM, v, TDM_AXIS_NONE, &r),
                TDM_ERR_INVALID_ARGUMENT, "shapes must match");
    CHECK_FAILS(tdm_strategy_reduce(s, TDM_REDUCE_SUM, v, 2, &r), TDM_ERR_INVALID_ARGUMENT,
                "past the rank");
    tdm_value_destroy(v);
    tdm_strategy_destroy(s);
}

static void check_reduce_kinds(void)
{
    tdm_strategy *s = mirrored(NULL);
    /* Integers: MEAN gives float, SUM stays integer. */
    tdm_tensor *t[MAX_REPLICAS];
    for (size_t i = 0; i < n_devs; i++) {
        int32_t data[2] = {(int32_t)i + 1, 7};
        CHECK_OK(tdm_tensor_create(devs[i], TDM_I32, &TDM_SHAPE(2), &t[i]));
        CHECK_OK(tdm_tensor_write(t[i], data, sizeof data));
    }
    tdm_value *ints = NULL;
    CHECK_OK(tdm_value_create(TDM_VALUE_PER_REPLICA, t, n_devs, &ints));
    tdm_tensor *r = NULL;
    CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_MEAN, ints, TDM_AXIS_NONE, &r));
    CHECK(tdm_tensor_dtype(r) == TDM_F32);
    CHECK(read_at(r, 0) == (float)(n_devs + 1) / 2.0f);
    tdm_tensor_destroy(r);
    CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_SUM, ints, TDM_AXIS_NONE, &r));
    int32_t sums[2] = {0, 0};
    CHECK(tdm_tensor_dtype(r) == TDM_I32);
    CHECK_OK(tdm_tensor_read(r, sums, sizeof sums));
    CHECK(sums[0] == (int32_t)(n_devs * (n_devs + 1) / 2) && sums[1] == 7 * (int32_t)n_devs);
    tdm_tensor_destroy(r);
    tdm_value_destroy(ints);
    /* A plain value: MEAN returns it, SUM over N > 1 replicas is an error. */
    float x[2] = {0.1f, 3};
    tdm_tensor *p = tensor_of(devs[0], TDM_SHAPE(2), x);
    tdm_value *plain = NULL;
    CHECK_OK(tdm_value_create(TDM_VALUE_PLAIN, &p, 1, &plain));
    CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_MEAN, plain, TDM_AXIS_NONE, &r));
    CHECK(read_at(r, 0) == 0.1f && read_at(r, 1) == 3.0f);
    tdm_tensor_destroy(r);
    CHECK_FAILS(tdm_strategy_reduce(s, TDM_REDUCE_SUM, plain, TDM_AXIS_NONE, &r),
                TDM_ERR_INVALID_ARGUMENT, "plain value");
    tdm_value *out = NULL;
    CHECK_FAILS(tdm_strategy_reduce_to(s, TDM_REDUCE_SUM, plain, NULL, 0, &out),
                TDM_ERR_INVALID_ARGUMENT, "plain value");
    tdm_strategy *one = NULL;
    CHECK_OK(tdm_strategy_create_one_device(devs[0], NULL, &one));
    CHECK_OK(tdm_strategy_reduce(one, TDM_REDUCE_SUM, plain, TDM_AXIS_NONE, &r)); /* N = 1 */
    CHECK(read_at(r, 1) == 3.0f);
    tdm_tensor_destroy(r);
    tdm_strategy_destroy(one);
    tdm_value_destroy(plain);
    tdm_strategy_destroy(s);
}

/* has_strategy, require_replica_context and get_loss_reduction as TensorFlow has them. */
typedef struct module_probe {
    tdm_replica_context *_Atomic ctxs[MAX_REPLICAS]; /* every replica's, during the run */
    atomic_int bad, merged;
    tdm_tensor *losses[MAX_REPLICAS], *loss[MAX_REPLICAS];
} module_probe;

/* In cross-replica mode, with every replica's context alive. */
static tdm_status module_merge(tdm_strategy *s, const tdm_value *gathered, void *user,
                               tdm_value **result)
{
    module_probe *p = user;
    (void)s, (void)gathered, (void)result;
    if (tdm_require_replica_context(p->ctxs[0]) == TDM_ERR_INVALID_STATE &&
        strstr(tdm_last_error(), "called in cross-replica mode") && tdm_has_strategy())
        atomic_fetch_add(&p->merged, 1);
    return TDM_OK;
}

static tdm_status module_fn(tdm_replica_context *rc, void *user)
{
    module_probe *p = user;
    size_t id = tdm_replica_id(rc), n = tdm_replica_num_replicas(rc);
    atomic_store(&p->ctxs[id], rc);
    for (size_t i = 0; i < n; i++) /* replicas run concurrently: all arrive */
        while (!atomic_load(&p->ctxs[i]))
            ;
    int ok = tdm_has_strategy() && tdm_require_replica_context(rc) == TDM_OK &&
             tdm_require_replica_context(p->ctxs[(id + 1) % n]) == TDM_ERR_INVALID_STATE &&
             strstr(tdm_last_error(), "another replica's function") &&
             tdm_get_loss_reduction() == TDM_REDUCE_SUM;
    tdm_status s = tdm_replica_merge_call(rc, module_merge, p, NULL, NULL);
    ok = ok && s == TDM_OK && tdm_compute_average_loss(p->losses[id], 8, p->loss[id]) == TDM_OK &&
         tdm_get_loss_reduction() == TDM_REDUCE_MEAN;
    if (!ok)
        atomic_fetch_add(&p->bad, 1);
    return s;
}

static void check_module_functions(void)
{
    tdm_strategy *s = mirrored(NULL), *d = NULL;
    /* zero throughout: clang refuses {0}, whose 0 would meet the atomic pointers */
    module_probe p = {.merged = 0};
    const float four[4] = {1, 2, 3, 4};
    for (size_t i = 0; i < n_devs; i++) {
        p.losses[i] = tensor_of(devs[i], TDM_SHAPE(4), four);
        p.loss[i] = tensor_of(devs[i], TDM_SCALAR, NULL);
    }
    CHECK(!tdm_has_strategy());
    CHECK(tdm_get_loss_reduction() == TDM_REDUCE_SUM);
    CHECK_OK(tdm_strategy_default(ctx, &d));
    CHECK_OK(tdm_strategy_scope_enter(d));
    CHECK(!tdm_has_strategy()); /* the default strategy is no strategy */
    CHECK_OK(tdm_strategy_scope_exit(d));
    CHECK_OK(tdm_strategy_scope_enter(s));
    CHECK(tdm_has_strategy());
    CHECK(tdm_get_loss_reduction() == TDM_REDUCE_SUM); /* no loss computed yet */
    CHECK_OK(tdm_strategy_run(s, module_fn, &p, NULL, 0, NULL));
    CHECK(atomic_load(&p.bad) == 0);
    CHECK(atomic_load(&p.merged) == 1);
    CHECK(tdm_get_loss_reduction() == TDM_REDUCE_MEAN);
    CHECK_OK(tdm_strategy_scope_exit(s));
    CHECK(!tdm_has_strategy());
    CHECK_FAILS(tdm_require_replica_context(NULL), TDM_ERR_INVALID_ARGUMENT, "rc");
    for (size_t i = 0; i < n_devs; i++) {
        tdm_tensor_destroy(p.losses[i]);
        tdm_tensor_destroy(p.loss[i]);
    }
    tdm_strategy_destroy(s);
}

/* Default mode: one replica; reductions are identities. */
static void check_default_strategy(void)
{
    tdm_strategy *d = NULL;
    CHECK_OK(tdm_strategy_default(ctx, &d));
    tdm_value *v = per_replica(d, 3, 5);
    tdm_tensor *r = NULL;
    CHECK_OK(tdm_strategy_reduce(d, TDM_REDUCE_SUM, v, TDM_AXIS_NONE, &r));
    for (size_t j = 0; j < 3; j++)
        CHECK(read_at(r, j) == 5.0f + (float)j);
    tdm_tensor_destroy(r);
    tdm_value_destroy(v);
}

void test_case_strategy(const test_run *run)
{
    n_devs = test_scenario_of(run, &ctx, devs);
    check_default_mode();
    check_scopes();
    check_replica_context();
    check_run_arguments();
    check_one_device_seed();
    check_merge_call();
    check_all_reduce();
    check_f16_all_reduce();
    check_async_all_reduce();
    check_run_failures();
    check_mirrored_devices();
    check_same_hardware();
    check_reduce_to();
    check_batch_and_broadcast();
    check_reduce_axis();
    check_reduce_kinds();
    check_default_strategy();
    check_module_functions();
}
