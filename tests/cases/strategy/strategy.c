/* Strategies, contexts, run and merge_call, per-replica values, Strategy.reduce and
 * the cross-device ops (docs/SEMANTICS.md: Modes, Strategies, Reductions) on the
 * replicas of a scenario (see test_scenario_devices). */
#include "strategy_fixture.h"

/* ---- Contexts ---------------------------------------------------------------- */

static void check_default_mode(void)
{
    tdm_strategy *d = NULL, *again = NULL;
    CHECK_OK(tdm_strategy_current(strat_ctx, &d));
    CHECK_OK(tdm_strategy_default(strat_ctx, &again));
    CHECK(d && d == again);
    CHECK(tdm_strategy_kind_of(d) == TDM_STRATEGY_DEFAULT);
    CHECK(tdm_strategy_num_replicas(d) == 1);
    CHECK(!tdm_in_cross_replica_context());
    CHECK(tdm_replica_context_current() == NULL);
    tdm_strategy_destroy(d); /* the context owns it: a no-op */
    CHECK_OK(tdm_strategy_current(strat_ctx, &again));
    CHECK(again == d);
}

static void check_scopes(void)
{
    tdm_strategy *a = strat_mirrored(NULL), *b = strat_mirrored(NULL), *cur = NULL;
    CHECK_OK(tdm_strategy_scope_enter(a));
    CHECK(tdm_in_cross_replica_context());
    CHECK_OK(tdm_strategy_current(strat_ctx, &cur));
    CHECK(cur == a);
    CHECK_OK(tdm_strategy_scope_enter(a)); /* re-entering the same scope is fine */
    CHECK_FAILS(tdm_strategy_scope_enter(b), TDM_ERR_INVALID_STATE, "mixing strategies");
    tdm_value *v = strat_per_replica(b, 2, 0);
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
             tdm_strategy_current(strat_ctx, &cur) == TDM_OK && cur == s;
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
    tdm_strategy *s = strat_mirrored(NULL);
    replica_probe p = {.other = strat_mirrored(NULL), .value = strat_per_replica(s, 1, 1)};
    CHECK_OK(tdm_strategy_run(s, probe_fn, &p, &p.value, 1, NULL));
    CHECK(atomic_load(&p.bad) == 0);
    for (size_t i = 0; i < strat_n_devs; i++)
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
    tdm_strategy *s = strat_mirrored(NULL);
    tdm_value *args[2] = {strat_per_replica(s, 3, 1), NULL};
    float plain[3] = {100, 200, 300};
    tdm_tensor *p = strat_tensor_of(strat_devs[strat_n_devs - 1], TDM_SHAPE(3), plain);
    CHECK_OK(tdm_value_create(TDM_VALUE_PLAIN, &p, 1, &args[1]));
    tdm_value *result = NULL;
    CHECK_OK(tdm_strategy_run(s, twice_plus, NULL, args, 2, &result));
    CHECK(tdm_value_kind_of(result) == TDM_VALUE_PER_REPLICA);
    tdm_tensor *local[MAX_REPLICAS + 1];
    size_t count = 0;
    CHECK_OK(tdm_local_results(result, local, MAX_REPLICAS + 1, &count));
    CHECK(count == strat_n_devs);
    for (size_t i = 0; i < count; i++) {
        CHECK(tdm_tensor_device(local[i]) == strat_devs[i]);
        for (size_t j = 0; j < 3; j++)
            CHECK(strat_read_at(local[i], j) ==
                  2.0f * (1 + 10.0f * (float)i + (float)j) + plain[j]);
    }
    CHECK_OK(tdm_local_results(args[1], local, 1, &count)); /* a plain value: one element */
    CHECK(count == 1 && local[0] == p);
    tdm_value_destroy(result);
    tdm_value *wrong = NULL;
    tdm_tensor *one = strat_tensor_of(strat_devs[0], TDM_SHAPE(3), plain);
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
    CHECK_OK(tdm_strategy_create_one_device(strat_devs[0], NULL, &s));
    CHECK(tdm_strategy_num_replicas(s) == 1);
    CHECK(tdm_strategy_kind_of(s) == TDM_STRATEGY_ONE_DEVICE);
    float total = 0, zero = 0;
    for (int x = 0; x < 10; x++) {
        float fx = (float)x;
        tdm_tensor *t[2] = {strat_tensor_of(strat_devs[0], TDM_SCALAR, &fx),
                            strat_tensor_of(strat_devs[0], TDM_SCALAR, &zero)};
        tdm_value *args[2] = {NULL, NULL}, *result = NULL;
        CHECK_OK(tdm_value_create(TDM_VALUE_PLAIN, &t[0], 1, &args[0]));
        CHECK_OK(tdm_value_create(TDM_VALUE_PLAIN, &t[1], 1, &args[1]));
        CHECK_OK(tdm_strategy_run(s, times_two, NULL, args, 2, &result));
        tdm_tensor *sum = NULL;
        CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_SUM, result, TDM_AXIS_NONE, &sum));
        total += strat_read_at(sum, 0);
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
        tdm_tensor *t = strat_tensor_of(tdm_tensor_device(c), TDM_SCALAR, &id);
        st = tdm_op_add(c, c, t);
        tdm_tensor_destroy(t);
    }
    *result = mirror;
    return st;
}

static tdm_status merging_fn(tdm_replica_context *rc, void *user)
{
    float mine = (float)(tdm_replica_id(rc) + 1);
    tdm_tensor *t = strat_tensor_of(tdm_replica_device(rc), TDM_SCALAR, &mine), *out = NULL;
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
    tdm_strategy *s = strat_mirrored(NULL);
    merge_probe p = {0};
    tdm_value *result = NULL;
    CHECK_OK(tdm_strategy_run(s, merging_fn, &p, NULL, 0, &result));
    CHECK(atomic_load(&p.calls) == 1);
    CHECK(p.in_cross_replica);
    CHECK(p.gathered == strat_n_devs);
    float sum = (float)(strat_n_devs * (strat_n_devs + 1) / 2);
    for (size_t i = 0; i < strat_n_devs; i++)
        CHECK(strat_read_at(tdm_value_component(result, i), 0) == sum + (float)i);
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
    tdm_tensor *t = strat_tensor_of(tdm_replica_device(rc), TDM_SHAPE(4), v);
    tdm_status s = tdm_replica_all_reduce(rc, c->op, t);
    return s == TDM_OK ? tdm_replica_set_result(rc, t) : s;
}

static void check_all_reduce(void)
{
    tdm_strategy *s = strat_mirrored(NULL);
    const tdm_reduce_op ops[] = {TDM_REDUCE_SUM, TDM_REDUCE_MEAN, TDM_REDUCE_MAX, TDM_REDUCE_MIN};
    for (size_t o = 0; o < 4; o++) {
        reduce_case c = {ops[o]};
        tdm_value *result = NULL;
        CHECK_OK(tdm_strategy_run(s, all_reducing_fn, &c, NULL, 0, &result));
        for (size_t j = 0; j < 4; j++) {
            float sum = 0, n = (float)strat_n_devs;
            for (size_t i = 0; i < strat_n_devs; i++)
                sum += (float)(i * 3 + j);
            float want = ops[o] == TDM_REDUCE_SUM    ? sum
                         : ops[o] == TDM_REDUCE_MEAN ? sum * (float)(1.0 / strat_n_devs)
                         : ops[o] == TDM_REDUCE_MAX  ? (float)((n - 1) * 3 + (float)j)
                                                     : (float)j;
            for (size_t i = 0; i < strat_n_devs; i++)
                CHECK(strat_read_at(tdm_value_component(result, i), j) == want);
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
    tdm_tensor *t = strat_tensor_of(dev, TDM_SHAPE(4), v), *h = NULL, *odd = NULL;
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
    tdm_strategy *s = strat_mirrored(NULL);
    tdm_value *result = NULL;
    CHECK_OK(tdm_strategy_run(s, f16_reducing_fn, NULL, NULL, 0, &result));
    for (size_t j = 0; j < 4; j++) {
        float sum = 0;
        for (size_t i = 0; i < strat_n_devs; i++)
            sum += (float)(i * 3 + j);
        for (size_t i = 0; i < strat_n_devs; i++)
            CHECK(strat_read_at(tdm_value_component(result, i), j) == sum);
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
    tdm_tensor *ta = strat_tensor_of(dev, TDM_SHAPE(4), a),
               *tb = strat_tensor_of(dev, TDM_SHAPE(4), b),
               *tc = strat_tensor_of(dev, TDM_SHAPE(4), c);
    tdm_pending *pa = NULL, *pb = NULL, *pc = NULL;
    int done = 0;
    CHECK_OK(tdm_replica_all_reduce_start(rc, TDM_REDUCE_SUM, ta, &pa));
    CHECK_OK(tdm_replica_all_reduce_start(rc, TDM_REDUCE_MAX, tb, &pb));
    CHECK_OK(tdm_pending_query(pa, &done));
    CHECK_OK(tdm_pending_wait(pb));
    CHECK_OK(tdm_pending_wait(pa));
    CHECK_OK(tdm_replica_all_reduce_start(rc, TDM_REDUCE_SUM, tc, &pc));
    float sum = 0, max = (float)(10 * (strat_n_devs - 1));
    for (size_t i = 0; i < strat_n_devs; i++)
        sum += (float)(i * 3);
    CHECK(strat_read_at(ta, 0) == sum && strat_read_at(ta, 3) == sum + 3.0f * (float)strat_n_devs);
    CHECK(strat_read_at(tb, 0) == max && strat_read_at(tb, 2) == max - 2.0f);
    tdm_tensor_destroy(ta);
    tdm_tensor_destroy(tb);
    return tdm_replica_set_result(rc, tc); /* pc is waited for on return */
}

static void check_async_all_reduce(void)
{
    tdm_strategy *s = strat_mirrored(NULL);
    for (int round = 0; round < 3; round++) { /* the workers and engine are reused */
        tdm_value *result = NULL;
        CHECK_OK(tdm_strategy_run(s, async_fn, NULL, NULL, 0, &result));
        for (size_t i = 0; i < strat_n_devs; i++)
            CHECK(strat_read_at(tdm_value_component(result, i), 1) == (float)strat_n_devs);
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
    tdm_tensor *t = strat_tensor_of(tdm_replica_device(rc), TDM_SCALAR, &one);
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
    tdm_tensor *t = strat_tensor_of(tdm_replica_device(rc), TDM_SCALAR, &one);
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
    tdm_tensor *t = strat_tensor_of(tdm_replica_device(rc), TDM_SCALAR, &one);
    tdm_status s = tdm_replica_all_reduce(rc, TDM_REDUCE_SUM, t);
    tdm_tensor_destroy(t);
    return s;
}

static void check_run_failures(void)
{
    tdm_strategy *s = strat_mirrored(NULL);
    atomic_int cancelled = 0;
    CHECK_FAILS(tdm_strategy_run(s, failing_fn, &cancelled, NULL, 0, NULL),
                TDM_ERR_INVALID_ARGUMENT, "replica 1");
    CHECK(atomic_load(&cancelled) == (int)strat_n_devs - 1); /* every other replica */
    CHECK_FAILS(tdm_strategy_run(s, uneven_fn, NULL, NULL, 0, NULL), TDM_ERR_INVALID_STATE,
                "same synchronising calls");
    if (strat_n_devs > 1)
        CHECK_FAILS(tdm_strategy_run(s, mismatched_fn, NULL, NULL, 0, NULL), TDM_ERR_INVALID_STATE,
                    "(MEAN, 4 bytes of f32)");
    if (strat_n_devs > 1)
        CHECK_FAILS(tdm_strategy_run(s, mistyped_fn, NULL, NULL, 0, NULL), TDM_ERR_INVALID_STATE,
                    "(SUM, 8 bytes of f32)");
    CHECK_OK(tdm_strategy_run(s, all_reducing_fn, &(reduce_case){TDM_REDUCE_SUM}, NULL, 0,
                              NULL)); /* the strategy is usable again */
    tdm_strategy_destroy(s);
}

void test_case_strategy(const test_run *run)
{
    strat_n_devs = test_scenario_of(run, &strat_ctx, strat_devs);
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
    strat_check_mirrored_devices();
    strat_check_same_hardware();
    strat_check_reduce_to();
    strat_check_batch_and_broadcast();
    strat_check_reduce_axis();
    strat_check_reduce_kinds();
    strat_check_default_strategy();
    strat_check_module_functions();
}
