/* Variables on a distribution test scenario (argv[1], see test_scenario_devices):
 * creation and placement, reads in each mode, the write rules of mirrored (ON_WRITE)
 * and sync-on-read (ON_READ) variables in replica functions, update functions and
 * cross-replica context, colocation, the check_mirrored debug check, and the
 * one-device and default strategies. Every expected value is computed on the host
 * with the library's rules (folds in replica order in float, MEAN times (float)(1/N))
 * and compared bit for bit. */
#include "variables_fixture.h"

/* ---- creation ---- */

static void test_create_defaults(tdm_strategy *s)
{
    tdm_variable *v = NULL;
    CHECK_OK(tdm_variable_create(s, NULL, &v));
    CHECK(v && !strcmp(tdm_variable_name(v), "variable"));
    tdm_shape shape = tdm_variable_shape(v);
    CHECK(shape.rank == 0);
    CHECK(tdm_variable_synchronization(v) == TDM_SYNC_ON_WRITE);
    CHECK(tdm_variable_aggregation(v) == TDM_AGG_NONE);
    CHECK(tdm_variable_trainable(v) == 1);
    CHECK(tdm_variable_copy_count(v) == vars_n);
    for (size_t i = 0; i < vars_n; i++)
        CHECK(tdm_tensor_device(tdm_variable_copy(v, i)) == vars_devs[i]);
    CHECK(tdm_variable_copy(v, vars_n) == NULL);
    float zero = 0.0f;
    EXPECT_ALL(v, &zero);
    tdm_variable_destroy(v);
}

static void test_create_options(tdm_strategy *s)
{
    char name[] = "weights";
    float init[COUNT] = {1, -2, 3.5f, 0x1p-30f, -0.0f, 1e30f};
    tdm_variable *v = vars_make_var(s, name, COUNT, TDM_SYNC_AUTO, TDM_AGG_MEAN, init);
    name[0] = 'X'; /* the name was copied */
    CHECK(!strcmp(tdm_variable_name(v), "weights"));
    tdm_shape shape = tdm_variable_shape(v);
    CHECK(shape.rank == 2 && shape.dims[0] == 2 && shape.dims[1] == 3);
    CHECK(tdm_variable_synchronization(v) == TDM_SYNC_ON_WRITE); /* AUTO */
    CHECK(tdm_variable_aggregation(v) == TDM_AGG_MEAN);
    EXPECT_ALL(v, init);
    tdm_variable *r = vars_make_var(s, "r", COUNT, TDM_SYNC_ON_READ, TDM_AGG_SUM, NULL);
    CHECK(tdm_variable_trainable(r) == 0);
    tdm_variable_options o = TDM_VARIABLE_OPTIONS_INIT;
    o.synchronization = TDM_SYNC_ON_READ;
    o.trainable = 1;
    tdm_variable *rt = NULL, *wt = NULL;
    CHECK_OK(tdm_variable_create(s, &o, &rt));
    CHECK(tdm_variable_trainable(rt) == 1);
    o.synchronization = TDM_SYNC_ON_WRITE;
    o.trainable = 0;
    CHECK_OK(tdm_variable_create(s, &o, &wt));
    CHECK(tdm_variable_trainable(wt) == 0);
    /* A caller built against a header without initial_value: its default (zeros). */
    tdm_variable_options old = TDM_VARIABLE_OPTIONS_INIT;
    old.size = offsetof(tdm_variable_options, initial_value);
    old.initial_value = init; /* past the size: must be ignored */
    tdm_variable *ov = NULL;
    CHECK_OK(tdm_variable_create(s, &old, &ov));
    float zero = 0.0f;
    EXPECT_ALL(ov, &zero);
    tdm_variable_destroy(ov);
    tdm_variable_destroy(v);
    /* r, rt, wt stay: released with the strategy */
}

static void test_create_errors(tdm_strategy *s)
{
    tdm_variable *v = (tdm_variable *)&v;
    tdm_variable_options o = TDM_VARIABLE_OPTIONS_INIT;
    CHECK_FAILS(tdm_variable_create(NULL, &o, &v), TDM_ERR_INVALID_ARGUMENT, "'s'");
    CHECK(v == NULL);
    CHECK_FAILS(tdm_variable_create(s, &o, NULL), TDM_ERR_INVALID_ARGUMENT, "'out'");
    o.synchronization = TDM_SYNC_NONE;
    o.name = "nosync";
    CHECK_FAILS(tdm_variable_create(s, &o, &v), TDM_ERR_INVALID_ARGUMENT,
                "mirrored strategies reject synchronization NONE");
    CHECK(strstr(tdm_last_error(), "nosync"));
    o = (tdm_variable_options)TDM_VARIABLE_OPTIONS_INIT;
    o.aggregation = (tdm_aggregation)9;
    CHECK_FAILS(tdm_variable_create(s, &o, &v), TDM_ERR_INVALID_ARGUMENT, "aggregation");
    o = (tdm_variable_options)TDM_VARIABLE_OPTIONS_INIT;
    o.size = sizeof o + 8;
    CHECK_FAILS(tdm_variable_create(s, &o, &v), TDM_ERR_INVALID_ARGUMENT, "_INIT");
    o = (tdm_variable_options)TDM_VARIABLE_OPTIONS_INIT;
    o.shape.rank = TDM_MAX_RANK + 1;
    CHECK_FAILS(tdm_variable_create(s, &o, &v), TDM_ERR_INVALID_ARGUMENT, "rank");
    tdm_variable_destroy(NULL);
    CHECK(tdm_variable_name(NULL) == NULL && tdm_variable_copy_count(NULL) == 0);
}

static tdm_status create_in_replica_fn(tdm_replica_context *rc, void *user)
{
    tdm_variable *v = NULL;
    tdm_status s = tdm_variable_create(tdm_replica_strategy(rc), NULL, &v);
    int *bad = user;
    if (s != TDM_ERR_INVALID_STATE ||
        !strstr(tdm_last_error(), "create variables outside the replica function") ||
        !strstr(tdm_last_error(), "merge"))
        bad[tdm_replica_id(rc)] = 1;
    return TDM_OK;
}

/* A merge function runs once in cross-replica mode: it may create variables. */
static tdm_status create_in_merge(tdm_strategy *s, const tdm_value *gathered, void *user,
                                  tdm_value **result)
{
    (void)gathered;
    (void)result;
    return tdm_variable_create(s, NULL, (tdm_variable **)user);
}

static tdm_status create_via_merge_fn(tdm_replica_context *rc, void *user)
{
    return tdm_replica_merge_call(rc, create_in_merge, user, NULL, NULL);
}

static void test_create_modes(tdm_strategy *s)
{
    int bad[MAX_REPLICAS] = {0};
    CHECK_OK(tdm_strategy_run(s, create_in_replica_fn, bad, NULL, 0, NULL));
    for (size_t r = 0; r < vars_n; r++)
        CHECK(!bad[r]);
    tdm_variable *made = NULL;
    CHECK_OK(tdm_strategy_run(s, create_via_merge_fn, &made, NULL, 0, NULL));
    CHECK(made && tdm_variable_copy_count(made) == vars_n);
    tdm_variable_destroy(made);
    /* In the scope: fine. In another strategy's scope: mixing strategies. */
    tdm_strategy *def = NULL;
    CHECK_OK(tdm_strategy_default(vars_ctx, &def));
    CHECK_OK(tdm_strategy_scope_enter(s));
    tdm_variable *v = NULL;
    CHECK_OK(tdm_variable_create(s, NULL, &v));
    tdm_variable_destroy(v);
    CHECK_FAILS(tdm_variable_create(def, NULL, &v), TDM_ERR_INVALID_STATE, "mixing strategies");
    CHECK_OK(tdm_strategy_scope_exit(s));
}

/* ---- reads ---- */

static tdm_status read_local_fn(tdm_replica_context *rc, void *user)
{
    job *j = user;
    size_t id = tdm_replica_id(rc);
    CHECK(tdm_variable_local(j->var, rc) == tdm_variable_copy(j->var, id));
    j->status[id] = tdm_variable_read(j->var, j->read[id], j->count * sizeof(float));
    return j->status[id];
}

/* Copies made to differ on purpose: each mode reads the copy it should. */
/* In a replica function every replica reads its own copy: rows[r * COUNT ...]. */
static void expect_local_reads(tdm_strategy *s, tdm_variable *v, const float *rows)
{
    job j;
    vars_job_init(&j, v, TDM_ASSIGN, rows, COUNT);
    CHECK_OK(tdm_strategy_run(s, read_local_fn, &j, NULL, 0, NULL));
    for (size_t r = 0; r < vars_n; r++)
        CHECK(vars_same_bits(j.read[r], rows + r * COUNT, COUNT, "replica read", __LINE__));
}

static void test_read_modes(tdm_strategy *s, tdm_synchronization sync)
{
    float rows[MAX_REPLICAS * COUNT];
    vars_make_data(rows, vars_n * COUNT, 11);
    tdm_variable *v = vars_make_var(s, "rd", COUNT, sync, TDM_AGG_ONLY_FIRST_REPLICA, NULL);
    for (size_t i = 0; i < vars_n; i++)
        vars_poke_copy(v, i, rows + i * COUNT);
    EXPECT_READ(v, rows); /* cross-replica: copy 0 */
    expect_local_reads(s, v, rows);
    tdm_variable_destroy(v);
}

static void test_read_sync_on_read(tdm_strategy *s)
{
    float rows[MAX_REPLICAS * COUNT], want[COUNT];
    vars_make_data(rows, vars_n * COUNT, 12);
    rows[0] = 1.0f; /* a sum whose order matters */
    rows[COUNT] = 1e8f;
    if (vars_n > 2)
        rows[2 * COUNT] = -1e8f;
    static const tdm_aggregation aggs[] = {TDM_AGG_SUM, TDM_AGG_MEAN, TDM_AGG_ONLY_FIRST_REPLICA,
                                           TDM_AGG_NONE};
    for (size_t a = 0; a < 4; a++) {
        tdm_variable *v = vars_make_var(s, "sor", COUNT, TDM_SYNC_ON_READ, aggs[a], NULL);
        for (size_t i = 0; i < vars_n; i++)
            vars_poke_copy(v, i, rows + i * COUNT);
        if (aggs[a] == TDM_AGG_NONE) {
            float out[COUNT];
            CHECK_FAILS(tdm_variable_read(v, out, sizeof out), TDM_ERR_INVALID_STATE,
                        "give the variable an aggregation");
            CHECK(strstr(tdm_last_error(), "'sor'"));
        } else {
            if (aggs[a] == TDM_AGG_ONLY_FIRST_REPLICA)
                memcpy(want, rows, sizeof want);
            else
                vars_fold(rows, vars_n, COUNT, aggs[a] == TDM_AGG_MEAN, want);
            EXPECT_READ(v, want);
        }
        /* A replica reads its own copy, whatever the aggregation. */
        expect_local_reads(s, v, rows);
        tdm_variable_destroy(v);
    }
    /* The fold is in copy order: with 1e8 + 1 - 1e8 the order shows. */
    CHECK(vars_n < 3 ||
          (rows[0] + rows[COUNT]) + rows[2 * COUNT] != rows[0] + (rows[COUNT] + rows[2 * COUNT]));
}

static void test_read_errors(tdm_strategy *s)
{
    tdm_variable *v = vars_make_var(s, "rerr", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_NONE, NULL);
    float out[COUNT + 1];
    CHECK_FAILS(tdm_variable_read(v, out, sizeof out), TDM_ERR_INVALID_ARGUMENT, "'rerr'");
    CHECK_FAILS(tdm_variable_read(NULL, out, sizeof(float)), TDM_ERR_INVALID_ARGUMENT, "'var'");
    CHECK_FAILS(tdm_variable_read(v, NULL, COUNT * sizeof(float)), TDM_ERR_INVALID_ARGUMENT,
                "'dst'");
    tdm_variable_destroy(v);
}

/* ---- cross-replica writes ---- */

static void test_cross_mirrored(tdm_strategy *s)
{
    float a[COUNT], b[COUNT], want[COUNT];
    vars_make_data(a, COUNT, 21);
    vars_make_data(b, COUNT, 22);
    tdm_variable *v = vars_make_var(s, "xm", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_NONE, NULL);
    /* A tensor on the last device goes to every copy. */
    tdm_tensor *ta = test_tensor_of(vars_devs[vars_n - 1], a, COUNT),
               *tb = test_tensor_of(vars_devs[0], b, COUNT);
    CHECK_OK(tdm_variable_assign(v, TDM_ASSIGN, ta));
    EXPECT_ALL(v, a);
    CHECK_OK(tdm_variable_assign(v, TDM_ASSIGN_ADD, tb));
    for (size_t e = 0; e < COUNT; e++)
        want[e] = a[e] + b[e];
    EXPECT_ALL(v, want);
    CHECK_OK(tdm_variable_assign(v, TDM_ASSIGN_SUB, ta));
    for (size_t e = 0; e < COUNT; e++)
        want[e] = want[e] - a[e];
    EXPECT_ALL(v, want);
    CHECK_OK(tdm_variable_assign_host(v, TDM_ASSIGN, b, sizeof b));
    EXPECT_ALL(v, b);
    CHECK_OK(tdm_variable_assign_host(v, TDM_ASSIGN_SUB, a, sizeof a));
    for (size_t e = 0; e < COUNT; e++)
        want[e] = b[e] - a[e];
    EXPECT_ALL(v, want);
    /* The variable's own copy as the value: read before any copy changes. */
    CHECK_OK(tdm_variable_assign(v, TDM_ASSIGN_ADD, tdm_variable_copy(v, 0)));
    for (size_t e = 0; e < COUNT; e++)
        want[e] = want[e] + want[e];
    EXPECT_ALL(v, want);
    CHECK_OK(tdm_variable_assign(v, TDM_ASSIGN, tdm_variable_copy(v, vars_n - 1)));
    EXPECT_ALL(v, want);
    tdm_tensor_destroy(ta);
    tdm_tensor_destroy(tb);
    tdm_variable_destroy(v);
}

static void test_cross_sync_on_read(tdm_strategy *s)
{
    float x[COUNT] = {1.0f, 0.1f, 3e38f, -7.0f, 0x1p-140f, 10.0f}, y[COUNT], want[COUNT];
    vars_make_data(y, COUNT, 23);
    float divided[COUNT];
    for (size_t e = 0; e < COUNT; e++)
        divided[e] = x[e] / (float)vars_n;
    /* x / N is not x * (1 / N) for every x: the rule is visible. */
    int visible = 0;
    for (size_t e = 0; e < COUNT; e++)
        visible |= divided[e] != x[e] * (float)(1.0 / (double)vars_n);
    CHECK(vars_n == 2 || visible);
    tdm_variable *sum = vars_make_var(s, "ssum", COUNT, TDM_SYNC_ON_READ, TDM_AGG_SUM, NULL);
    tdm_tensor *tx = test_tensor_of(vars_devs[0], x, COUNT),
               *ty = test_tensor_of(vars_devs[vars_n - 1], y, COUNT);
    CHECK_OK(tdm_variable_assign(sum, TDM_ASSIGN, tx));
    EXPECT_ALL(sum, divided);
    CHECK_OK(tdm_variable_assign_host(sum, TDM_ASSIGN, x, sizeof x));
    EXPECT_ALL(sum, divided);
    float rows[MAX_REPLICAS * COUNT];
    for (size_t i = 0; i < vars_n; i++)
        memcpy(rows + i * COUNT, divided, sizeof divided);
    vars_fold(rows, vars_n, COUNT, 0, want);
    EXPECT_READ(sum, want);
    CHECK_FAILS(tdm_variable_assign(sum, TDM_ASSIGN_ADD, ty), TDM_ERR_INVALID_STATE, "assign_add");
    CHECK(strstr(tdm_last_error(), "'ssum'") && strstr(tdm_last_error(), "SUM"));
    CHECK_FAILS(tdm_variable_assign_host(sum, TDM_ASSIGN_SUB, y, sizeof y), TDM_ERR_INVALID_STATE,
                "assign_sub");
    EXPECT_ALL(sum, divided); /* unchanged */
    static const tdm_aggregation others[] = {TDM_AGG_MEAN, TDM_AGG_ONLY_FIRST_REPLICA,
                                             TDM_AGG_NONE};
    for (size_t a = 0; a < 3; a++) {
        tdm_variable *v = vars_make_var(s, "sother", COUNT, TDM_SYNC_ON_READ, others[a], NULL);
        CHECK_OK(tdm_variable_assign(v, TDM_ASSIGN, tx));
        EXPECT_ALL(v, x);
        CHECK_OK(tdm_variable_assign(v, TDM_ASSIGN_ADD, ty));
        for (size_t e = 0; e < COUNT; e++)
            want[e] = x[e] + y[e];
        EXPECT_ALL(v, want);
        CHECK_OK(tdm_variable_assign_host(v, TDM_ASSIGN_SUB, y, sizeof y));
        for (size_t e = 0; e < COUNT; e++)
            want[e] = want[e] - y[e];
        EXPECT_ALL(v, want);
        tdm_variable_destroy(v);
    }
    tdm_tensor_destroy(tx);
    tdm_tensor_destroy(ty);
    tdm_variable_destroy(sum);
}

static void test_assign_errors(tdm_strategy *s)
{
    tdm_variable *v = vars_make_var(s, "shape_w", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    float x[COUNT + 1] = {0};
    tdm_tensor *wrong = test_tensor_of(vars_devs[0], x, COUNT + 1);
    CHECK_FAILS(tdm_variable_assign(v, TDM_ASSIGN, wrong), TDM_ERR_INVALID_ARGUMENT, "'shape_w'");
    CHECK(strstr(tdm_last_error(), "[2, 3]") && strstr(tdm_last_error(), "[7]"));
    tdm_tensor *ints = NULL;
    tdm_shape shape = TDM_SHAPE(2, 3);
    CHECK_OK(tdm_tensor_create(vars_devs[0], TDM_I32, &shape, &ints));
    CHECK_FAILS(tdm_variable_assign(v, TDM_ASSIGN, ints), TDM_ERR_INVALID_ARGUMENT, "i32");
    CHECK_FAILS(tdm_variable_assign_host(v, TDM_ASSIGN, x, sizeof x), TDM_ERR_INVALID_ARGUMENT,
                "[2, 3]");
    CHECK_FAILS(tdm_variable_assign(v, TDM_ASSIGN, NULL), TDM_ERR_INVALID_ARGUMENT, "'value'");
    CHECK_FAILS(tdm_variable_assign(NULL, TDM_ASSIGN, wrong), TDM_ERR_INVALID_ARGUMENT, "'var'");
    CHECK_FAILS(tdm_variable_assign_host(v, (tdm_assign_op)7, x, COUNT * sizeof(float)),
                TDM_ERR_INVALID_ARGUMENT, "op");
    float zeros[COUNT] = {0};
    EXPECT_ALL(v, zeros);
    tdm_tensor_destroy(wrong);
    tdm_tensor_destroy(ints);
    tdm_variable_destroy(v);
}

/* Every check on a mirrored strategy s of the scenario's replicas and a one-device
 * strategy on its last device. */
static void check_strategies(tdm_strategy *s, tdm_strategy *one)
{
    test_create_defaults(s);
    test_create_options(s);
    test_create_errors(s);
    test_create_modes(s);
    test_read_modes(s, TDM_SYNC_ON_WRITE);
    test_read_modes(s, TDM_SYNC_ON_READ);
    test_read_sync_on_read(s);
    test_read_errors(s);
    test_cross_mirrored(s);
    test_cross_sync_on_read(s);
    test_assign_errors(s);
    static const tdm_aggregation aggs[] = {TDM_AGG_SUM, TDM_AGG_MEAN, TDM_AGG_ONLY_FIRST_REPLICA};
    for (size_t a = 0; a < 3; a++) {
        vars_test_replica_reduce(s, aggs[a], COUNT);
        vars_test_replica_reduce(s, aggs[a], BIG);
    }
    vars_test_replica_alias(s);
    vars_test_replica_errors(s);
    vars_test_replica_plain(s);
    vars_test_replica_sync_on_read(s);
    vars_test_merge_assign(s);
    vars_test_update(s, TDM_SYNC_ON_WRITE);
    vars_test_update(s, TDM_SYNC_ON_READ);
    vars_test_update_errors(s, one);
    vars_test_check_mirrored(s);
    vars_test_int64(s);
    vars_test_colocate(s, one);
    vars_test_single_replica(one);
    vars_test_default_strategy();
}

void test_case_variables(const test_run *run)
{
    vars_n = test_scenario_of(run, &vars_ctx, vars_devs);
    tdm_strategy *s = vars_mirrored(0), *one = NULL;
    CHECK_OK(tdm_strategy_create_one_device(vars_devs[vars_n - 1], NULL, &one));
    if (s && one)
        check_strategies(s, one);
    tdm_strategy_destroy(one);
    tdm_strategy_destroy(s);
}
