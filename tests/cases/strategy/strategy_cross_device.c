/* The strategy case, its second part (strategy.c runs it): the mirrored strategy's
 * devices, the cross-device ops, Strategy.reduce and the default strategy. */
#include "strategy_fixture.h"

/* ---- Mirrored strategy: devices -------------------------------------------- */

void strat_check_mirrored_devices(void)
{
    tdm_strategy *s = strat_mirrored(NULL);
    CHECK(tdm_strategy_kind_of(s) == TDM_STRATEGY_MIRRORED);
    CHECK(tdm_strategy_num_replicas(s) == strat_n_devs);
    for (size_t i = 0; i < strat_n_devs; i++)
        CHECK(tdm_strategy_device(s, i) == strat_devs[i]);
    tdm_strategy_destroy(s);
    tdm_device *twice[2] = {strat_devs[0], strat_devs[0]};
    CHECK_FAILS(tdm_strategy_create_mirrored(strat_ctx, twice, 2, NULL, &s),
                TDM_ERR_INVALID_ARGUMENT, "used twice");
    CHECK(s == NULL);
    CHECK_FAILS(tdm_strategy_create_mirrored(strat_ctx, strat_devs, 0, NULL, &s),
                TDM_ERR_INVALID_ARGUMENT, "count");
    /* Default: every usable device once, never a logical device or the same twice. */
    CHECK_OK(tdm_strategy_create_mirrored(strat_ctx, NULL, 0, NULL, &s));
    for (size_t i = 0; i < tdm_strategy_num_replicas(s); i++) {
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        CHECK_OK(tdm_device_describe(tdm_strategy_device(s, i), &d));
        CHECK(d.parent < 0 && d.same_hardware_as < 0);
        CHECK(d.backend != TDM_BACKEND_REFERENCE || tdm_strategy_num_replicas(s) == 1);
    }
    tdm_strategy_destroy(s);
}

/* A logical device and the device it was split from are the same hardware. */
void strat_check_same_hardware(void)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(strat_devs[0], &d));
    if (d.parent < 0)
        return;
    tdm_device *parent = NULL, *pair[2];
    CHECK_OK(tdm_context_device(strat_ctx, (size_t)d.parent, &parent));
    pair[0] = parent;
    pair[1] = strat_devs[0];
    tdm_strategy *s = NULL;
    CHECK_FAILS(tdm_strategy_create_mirrored(strat_ctx, pair, 2, NULL, &s),
                TDM_ERR_INVALID_ARGUMENT, "same hardware");
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
    for (size_t i = 0; i < strat_n_devs; i++) {
        for (size_t j = 0; j < count; j++)
            data[j] = random_at(i, j);
        t[i] = strat_tensor_of(tdm_strategy_device(s, i), TDM_SHAPE(count), data);
    }
    free(data);
    tdm_value *v = NULL;
    CHECK_OK(tdm_value_create(TDM_VALUE_PER_REPLICA, t, strat_n_devs, &v));
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
            for (size_t i = 0; i < strat_n_devs; i++)
                in[i] = random_at(i, j);
            float want = fold(op, in, strat_n_devs);
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
        CHECK(tdm_value_count(out) == strat_n_devs);
        expect_fold(out, (tdm_reduce_op)op, 1001, "reduce_to");
        tdm_value_destroy(out);
    }
    CHECK_OK(tdm_strategy_reduce_to(s, TDM_REDUCE_MEAN, v, strat_devs, 1, &out));
    CHECK(tdm_value_count(out) == 1 &&
          tdm_tensor_device(tdm_value_component(out, 0)) == strat_devs[0]);
    expect_fold(out, TDM_REDUCE_MEAN, 1001, "reduce_to one destination");
    tdm_value_destroy(out);
}

void strat_check_reduce_to(void)
{
    for (int a = TDM_COLLECTIVE_AUTO; a <= TDM_COLLECTIVE_HOST; a++) {
        tdm_strategy_options o = TDM_STRATEGY_OPTIONS_INIT;
        o.algorithm = (tdm_collective_algorithm)a;
        o.reduce_device = (int)strat_n_devs - 1; /* a chosen target */
        tdm_strategy *s = strat_mirrored(&o);
        tdm_value *v = random_per_replica(s, 1001), *out = NULL;
        reduce_to_with(o.algorithm, v, s);
        CHECK_FAILS(tdm_strategy_reduce_to(s, TDM_REDUCE_SUM, v, strat_devs, 0, &out),
                    TDM_ERR_INVALID_ARGUMENT, "empty");
        tdm_value_destroy(v);
        tdm_strategy_destroy(s);
    }
}

void strat_check_batch_and_broadcast(void)
{
    tdm_strategy_options o = TDM_STRATEGY_OPTIONS_INIT;
    o.num_packs = 2;
    tdm_strategy *s = strat_mirrored(&o);
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
                                          strat_devs + strat_n_devs - 1, 1,
                                          out)); /* other destinations */
    for (size_t k = 0; k < 3; k++) {
        expect_fold(out[k], TDM_REDUCE_MEAN, sizes[k], "batch_reduce_to one destination");
        tdm_value_destroy(out[k]);
        tdm_value_destroy(values[k]);
    }
    float data[3] = {1.5f, -2, 4};
    tdm_tensor *t = strat_tensor_of(strat_devs[0], TDM_SHAPE(3), data);
    tdm_value *b = NULL;
    CHECK_OK(tdm_strategy_broadcast(s, t, NULL, 0, &b));
    CHECK(tdm_value_kind_of(b) == TDM_VALUE_MIRRORED && tdm_value_count(b) == strat_n_devs);
    for (size_t i = 0; i < tdm_value_count(b); i++)
        for (size_t j = 0; j < 3; j++)
            CHECK(strat_read_at(tdm_value_component(b, i), j) == data[j]);
    tdm_value_destroy(b);
    CHECK_FAILS(tdm_strategy_broadcast(s, t, strat_devs, 0, &b), TDM_ERR_INVALID_ARGUMENT, "empty");
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
    for (size_t i = 0; i < strat_n_devs; i++) {
        float data[8];
        for (size_t r = 0; r < rows[i]; r++)
            for (size_t c = 0; c < 2; c++)
                all[(*total + r) * 2 + c] = data[r * 2 + c] =
                    (float)(1 + *total + r) * (c ? -1.0f : 1.0f);
        t[i] = strat_tensor_of(tdm_strategy_device(s, i), TDM_SHAPE(rows[i], 2), data);
        *total += rows[i];
    }
    tdm_value *v = NULL;
    CHECK_OK(tdm_value_create(TDM_VALUE_PER_REPLICA, t, strat_n_devs, &v));
    return v;
}

void strat_check_reduce_axis(void)
{
    tdm_strategy *s = strat_mirrored(NULL);
    float all[16];
    size_t total;
    tdm_value *v = batch_rows(s, all, &total); /* 6 rows: 1..6 and -1..-6 */
    tdm_tensor *r = NULL;
    CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_MEAN, v, 0, &r));
    CHECK(tdm_tensor_shape(r).rank == 1 && tdm_tensor_shape(r).dims[0] == 2);
    CHECK(strat_read_at(r, 0) == 3.5f &&
          strat_read_at(r, 1) == -3.5f); /* 21 / 6, not (2.5 + 5.5) / 2 */
    tdm_tensor_destroy(r);
    CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_SUM, v, 0, &r));
    CHECK(strat_read_at(r, 0) == 21.0f && strat_read_at(r, 1) == -21.0f);
    tdm_tensor_destroy(r);
    CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_MAX, v, 0, &r));
    CHECK(strat_read_at(r, 0) == 6.0f && strat_read_at(r, 1) == -1.0f);
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

void strat_check_reduce_kinds(void)
{
    tdm_strategy *s = strat_mirrored(NULL);
    /* Integers: MEAN gives float, SUM stays integer. */
    tdm_tensor *t[MAX_REPLICAS];
    for (size_t i = 0; i < strat_n_devs; i++) {
        int32_t data[2] = {(int32_t)i + 1, 7};
        CHECK_OK(tdm_tensor_create(strat_devs[i], TDM_I32, &TDM_SHAPE(2), &t[i]));
        CHECK_OK(tdm_tensor_write(t[i], data, sizeof data));
    }
    tdm_value *ints = NULL;
    CHECK_OK(tdm_value_create(TDM_VALUE_PER_REPLICA, t, strat_n_devs, &ints));
    tdm_tensor *r = NULL;
    CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_MEAN, ints, TDM_AXIS_NONE, &r));
    CHECK(tdm_tensor_dtype(r) == TDM_F32);
    CHECK(strat_read_at(r, 0) == (float)(strat_n_devs + 1) / 2.0f);
    tdm_tensor_destroy(r);
    CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_SUM, ints, TDM_AXIS_NONE, &r));
    int32_t sums[2] = {0, 0};
    CHECK(tdm_tensor_dtype(r) == TDM_I32);
    CHECK_OK(tdm_tensor_read(r, sums, sizeof sums));
    CHECK(sums[0] == (int32_t)(strat_n_devs * (strat_n_devs + 1) / 2) &&
          sums[1] == 7 * (int32_t)strat_n_devs);
    tdm_tensor_destroy(r);
    tdm_value_destroy(ints);
    /* A plain value: MEAN returns it, SUM over N > 1 replicas is an error. */
    float x[2] = {0.1f, 3};
    tdm_tensor *p = strat_tensor_of(strat_devs[0], TDM_SHAPE(2), x);
    tdm_value *plain = NULL;
    CHECK_OK(tdm_value_create(TDM_VALUE_PLAIN, &p, 1, &plain));
    CHECK_OK(tdm_strategy_reduce(s, TDM_REDUCE_MEAN, plain, TDM_AXIS_NONE, &r));
    CHECK(strat_read_at(r, 0) == 0.1f && strat_read_at(r, 1) == 3.0f);
    tdm_tensor_destroy(r);
    CHECK_FAILS(tdm_strategy_reduce(s, TDM_REDUCE_SUM, plain, TDM_AXIS_NONE, &r),
                TDM_ERR_INVALID_ARGUMENT, "plain value");
    tdm_value *out = NULL;
    CHECK_FAILS(tdm_strategy_reduce_to(s, TDM_REDUCE_SUM, plain, NULL, 0, &out),
                TDM_ERR_INVALID_ARGUMENT, "plain value");
    tdm_strategy *one = NULL;
    CHECK_OK(tdm_strategy_create_one_device(strat_devs[0], NULL, &one));
    CHECK_OK(tdm_strategy_reduce(one, TDM_REDUCE_SUM, plain, TDM_AXIS_NONE, &r)); /* N = 1 */
    CHECK(strat_read_at(r, 1) == 3.0f);
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

void strat_check_module_functions(void)
{
    tdm_strategy *s = strat_mirrored(NULL), *d = NULL;
    /* zero throughout: clang refuses {0}, whose 0 would meet the atomic pointers */
    module_probe p = {.merged = 0};
    const float four[4] = {1, 2, 3, 4};
    for (size_t i = 0; i < strat_n_devs; i++) {
        p.losses[i] = strat_tensor_of(strat_devs[i], TDM_SHAPE(4), four);
        p.loss[i] = strat_tensor_of(strat_devs[i], TDM_SCALAR, NULL);
    }
    CHECK(!tdm_has_strategy());
    CHECK(tdm_get_loss_reduction() == TDM_REDUCE_SUM);
    CHECK_OK(tdm_strategy_default(strat_ctx, &d));
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
    for (size_t i = 0; i < strat_n_devs; i++) {
        tdm_tensor_destroy(p.losses[i]);
        tdm_tensor_destroy(p.loss[i]);
    }
    tdm_strategy_destroy(s);
}

/* Default mode: one replica; reductions are identities. */
void strat_check_default_strategy(void)
{
    tdm_strategy *d = NULL;
    CHECK_OK(tdm_strategy_default(strat_ctx, &d));
    tdm_value *v = strat_per_replica(d, 3, 5);
    tdm_tensor *r = NULL;
    CHECK_OK(tdm_strategy_reduce(d, TDM_REDUCE_SUM, v, TDM_AXIS_NONE, &r));
    for (size_t j = 0; j < 3; j++)
        CHECK(strat_read_at(r, j) == 5.0f + (float)j);
    tdm_tensor_destroy(r);
    tdm_value_destroy(v);
}
