/* The variables case, its second part (variables.c runs it): writes in replica
 * functions, merge and update functions, check_mirrored, colocation, one replica, the
 * default strategy and int64 variables. */
#include "variables_fixture.h"

/* ---- replica-function writes of mirrored variables ---- */

void vars_test_replica_reduce(tdm_strategy *s, tdm_aggregation agg, size_t count)
{
    static float rows[MAX_REPLICAS * BIG], init[BIG], want[BIG], sum[BIG];
    static job j;
    vars_make_data(rows, vars_n * count, 31 + (unsigned)agg);
    vars_make_data(init, count, 41);
    vars_fold(rows, vars_n, count, agg == TDM_AGG_MEAN, sum);
    const float *first = rows;
    const float *delta = agg == TDM_AGG_ONLY_FIRST_REPLICA ? first : sum;
    tdm_variable *v = vars_make_var(s, "rw", count, TDM_SYNC_ON_WRITE, agg, init);
    static const tdm_assign_op ops[] = {TDM_ASSIGN_ADD, TDM_ASSIGN_SUB, TDM_ASSIGN};
    memcpy(want, init, count * sizeof(float));
    for (size_t o = 0; o < 3; o++) {
        vars_job_init(&j, v, ops[o], rows, count);
        RUN_JOB(s, &j, TDM_OK, "");
        for (size_t e = 0; e < count; e++)
            want[e] = ops[o] == TDM_ASSIGN       ? delta[e]
                      : ops[o] == TDM_ASSIGN_ADD ? want[e] + delta[e]
                                                 : want[e] - delta[e];
        EXPECT_ALL(v, want);
        for (size_t r = 0; r < vars_n; r++) /* each replica read the new value */
            CHECK(vars_same_bits(j.read[r], want, count, "read after write", __LINE__));
    }
    tdm_variable_destroy(v);
}

/* Each replica adds its own local copy, reduced: copies read before they change. */
void vars_test_replica_alias(tdm_strategy *s)
{
    float init[COUNT], want[COUNT], rows[MAX_REPLICAS * COUNT];
    vars_make_data(init, COUNT, 51);
    tdm_variable *v = vars_make_var(s, "alias", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, init);
    job j;
    vars_job_init(&j, v, TDM_ASSIGN_ADD, init, COUNT);
    j.use_local = 1;
    RUN_JOB(s, &j, TDM_OK, "");
    for (size_t r = 0; r < vars_n; r++)
        memcpy(rows + r * COUNT, init, sizeof init);
    vars_fold(rows, vars_n, COUNT, 0, want);
    for (size_t e = 0; e < COUNT; e++)
        want[e] = init[e] + want[e];
    EXPECT_ALL(v, want);
    /* The same with assign: the sum of the copies replaces them. */
    for (size_t r = 0; r < vars_n; r++)
        memcpy(rows + r * COUNT, want, sizeof want);
    vars_job_init(&j, v, TDM_ASSIGN, init, COUNT);
    j.use_local = 1;
    RUN_JOB(s, &j, TDM_OK, "");
    vars_fold(rows, vars_n, COUNT, 0, want);
    EXPECT_ALL(v, want);
    tdm_variable_destroy(v);
}

void vars_test_replica_errors(tdm_strategy *s)
{
    float rows[MAX_REPLICAS * COUNT], init[COUNT];
    vars_make_data(rows, vars_n * COUNT, 61);
    vars_make_data(init, COUNT, 62);
    tdm_variable *none = vars_make_var(s, "agg_none", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_NONE, init);
    job j;
    vars_job_init(&j, none, TDM_ASSIGN, rows, COUNT);
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE,
            "give the variable an aggregation (SUM, MEAN or ONLY_FIRST_REPLICA) or assign in "
            "cross-replica context");
    CHECK(strstr(j.message[0], "'agg_none'"));
    EXPECT_ALL(none, init);
    /* Different calls: an error to every replica, nothing written. */
    tdm_variable *v = vars_make_var(s, "mixed_ops", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, init);
    vars_job_init(&j, v, TDM_ASSIGN_ADD, rows, COUNT);
    j.op[vars_n - 1] = TDM_ASSIGN;
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "same call");
    CHECK(strstr(j.message[0], "'mixed_ops'") && strstr(j.message[0], "assign_add"));
    EXPECT_ALL(v, init);
    /* A tensor on another replica's device. */
    vars_job_init(&j, v, TDM_ASSIGN, rows, COUNT);
    j.foreign_device = 1;
    tdm_status st = tdm_strategy_run(s, vars_assign_fn, &j, NULL, 0, NULL);
    CHECK(st == TDM_ERR_INVALID_ARGUMENT || st == TDM_ERR_CANCELLED);
    CHECK(j.status[0] != TDM_OK);
    CHECK(strstr(j.message[0], "replica's device") || strstr(j.message[0], "cancelled"));
    EXPECT_ALL(v, init);
    tdm_variable_destroy(v);
    tdm_variable_destroy(none);
}

/* Host data in a replica function is a plain value. */
void vars_test_replica_plain(tdm_strategy *s)
{
    float x[COUNT] = {0.1f, 3e38f, -1.0f / 3.0f, 0x1p-149f, 7.0f, -0.3f};
    float init[COUNT], want[COUNT], rows[MAX_REPLICAS * COUNT];
    vars_make_data(init, COUNT, 71);
    /* Summing N copies then scaling would change some element: the pass-through shows. */
    for (size_t r = 0; r < vars_n; r++)
        memcpy(rows + r * COUNT, x, sizeof x);
    vars_fold(rows, vars_n, COUNT, 1, want);
    CHECK(memcmp(want, x, sizeof x) != 0);
    static const tdm_aggregation pass[] = {TDM_AGG_MEAN, TDM_AGG_ONLY_FIRST_REPLICA};
    job j;
    for (size_t a = 0; a < 2; a++) {
        tdm_variable *v = vars_make_var(s, "plain", COUNT, TDM_SYNC_ON_WRITE, pass[a], init);
        vars_job_init(&j, v, TDM_ASSIGN, x, COUNT);
        j.host = j.same = 1;
        RUN_JOB(s, &j, TDM_OK, "");
        EXPECT_ALL(v, x);
        vars_job_init(&j, v, TDM_ASSIGN_ADD, x, COUNT);
        j.host = j.same = 1;
        RUN_JOB(s, &j, TDM_OK, "");
        for (size_t e = 0; e < COUNT; e++)
            want[e] = x[e] + x[e];
        EXPECT_ALL(v, want);
        tdm_variable_destroy(v);
    }
    tdm_variable *sum = vars_make_var(s, "plain_sum", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, init);
    vars_job_init(&j, sum, TDM_ASSIGN, x, COUNT);
    j.host = j.same = 1;
    char needle[64];
    snprintf(needle, sizeof needle, "would count it %zu times", vars_n);
    RUN_JOB(s, &j, TDM_ERR_INVALID_ARGUMENT, needle);
    CHECK(strstr(j.message[0], "use MEAN or ONLY_FIRST_REPLICA or assign in cross-replica"));
    EXPECT_ALL(sum, init);
    /* Different host data on the replicas. */
    tdm_variable *mean =
        vars_make_var(s, "plain_diff", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_MEAN, init);
    vars_make_data(rows, vars_n * COUNT, 72);
    vars_job_init(&j, mean, TDM_ASSIGN, rows, COUNT);
    j.host = 1;
    RUN_JOB(s, &j, TDM_ERR_INVALID_ARGUMENT, "pass a device tensor");
    EXPECT_ALL(mean, init);
    tdm_variable_destroy(mean);
    tdm_variable_destroy(sum);
}

/* ---- replica-function writes of sync-on-read variables: the own copy only ---- */

void vars_test_replica_sync_on_read(tdm_strategy *s)
{
    float rows[MAX_REPLICAS * COUNT], init[COUNT], want[MAX_REPLICAS * COUNT], sum[COUNT];
    vars_make_data(rows, vars_n * COUNT, 81);
    vars_make_data(init, COUNT, 82);
    tdm_variable *v = vars_make_var(s, "sor_w", COUNT, TDM_SYNC_ON_READ, TDM_AGG_SUM, init);
    job j;
    vars_job_init(&j, v, TDM_ASSIGN_ADD, rows, COUNT);
    RUN_JOB(s, &j, TDM_OK, "");
    for (size_t r = 0; r < vars_n; r++) {
        for (size_t e = 0; e < COUNT; e++)
            want[r * COUNT + e] = init[e] + rows[r * COUNT + e];
        EXPECT_COPY(v, r, want + r * COUNT);
        CHECK(vars_same_bits(j.read[r], want + r * COUNT, COUNT, "own copy", __LINE__));
    }
    vars_fold(want, vars_n, COUNT, 0, sum);
    EXPECT_READ(v, sum);
    /* Different ops on different replicas are fine here: no synchronization. */
    vars_job_init(&j, v, TDM_ASSIGN, rows, COUNT);
    j.op[0] = TDM_ASSIGN_SUB;
    RUN_JOB(s, &j, TDM_OK, "");
    for (size_t e = 0; e < COUNT; e++)
        want[e] = want[e] - rows[e];
    EXPECT_COPY(v, 0, want);
    for (size_t r = 1; r < vars_n; r++)
        EXPECT_COPY(v, r, rows + r * COUNT);
    /* Host data: the replica's own copy gets it as is, even for SUM. */
    vars_job_init(&j, v, TDM_ASSIGN, rows, COUNT);
    j.host = 1;
    RUN_JOB(s, &j, TDM_OK, "");
    for (size_t r = 0; r < vars_n; r++)
        EXPECT_COPY(v, r, rows + r * COUNT);
    tdm_variable_destroy(v);
}

/* ---- merge functions: cross-replica writes from inside a run ---- */

static tdm_status assign_in_merge(tdm_strategy *s, const tdm_value *gathered, void *user,
                                  tdm_value **result)
{
    (void)s;
    (void)result;
    tdm_variable *v = user;
    const tdm_tensor *x = tdm_value_component(gathered, tdm_value_count(gathered) - 1);
    return tdm_variable_assign(v, TDM_ASSIGN, x);
}

static tdm_status merge_assign_fn(tdm_replica_context *rc, void *user)
{
    float x[COUNT];
    vars_make_data(x, COUNT, 90 + (unsigned)tdm_replica_id(rc));
    tdm_tensor *t = test_tensor_of(tdm_replica_device(rc), x, COUNT);
    tdm_status s = tdm_replica_merge_call(rc, assign_in_merge, user, t, NULL);
    tdm_tensor_destroy(t);
    return s;
}

void vars_test_merge_assign(tdm_strategy *s)
{
    tdm_variable *v = vars_make_var(s, "merged", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_NONE, NULL);
    CHECK_OK(tdm_strategy_run(s, merge_assign_fn, v, NULL, 0, NULL));
    float want[COUNT];
    vars_make_data(want, COUNT, 90 + (unsigned)(vars_n - 1));
    EXPECT_ALL(v, want); /* NONE is fine in cross-replica context */
    tdm_variable_destroy(v);
}

/* ---- update ---- */

typedef struct update_log {
    tdm_variable *other; /* assigned in the update function: an error */
    tdm_variable *peek;  /* read in the update function: its copy on the device */
    float peek_read[MAX_REPLICAS][COUNT];
    size_t calls, fail_at;
    size_t index[MAX_REPLICAS];
    tdm_device *device[MAX_REPLICAS];
    tdm_variable *var[MAX_REPLICAS];
    tdm_tensor *copy[MAX_REPLICAS];
    float read[MAX_REPLICAS][COUNT];
    tdm_status other_status;
    char other_message[1024];
} update_log;

static tdm_status update_fn(tdm_update_context *uc, tdm_tensor *copy, void *user)
{
    update_log *log = user;
    size_t k = log->calls++;
    log->index[k] = tdm_update_index(uc);
    log->device[k] = tdm_update_device(uc);
    log->var[k] = tdm_update_variable(uc);
    log->copy[k] = copy;
    tdm_status s = tdm_variable_read(log->var[k], log->read[k], sizeof log->read[k]);
    if (s == TDM_OK && log->peek)
        s = tdm_variable_read(log->peek, log->peek_read[k], sizeof log->peek_read[k]);
    float add[COUNT];
    for (size_t e = 0; e < COUNT; e++)
        add[e] = (float)(k + 1);
    if (s == TDM_OK)
        s = tdm_variable_assign_host(log->var[k], TDM_ASSIGN_ADD, add, sizeof add);
    if (s == TDM_OK && log->other) {
        log->other_status = tdm_variable_assign_host(log->other, TDM_ASSIGN, add, sizeof add);
        snprintf(log->other_message, sizeof log->other_message, "%s", tdm_last_error());
    }
    if (s == TDM_OK && k == log->fail_at)
        s = TDM_ERR_NUMERIC; /* the update function's own failure */
    return s;
}

void vars_test_update(tdm_strategy *s, tdm_synchronization sync)
{
    float rows[MAX_REPLICAS * COUNT], peek[MAX_REPLICAS * COUNT], want[COUNT];
    vars_make_data(rows, vars_n * COUNT, 101);
    vars_make_data(peek, vars_n * COUNT, 102);
    tdm_variable *v = vars_make_var(s, "upd", COUNT, sync, TDM_AGG_MEAN, NULL);
    tdm_variable *other =
        vars_make_var(s, "bystander", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    tdm_variable *p = vars_make_var(s, "peeked", COUNT, TDM_SYNC_ON_READ, TDM_AGG_SUM, NULL);
    for (size_t i = 0; i < vars_n; i++) {
        vars_poke_copy(v, i, rows + i * COUNT); /* copies differ: each call sees its own */
        vars_poke_copy(p, i, peek + i * COUNT);
    }
    update_log log = {.other = other, .peek = p, .fail_at = SIZE_MAX};
    CHECK_OK(tdm_strategy_update(s, v, update_fn, &log));
    CHECK(log.calls == vars_n);
    for (size_t k = 0; k < vars_n && k < log.calls; k++) {
        CHECK(log.index[k] == k && log.device[k] == vars_devs[k] && log.var[k] == v);
        CHECK(log.copy[k] == tdm_variable_copy(v, k));
        CHECK(vars_same_bits(log.read[k], rows + k * COUNT, COUNT, "update read", __LINE__));
        CHECK(vars_same_bits(log.peek_read[k], peek + k * COUNT, COUNT, "peek", __LINE__));
        for (size_t e = 0; e < COUNT; e++)
            want[e] = rows[k * COUNT + e] + (float)(k + 1);
        EXPECT_COPY(v, k, want); /* that copy only */
    }
    CHECK(log.other_status == TDM_ERR_INVALID_STATE);
    CHECK(strstr(log.other_message, "'bystander'") && strstr(log.other_message, "'upd'"));
    float zeros[COUNT] = {0};
    EXPECT_ALL(other, zeros);
    /* The first failure stops the loop. */
    update_log fail = {.fail_at = 0};
    CHECK(tdm_strategy_update(s, v, update_fn, &fail) == TDM_ERR_NUMERIC);
    CHECK(fail.calls == 1);
    CHECK(strstr(tdm_last_error(), "tdm_strategy_update") && strstr(tdm_last_error(), "'upd'"));
    CHECK_FAILS(tdm_strategy_update(s, v, NULL, NULL), TDM_ERR_INVALID_ARGUMENT, "'fn'");
    CHECK_FAILS(tdm_strategy_update(NULL, v, update_fn, &log), TDM_ERR_INVALID_ARGUMENT, "'s'");
    CHECK(tdm_update_index(NULL) == 0 && tdm_update_device(NULL) == NULL &&
          tdm_update_variable(NULL) == NULL);
    tdm_variable_destroy(p);
    tdm_variable_destroy(other);
    tdm_variable_destroy(v);
}

static tdm_status update_in_replica_fn(tdm_replica_context *rc, void *user)
{
    job *j = user;
    size_t id = tdm_replica_id(rc);
    update_log log = {.fail_at = SIZE_MAX};
    j->status[id] = tdm_strategy_update(tdm_replica_strategy(rc), j->var, update_fn, &log);
    snprintf(j->message[id], sizeof j->message[id], "%s", tdm_last_error());
    return j->status[id];
}

/* A variable of another strategy, read and written from this one's replicas. */
static tdm_status foreign_fn(tdm_replica_context *rc, void *user)
{
    job *j = user;
    size_t id = tdm_replica_id(rc);
    float x[COUNT] = {0};
    tdm_status s = tdm_variable_read(j->var, x, sizeof x);
    if (s == TDM_ERR_INVALID_ARGUMENT && strstr(tdm_last_error(), "another strategy"))
        s = tdm_variable_assign_host(j->var, TDM_ASSIGN, x, sizeof x);
    j->status[id] = s;
    snprintf(j->message[id], sizeof j->message[id], "%s", tdm_last_error());
    return s;
}

void vars_test_update_errors(tdm_strategy *s, tdm_strategy *other)
{
    tdm_variable *v = vars_make_var(s, "u", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    tdm_variable *o = vars_make_var(other, "foreign", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    update_log log = {.fail_at = SIZE_MAX};
    CHECK_FAILS(tdm_strategy_update(s, o, update_fn, &log), TDM_ERR_INVALID_ARGUMENT,
                "another strategy");
    CHECK(log.calls == 0);
    job j;
    vars_job_init(&j, v, TDM_ASSIGN, NULL, COUNT);
    RUN_FN(s, update_in_replica_fn, &j, TDM_ERR_INVALID_STATE, "tdm_replica_merge_call");
    vars_job_init(&j, o, TDM_ASSIGN, NULL, COUNT);
    RUN_FN(s, foreign_fn, &j, TDM_ERR_INVALID_ARGUMENT, "another strategy");
    /* Cross-replica writes inside another strategy's scope: mixing strategies. */
    float zeros[COUNT] = {0};
    CHECK_OK(tdm_strategy_scope_enter(s));
    CHECK_FAILS(tdm_variable_assign_host(o, TDM_ASSIGN, zeros, sizeof zeros), TDM_ERR_INVALID_STATE,
                "mixing strategies");
    CHECK_OK(tdm_variable_assign_host(v, TDM_ASSIGN, zeros, sizeof zeros));
    CHECK_OK(tdm_strategy_scope_exit(s));
    tdm_variable_destroy(o);
    tdm_variable_destroy(v);
}

/* ---- check_mirrored ---- */

static tdm_status diverge_fn(tdm_update_context *uc, tdm_tensor *copy, void *user)
{
    (void)user;
    float x[COUNT];
    for (size_t e = 0; e < COUNT; e++)
        x[e] = (float)tdm_update_index(uc);
    return tdm_variable_assign_host(tdm_update_variable(uc), TDM_ASSIGN, x, tdm_tensor_bytes(copy));
}

void vars_test_check_mirrored(tdm_strategy *plain)
{
    tdm_strategy *s = vars_mirrored(1);
    float ones[32], bad[32], zero[COUNT] = {0};
    for (size_t e = 0; e < 32; e++)
        ones[e] = bad[e] = 1.0f;
    bad[17] = nextafterf(1.0f, 2.0f);
    tdm_variable *w = vars_make_var(s, "w", 32, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, ones);
    tdm_variable *r = vars_make_var(s, "sync_on_read", COUNT, TDM_SYNC_ON_READ, TDM_AGG_SUM, zero);
    vars_poke_copy(r, vars_n - 1, ones); /* sync-on-read copies may differ */
    CHECK_OK(tdm_strategy_check_mirrored(s));
    vars_poke_copy(w, vars_n - 1, bad);
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(vars_devs[vars_n - 1], &desc));
    char needle[256];
    snprintf(needle, sizeof needle,
             "variable 'w': copy %zu (device %s) differs from copy 0 at element 17: 0x1p+0 vs "
             "0x1.000002p+0",
             vars_n - 1, desc.id);
    CHECK_FAILS(tdm_strategy_check_mirrored(s), TDM_ERR_INVALID_STATE, needle);
    /* A replica-function add keeps the difference: every replica hears of it. */
    float rows[MAX_REPLICAS * 32] = {0};
    job j;
    vars_job_init(&j, w, TDM_ASSIGN_ADD, rows, 32);
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "differs from copy 0 at element 17");
    /* A cross-replica assign writes every copy: identical again. */
    CHECK_OK(tdm_variable_assign_host(w, TDM_ASSIGN, ones, sizeof ones));
    CHECK_OK(tdm_strategy_check_mirrored(s));
    vars_job_init(&j, w, TDM_ASSIGN_ADD, rows, 32);
    RUN_JOB(s, &j, TDM_OK, "");
    /* An update function that writes each copy differently: caught after the update. */
    tdm_variable *u = vars_make_var(s, "u", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK_FAILS(tdm_strategy_update(s, u, diverge_fn, NULL), TDM_ERR_INVALID_STATE,
                "variable 'u': copy 1");
    CHECK(strstr(tdm_last_error(), "differs from copy 0 at element 0: 0x0p+0 vs 0x1p+0"));
    /* Without check_mirrored nothing is verified. */
    tdm_variable *q = vars_make_var(plain, "q", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK_OK(tdm_strategy_update(plain, q, diverge_fn, NULL));
    CHECK_FAILS(tdm_strategy_check_mirrored(plain), TDM_ERR_INVALID_STATE, "variable 'q'");
    tdm_variable_destroy(q);
    CHECK_FAILS(tdm_strategy_check_mirrored(NULL), TDM_ERR_INVALID_ARGUMENT, "'s'");
    tdm_strategy_destroy(s); /* w, r and u go with it */
}

/* ---- colocate_vars_with ---- */

void vars_test_colocate(tdm_strategy *s, tdm_strategy *one)
{
    tdm_variable *anchor = vars_make_var(s, "anchor", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    tdm_variable *o = vars_make_var(one, "elsewhere", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK_OK(tdm_strategy_colocate_vars_with(s, anchor));
    tdm_variable *slot = vars_make_var(s, "slot", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK(tdm_variable_copy_count(slot) == tdm_variable_copy_count(anchor));
    for (size_t i = 0; i < tdm_variable_copy_count(slot); i++)
        CHECK(tdm_tensor_device(tdm_variable_copy(slot, i)) ==
              tdm_tensor_device(tdm_variable_copy(anchor, i)));
    CHECK_FAILS(tdm_strategy_colocate_vars_with(s, anchor), TDM_ERR_INVALID_STATE,
                "tdm_strategy_colocate_end");
    /* Colocation applies to the strategy it was set for only. */
    tdm_variable *on_one =
        vars_make_var(one, "on_one", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK(tdm_variable_copy_count(on_one) == 1);
    CHECK_FAILS(tdm_strategy_colocate_end(one), TDM_ERR_INVALID_STATE, "colocate");
    CHECK_OK(tdm_strategy_colocate_end(s));
    CHECK_FAILS(tdm_strategy_colocate_end(s), TDM_ERR_INVALID_STATE, "colocate");
    CHECK_FAILS(tdm_strategy_colocate_vars_with(s, o), TDM_ERR_INVALID_ARGUMENT,
                "another strategy");
    CHECK_FAILS(tdm_strategy_colocate_vars_with(s, NULL), TDM_ERR_INVALID_ARGUMENT, "'var'");
    /* On the one-device strategy: the variable's single device. */
    CHECK_OK(tdm_strategy_colocate_vars_with(one, o));
    tdm_variable *next = vars_make_var(one, "next", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK(tdm_variable_copy_count(next) == 1 && tdm_tensor_device(tdm_variable_copy(next, 0)) ==
                                                    tdm_tensor_device(tdm_variable_copy(o, 0)));
    /* Destroying the target ends the block on this thread: no dangling target. */
    tdm_variable_destroy(o);
    tdm_variable *after = vars_make_var(one, "after", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK(tdm_variable_copy_count(after) == 1);
    tdm_variable_destroy(after);
    tdm_variable_destroy(next);
    tdm_variable_destroy(on_one);
    tdm_variable_destroy(slot);
    tdm_variable_destroy(anchor);
}

/* ---- one replica: one-device and default strategies hold plain variables ---- */

void vars_test_single_replica(tdm_strategy *one)
{
    float x[COUNT] = {0.1f, 3e38f, -1.0f / 3.0f, 0x1p-149f, 7.0f, -0.3f}, y[COUNT], want[COUNT];
    vars_make_data(y, COUNT, 111);
    tdm_device *dev = tdm_strategy_device(one, 0);
    tdm_variable *v = vars_make_var(one, "single", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_NONE, NULL);
    CHECK(tdm_variable_copy_count(v) == 1);
    CHECK(tdm_tensor_device(tdm_variable_copy(v, 0)) == dev);
    job j;
    vars_job_init(&j, v, TDM_ASSIGN, x, COUNT); /* NONE is no error with one replica */
    RUN_JOB(one, &j, TDM_OK, "");
    EXPECT_ALL(v, x);
    tdm_variable *sum =
        vars_make_var(one, "single_sum", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    vars_job_init(&j, sum, TDM_ASSIGN, x, COUNT); /* a plain value summed once is itself */
    j.host = j.same = 1;
    RUN_JOB(one, &j, TDM_OK, "");
    EXPECT_ALL(sum, x);
    tdm_variable_options o = TDM_VARIABLE_OPTIONS_INIT;
    o.synchronization = TDM_SYNC_NONE;
    tdm_variable *nosync = NULL;
    CHECK_OK(tdm_variable_create(one, &o, &nosync));
    tdm_variable *sor =
        vars_make_var(one, "single_sor", COUNT, TDM_SYNC_ON_READ, TDM_AGG_SUM, NULL);
    CHECK_OK(tdm_variable_assign_host(sor, TDM_ASSIGN, x, sizeof x));
    EXPECT_ALL(sor, x); /* x / 1 */
    CHECK_OK(tdm_variable_assign_host(sor, TDM_ASSIGN_ADD, y, sizeof y));
    for (size_t e = 0; e < COUNT; e++)
        want[e] = x[e] + y[e];
    EXPECT_READ(sor, want);
    tdm_variable *none =
        vars_make_var(one, "single_none", COUNT, TDM_SYNC_ON_READ, TDM_AGG_NONE, x);
    EXPECT_READ(none, x);
    update_log log = {.fail_at = SIZE_MAX};
    CHECK_OK(tdm_strategy_update(one, v, update_fn, &log));
    CHECK(log.calls == 1 && log.device[0] == dev);
    CHECK_OK(tdm_strategy_check_mirrored(one));
    tdm_variable_destroy(v);
    /* sum, nosync, sor and none go with the strategy */
}

void vars_test_default_strategy(void)
{
    tdm_strategy *def = NULL;
    CHECK_OK(tdm_strategy_default(vars_ctx, &def));
    CHECK(tdm_strategy_kind_of(def) == TDM_STRATEGY_DEFAULT);
    float x[COUNT] = {1, 2, 3, 4, 5, 6};
    tdm_variable *v = vars_make_var(def, "global_step", COUNT, TDM_SYNC_AUTO, TDM_AGG_SUM, NULL);
    CHECK(v && tdm_variable_copy_count(v) == 1);
    CHECK(tdm_tensor_device(tdm_variable_copy(v, 0)) == tdm_strategy_device(def, 0));
    CHECK_OK(tdm_variable_assign_host(v, TDM_ASSIGN, x, sizeof x));
    EXPECT_READ(v, x);
    job j;
    vars_job_init(&j, v, TDM_ASSIGN, x, COUNT);
    j.host = j.same = 1;
    RUN_JOB(def, &j, TDM_OK, "");
    EXPECT_ALL(v, x);
    /* v stays: the context releases the default strategy and its variables. */
}

/* An int64 counter from the replica function: not allowed there (any other status
 * than OK fails the run, and the test). */
static tdm_status add_in_replica_fn(tdm_replica_context *rc, void *user)
{
    (void)rc;
    const int64_t one[2] = {1, 1};
    tdm_status s = tdm_variable_assign_int64(user, TDM_ASSIGN_ADD, one, 2);
    return s == TDM_ERR_INVALID_STATE && strstr(tdm_last_error(), "merge_call") ? TDM_OK
                                                                                : TDM_ERR_NUMERIC;
}

/* int64 variables count exactly past 2^24 (and 2^53), stay mirrored, refuse float
 * writes, training and overflow, and survive a checkpoint. */
void vars_test_int64(tdm_strategy *s)
{
    tdm_variable_options o = TDM_VARIABLE_OPTIONS_INIT;
    const int64_t init[2] = {INT64_C(1) << 24, (INT64_C(1) << 62) + 1};
    o.name = "counters";
    o.shape = TDM_SHAPE(2);
    o.dtype = TDM_I64;
    o.initial_int64 = init;
    tdm_variable *v = NULL;
    CHECK_OK(tdm_variable_create(s, &o, &v));
    if (!v)
        return;
    CHECK(tdm_variable_dtype(v) == TDM_I64);
    CHECK(!tdm_variable_trainable(v));
    const int64_t one[2] = {1, 1};
    for (int i = 0; i < 3; i++)
        CHECK_OK(tdm_variable_assign_int64(v, TDM_ASSIGN_ADD, one, 2));
    int64_t got[2] = {0, 0};
    CHECK_OK(tdm_variable_read(v, got, sizeof got));
    CHECK(got[0] == (INT64_C(1) << 24) + 3); /* a float32 counter stops at 2^24 */
    CHECK(got[1] == (INT64_C(1) << 62) + 4);
    CHECK_OK(tdm_strategy_check_mirrored(s));
    for (size_t c = 0; c < tdm_variable_copy_count(v); c++) {
        int64_t copy[2] = {0, 0};
        CHECK_OK(tdm_tensor_read(tdm_variable_copy(v, c), copy, sizeof copy));
        CHECK(!memcmp(copy, got, sizeof got));
    }
    const int64_t big[2] = {INT64_MAX, 0};
    CHECK_FAILS(tdm_variable_assign_int64(v, TDM_ASSIGN_ADD, big, 2), TDM_ERR_INVALID_ARGUMENT,
                "int64 range");
    CHECK_OK(tdm_variable_read(v, got, sizeof got));
    CHECK(got[0] == (INT64_C(1) << 24) + 3); /* nothing written */
    CHECK_FAILS(tdm_variable_assign_int64(v, TDM_ASSIGN_SUB, one, 1), TDM_ERR_INVALID_ARGUMENT,
                "has 2 elements");
    float f[4] = {0};
    CHECK_FAILS(tdm_variable_assign_host(v, TDM_ASSIGN, f, 16), TDM_ERR_INVALID_ARGUMENT,
                "tdm_variable_assign_int64");
    CHECK_FAILS(tdm_variable_read(v, f, 8), TDM_ERR_INVALID_ARGUMENT, "i64");
    CHECK_OK(tdm_strategy_run(s, add_in_replica_fn, v, NULL, 0, NULL));

    /* A checkpoint holds the exact values. */
    char dir[SCRATCH_PATH], path[SCRATCH_PATH];
    CHECK(scratch_temp_dir(dir, "tandem-int64") == 0);
    tdm_checkpoint_writer *w = NULL;
    CHECK_OK(tdm_checkpoint_writer_create(dir, 1, &w));
    CHECK_OK(tdm_checkpoint_add_variable(w, v));
    CHECK_OK(tdm_checkpoint_commit(w));
    const int64_t zero[2] = {0, 0};
    CHECK_OK(tdm_variable_assign_int64(v, TDM_ASSIGN, zero, 2));
    tdm_checkpoint *c = NULL;
    uint64_t step = 0;
    CHECK_OK(tdm_checkpoint_latest(dir, path, sizeof path, &step));
    CHECK(step == 1);
    CHECK_OK(tdm_checkpoint_open(path, &c));
    tdm_dtype dtype = TDM_F32;
    tdm_shape shape;
    CHECK_OK(tdm_checkpoint_tensor_shape(c, "counters", &dtype, &shape));
    CHECK(dtype == TDM_I64);
    CHECK_OK(tdm_checkpoint_restore_variable(c, v));
    CHECK_OK(tdm_variable_read(v, got, sizeof got));
    CHECK(got[0] == (INT64_C(1) << 24) + 3 && got[1] == (INT64_C(1) << 62) + 4);
    tdm_checkpoint_close(c);
    CHECK(scratch_remove_tree(dir) == 0);
    tdm_variable_destroy(v);

    /* What an int64 variable cannot be. */
    tdm_variable *bad = NULL;
    o.trainable = 1;
    CHECK_FAILS(tdm_variable_create(s, &o, &bad), TDM_ERR_INVALID_ARGUMENT, "trainable");
    o.trainable = -1;
    o.synchronization = TDM_SYNC_ON_READ;
    CHECK_FAILS(tdm_variable_create(s, &o, &bad), TDM_ERR_INVALID_ARGUMENT, "ON_READ");
    o.synchronization = TDM_SYNC_AUTO;
    o.dtype = TDM_I32;
    CHECK_FAILS(tdm_variable_create(s, &o, &bad), TDM_ERR_INVALID_ARGUMENT, "TDM_F32 or TDM_I64");
    o.dtype = TDM_F32;
    CHECK_FAILS(tdm_variable_create(s, &o, &bad), TDM_ERR_INVALID_ARGUMENT, "initial_int64");
}
