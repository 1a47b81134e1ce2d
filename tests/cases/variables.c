/* Variables on a distribution test scenario (argv[1], see test_scenario_devices):
 * creation and placement, reads in each mode, the write rules of mirrored (ON_WRITE)
 * and sync-on-read (ON_READ) variables in replica functions, update functions and
 * cross-replica context, colocation, the check_mirrored debug check, and the
 * one-device and default strategies. Every expected value is computed on the host
 * with the library's rules (folds in replica order in float, MEAN times (float)(1/N))
 * and compared bit for bit. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "scratch.h"

#define MAX_REPLICAS 4
#define COUNT 6 /* elements of most test variables: shape [2, 3] */
#define BIG 4099

static tdm_context *ctx;
static tdm_device *devs[MAX_REPLICAS];
static size_t n; /* replicas of the scenario */

/* ---- helpers ---- */

/* Floats of widely varying magnitude, so that the order of a sum matters. */
static void make_data(float *x, size_t count, unsigned seed)
{
    uint32_t *bits = malloc(count * sizeof *bits);
    if (!bits) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    test_random_bytes(bits, count * sizeof *bits, seed);
    for (size_t e = 0; e < count; e++)
        x[e] = ldexpf((float)(bits[e] >> 8) * 0x1p-24f - 0.5f, (int)(bits[e] % 21) - 10);
    free(bits);
}

/* SUM (or MEAN) of `reps` rows of `count` floats, folded in row order in float. */
static void fold(const float *rows, size_t reps, size_t count, int mean, float *out)
{
    for (size_t e = 0; e < count; e++) {
        float acc = rows[e];
        for (size_t r = 1; r < reps; r++)
            acc += rows[r * count + e];
        out[e] = mean ? acc * (float)(1.0 / (double)reps) : acc;
    }
}

static int same_bits(const float *got, const float *want, size_t count, const char *what, int line)
{
    for (size_t e = 0; e < count; e++)
        if (memcmp(&got[e], &want[e], sizeof(float))) {
            fprintf(stderr, "line %d: %s: element %zu is %a, expected %a\n", line, what, e,
                    (double)got[e], (double)want[e]);
            return 0;
        }
    return 1;
}

/* Copy i of var holds want, bit for bit. */
static void expect_copy_(tdm_variable *var, size_t i, const float *want, int line)
{
    size_t count = tdm_tensor_count(tdm_variable_copy(var, i));
    float got[BIG];
    tdm_status s = tdm_tensor_read(tdm_variable_copy(var, i), got, count * sizeof(float));
    char what[96];
    snprintf(what, sizeof what, "variable '%s' copy %zu", tdm_variable_name(var), i);
    if (s != TDM_OK || !same_bits(got, want, count, what, line)) {
        test_failures++;
        fprintf(stderr, "line %d: %s: %s\n", line, what, s ? tdm_last_error() : "wrong value");
    }
}
#define EXPECT_COPY(var, i, want) expect_copy_(var, i, want, __LINE__)

static void expect_all_copies_(tdm_variable *var, const float *want, int line)
{
    for (size_t i = 0; i < tdm_variable_copy_count(var); i++)
        expect_copy_(var, i, want, line);
}
#define EXPECT_ALL(var, want) expect_all_copies_(var, want, __LINE__)

/* A cross-replica read equals want, bit for bit. */
static void expect_read_(tdm_variable *var, const float *want, int line)
{
    float got[BIG];
    tdm_shape shape = tdm_variable_shape(var);
    size_t count = tdm_shape_count(&shape);
    tdm_status s = tdm_variable_read(var, got, count * sizeof(float));
    if (s != TDM_OK || !same_bits(got, want, count, "read", line)) {
        test_failures++;
        fprintf(stderr, "line %d: read of '%s': %s\n", line, tdm_variable_name(var),
                s ? tdm_last_error() : "wrong value");
    }
}
#define EXPECT_READ(var, want) expect_read_(var, want, __LINE__)

static tdm_variable *make_var(tdm_strategy *s, const char *name, size_t count,
                              tdm_synchronization sync, tdm_aggregation agg, const float *init)
{
    tdm_variable_options o = TDM_VARIABLE_OPTIONS_INIT;
    o.name = name;
    o.shape = count == COUNT ? TDM_SHAPE(2, 3) : TDM_SHAPE(count);
    o.synchronization = sync;
    o.aggregation = agg;
    o.initial_value = init;
    tdm_variable *var = NULL;
    CHECK_OK(tdm_variable_create(s, &o, &var));
    return var;
}

static tdm_tensor *tensor_of(tdm_device *dev, const float *x, size_t count)
{
    tdm_shape shape = TDM_SHAPE(count);
    tdm_tensor *t = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &shape, &t));
    if (t)
        CHECK_OK(tdm_tensor_write(t, x, count * sizeof(float)));
    return t;
}

/* Writes x into copy i directly, behind the variable's back. */
static void poke_copy(tdm_variable *var, size_t i, const float *x)
{
    tdm_tensor *c = tdm_variable_copy(var, i);
    CHECK_OK(tdm_tensor_write(c, x, tdm_tensor_bytes(c)));
}

static tdm_strategy *mirrored(int check)
{
    tdm_strategy_options o = TDM_STRATEGY_OPTIONS_INIT;
    o.check_mirrored = check;
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, n, &o, &s));
    return s;
}

/* ---- replica functions ---- */

/* One write per replica, with what each replica saw. */
typedef struct job {
    tdm_variable *var;
    tdm_assign_op op[MAX_REPLICAS];
    int host;            /* assign_host instead of a tensor */
    int foreign_device;  /* pass a tensor on the next replica's device */
    int use_local;       /* pass the variable's local copy as the value */
    const float *values; /* row r for replica r, or one row for all (same) */
    int same;
    size_t count;
    tdm_status status[MAX_REPLICAS];
    char message[MAX_REPLICAS][1024];
    float read[MAX_REPLICAS][BIG]; /* what tdm_variable_read gave after the write */
} job;

static void job_init(job *j, tdm_variable *var, tdm_assign_op op, const float *values, size_t count)
{
    memset(j, 0, sizeof *j);
    j->var = var;
    for (size_t r = 0; r < MAX_REPLICAS; r++)
        j->op[r] = op;
    j->values = values;
    j->count = count;
}

static tdm_status assign_fn(tdm_replica_context *rc, void *user)
{
    job *j = user;
    size_t id = tdm_replica_id(rc);
    const float *x = j->values + (j->same ? 0 : id * j->count);
    tdm_status s;
    if (j->host) {
        s = tdm_variable_assign_host(j->var, j->op[id], x, j->count * sizeof(float));
    } else if (j->use_local) {
        s = tdm_variable_assign(j->var, j->op[id], tdm_variable_local(j->var, rc));
    } else {
        tdm_device *dev = j->foreign_device ? devs[(id + 1) % n] : tdm_replica_device(rc);
        tdm_tensor *t = tensor_of(dev, x, j->count);
        s = tdm_variable_assign(j->var, j->op[id], t);
        tdm_tensor_destroy(t);
    }
    j->status[id] = s;
    snprintf(j->message[id], sizeof j->message[id], "%s", s ? tdm_last_error() : "");
    if (s == TDM_OK)
        s = tdm_variable_read(j->var, j->read[id], j->count * sizeof(float));
    return s;
}

/* Runs fn with the job; every replica must end with `expected` and a message
 * containing needle. */
static void run_job_(tdm_strategy *s, tdm_replica_fn fn, job *j, tdm_status expected,
                     const char *needle, int line)
{
    tdm_status st = tdm_strategy_run(s, fn, j, NULL, 0, NULL);
    if (st != expected || (expected && !strstr(tdm_last_error(), needle))) {
        test_failures++;
        fprintf(stderr, "line %d: run returned %s (%s), expected %s\n", line, tdm_status_str(st),
                tdm_last_error(), tdm_status_str(expected));
    }
    size_t reps = tdm_strategy_num_replicas(s);
    for (size_t r = 0; r < reps; r++)
        if (j->status[r] != expected || (expected && !strstr(j->message[r], needle))) {
            test_failures++;
            fprintf(stderr, "line %d: replica %zu got %s ('%s'), expected %s mentioning '%s'\n",
                    line, r, tdm_status_str(j->status[r]), j->message[r], tdm_status_str(expected),
                    needle);
        }
}
#define RUN_FN(s, fn, j, expected, needle) run_job_(s, fn, j, expected, needle, __LINE__)
#define RUN_JOB(s, j, expected, needle) run_job_(s, assign_fn, j, expected, needle, __LINE__)

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
    CHECK(tdm_variable_copy_count(v) == n);
    for (size_t i = 0; i < n; i++)
        CHECK(tdm_tensor_device(tdm_variable_copy(v, i)) == devs[i]);
    CHECK(tdm_variable_copy(v, n) == NULL);
    float zero = 0.0f;
    EXPECT_ALL(v, &zero);
    tdm_variable_destroy(v);
}

static void test_create_options(tdm_strategy *s)
{
    char name[] = "weights";
    float init[COUNT] = {1, -2, 3.5f, 0x1p-30f, -0.0f, 1e30f};
    tdm_variable *v = make_var(s, name, COUNT, TDM_SYNC_AUTO, TDM_AGG_MEAN, init);
    name[0] = 'X'; /* the name was copied */
    CHECK(!strcmp(tdm_variable_name(v), "weights"));
    tdm_shape shape = tdm_variable_shape(v);
    CHECK(shape.rank == 2 && shape.dims[0] == 2 && shape.dims[1] == 3);
    CHECK(tdm_variable_synchronization(v) == TDM_SYNC_ON_WRITE); /* AUTO */
    CHECK(tdm_variable_aggregation(v) == TDM_AGG_MEAN);
    EXPECT_ALL(v, init);
    tdm_variable *r = make_var(s, "r", COUNT, TDM_SYNC_ON_READ, TDM_AGG_SUM, NULL);
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
    for (size_t r = 0; r < n; r++)
        CHECK(!bad[r]);
    tdm_variable *made = NULL;
    CHECK_OK(tdm_strategy_run(s, create_via_merge_fn, &made, NULL, 0, NULL));
    CHECK(made && tdm_variable_copy_count(made) == n);
    tdm_variable_destroy(made);
    /* In the scope: fine. In another strategy's scope: mixing strategies. */
    tdm_strategy *def = NULL;
    CHECK_OK(tdm_strategy_default(ctx, &def));
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
    job_init(&j, v, TDM_ASSIGN, rows, COUNT);
    CHECK_OK(tdm_strategy_run(s, read_local_fn, &j, NULL, 0, NULL));
    for (size_t r = 0; r < n; r++)
        CHECK(same_bits(j.read[r], rows + r * COUNT, COUNT, "replica read", __LINE__));
}

static void test_read_modes(tdm_strategy *s, tdm_synchronization sync)
{
    float rows[MAX_REPLICAS * COUNT];
    make_data(rows, n * COUNT, 11);
    tdm_variable *v = make_var(s, "rd", COUNT, sync, TDM_AGG_ONLY_FIRST_REPLICA, NULL);
    for (size_t i = 0; i < n; i++)
        poke_copy(v, i, rows + i * COUNT);
    EXPECT_READ(v, rows); /* cross-replica: copy 0 */
    expect_local_reads(s, v, rows);
    tdm_variable_destroy(v);
}

static void test_read_sync_on_read(tdm_strategy *s)
{
    float rows[MAX_REPLICAS * COUNT], want[COUNT];
    make_data(rows, n * COUNT, 12);
    rows[0] = 1.0f; /* a sum whose order matters */
    rows[COUNT] = 1e8f;
    if (n > 2)
        rows[2 * COUNT] = -1e8f;
    static const tdm_aggregation aggs[] = {TDM_AGG_SUM, TDM_AGG_MEAN, TDM_AGG_ONLY_FIRST_REPLICA,
                                           TDM_AGG_NONE};
    for (size_t a = 0; a < 4; a++) {
        tdm_variable *v = make_var(s, "sor", COUNT, TDM_SYNC_ON_READ, aggs[a], NULL);
        for (size_t i = 0; i < n; i++)
            poke_copy(v, i, rows + i * COUNT);
        if (aggs[a] == TDM_AGG_NONE) {
            float out[COUNT];
            CHECK_FAILS(tdm_variable_read(v, out, sizeof out), TDM_ERR_INVALID_STATE,
                        "give the variable an aggregation");
            CHECK(strstr(tdm_last_error(), "'sor'"));
        } else {
            if (aggs[a] == TDM_AGG_ONLY_FIRST_REPLICA)
                memcpy(want, rows, sizeof want);
            else
                fold(rows, n, COUNT, aggs[a] == TDM_AGG_MEAN, want);
            EXPECT_READ(v, want);
        }
        /* A replica reads its own copy, whatever the aggregation. */
        expect_local_reads(s, v, rows);
        tdm_variable_destroy(v);
    }
    /* The fold is in copy order: with 1e8 + 1 - 1e8 the order shows. */
    CHECK(n < 3 ||
          (rows[0] + rows[COUNT]) + rows[2 * COUNT] != rows[0] + (rows[COUNT] + rows[2 * COUNT]));
}

static void test_read_errors(tdm_strategy *s)
{
    tdm_variable *v = make_var(s, "rerr", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_NONE, NULL);
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
    make_data(a, COUNT, 21);
    make_data(b, COUNT, 22);
    tdm_variable *v = make_var(s, "xm", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_NONE, NULL);
    /* A tensor on the last device goes to every copy. */
    tdm_tensor *ta = tensor_of(devs[n - 1], a, COUNT), *tb = tensor_of(devs[0], b, COUNT);
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
    CHECK_OK(tdm_variable_assign(v, TDM_ASSIGN, tdm_variable_copy(v, n - 1)));
    EXPECT_ALL(v, want);
    tdm_tensor_destroy(ta);
    tdm_tensor_destroy(tb);
    tdm_variable_destroy(v);
}

static void test_cross_sync_on_read(tdm_strategy *s)
{
    float x[COUNT] = {1.0f, 0.1f, 3e38f, -7.0f, 0x1p-140f, 10.0f}, y[COUNT], want[COUNT];
    make_data(y, COUNT, 23);
    float divided[COUNT];
    for (size_t e = 0; e < COUNT; e++)
        divided[e] = x[e] / (float)n;
    /* x / N is not x * (1 / N) for every x: the rule is visible. */
    int visible = 0;
    for (size_t e = 0; e < COUNT; e++)
        visible |= divided[e] != x[e] * (float)(1.0 / (double)n);
    CHECK(n == 2 || visible);
    tdm_variable *sum = make_var(s, "ssum", COUNT, TDM_SYNC_ON_READ, TDM_AGG_SUM, NULL);
    tdm_tensor *tx = tensor_of(devs[0], x, COUNT), *ty = tensor_of(devs[n - 1], y, COUNT);
    CHECK_OK(tdm_variable_assign(sum, TDM_ASSIGN, tx));
    EXPECT_ALL(sum, divided);
    CHECK_OK(tdm_variable_assign_host(sum, TDM_ASSIGN, x, sizeof x));
    EXPECT_ALL(sum, divided);
    float rows[MAX_REPLICAS * COUNT];
    for (size_t i = 0; i < n; i++)
        memcpy(rows + i * COUNT, divided, sizeof divided);
    fold(rows, n, COUNT, 0, want);
    EXPECT_READ(sum, want);
    CHECK_FAILS(tdm_variable_assign(sum, TDM_ASSIGN_ADD, ty), TDM_ERR_INVALID_STATE, "assign_add");
    CHECK(strstr(tdm_last_error(), "'ssum'") && strstr(tdm_last_error(), "SUM"));
    CHECK_FAILS(tdm_variable_assign_host(sum, TDM_ASSIGN_SUB, y, sizeof y), TDM_ERR_INVALID_STATE,
                "assign_sub");
    EXPECT_ALL(sum, divided); /* unchanged */
    static const tdm_aggregation others[] = {TDM_AGG_MEAN, TDM_AGG_ONLY_FIRST_REPLICA,
                                             TDM_AGG_NONE};
    for (size_t a = 0; a < 3; a++) {
        tdm_variable *v = make_var(s, "sother", COUNT, TDM_SYNC_ON_READ, others[a], NULL);
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
    tdm_variable *v = make_var(s, "shape_w", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    float x[COUNT + 1] = {0};
    tdm_tensor *wrong = tensor_of(devs[0], x, COUNT + 1);
    CHECK_FAILS(tdm_variable_assign(v, TDM_ASSIGN, wrong), TDM_ERR_INVALID_ARGUMENT, "'shape_w'");
    CHECK(strstr(tdm_last_error(), "[2, 3]") && strstr(tdm_last_error(), "[7]"));
    tdm_tensor *ints = NULL;
    tdm_shape shape = TDM_SHAPE(2, 3);
    CHECK_OK(tdm_tensor_create(devs[0], TDM_I32, &shape, &ints));
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

/* ---- replica-function writes of mirrored variables ---- */

static void test_replica_reduce(tdm_strategy *s, tdm_aggregation agg, size_t count)
{
    static float rows[MAX_REPLICAS * BIG], init[BIG], want[BIG], sum[BIG];
    static job j;
    make_data(rows, n * count, 31 + (unsigned)agg);
    make_data(init, count, 41);
    fold(rows, n, count, agg == TDM_AGG_MEAN, sum);
    const float *first = rows;
    const float *delta = agg == TDM_AGG_ONLY_FIRST_REPLICA ? first : sum;
    tdm_variable *v = make_var(s, "rw", count, TDM_SYNC_ON_WRITE, agg, init);
    static const tdm_assign_op ops[] = {TDM_ASSIGN_ADD, TDM_ASSIGN_SUB, TDM_ASSIGN};
    memcpy(want, init, count * sizeof(float));
    for (size_t o = 0; o < 3; o++) {
        job_init(&j, v, ops[o], rows, count);
        RUN_JOB(s, &j, TDM_OK, "");
        for (size_t e = 0; e < count; e++)
            want[e] = ops[o] == TDM_ASSIGN       ? delta[e]
                      : ops[o] == TDM_ASSIGN_ADD ? want[e] + delta[e]
                                                 : want[e] - delta[e];
        EXPECT_ALL(v, want);
        for (size_t r = 0; r < n; r++) /* each replica read the new value */
            CHECK(same_bits(j.read[r], want, count, "read after write", __LINE__));
    }
    tdm_variable_destroy(v);
}

/* Each replica adds its own local copy, reduced: copies read before they change. */
static void test_replica_alias(tdm_strategy *s)
{
    float init[COUNT], want[COUNT], rows[MAX_REPLICAS * COUNT];
    make_data(init, COUNT, 51);
    tdm_variable *v = make_var(s, "alias", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, init);
    job j;
    job_init(&j, v, TDM_ASSIGN_ADD, init, COUNT);
    j.use_local = 1;
    RUN_JOB(s, &j, TDM_OK, "");
    for (size_t r = 0; r < n; r++)
        memcpy(rows + r * COUNT, init, sizeof init);
    fold(rows, n, COUNT, 0, want);
    for (size_t e = 0; e < COUNT; e++)
        want[e] = init[e] + want[e];
    EXPECT_ALL(v, want);
    /* The same with assign: the sum of the copies replaces them. */
    for (size_t r = 0; r < n; r++)
        memcpy(rows + r * COUNT, want, sizeof want);
    job_init(&j, v, TDM_ASSIGN, init, COUNT);
    j.use_local = 1;
    RUN_JOB(s, &j, TDM_OK, "");
    fold(rows, n, COUNT, 0, want);
    EXPECT_ALL(v, want);
    tdm_variable_destroy(v);
}

static void test_replica_errors(tdm_strategy *s)
{
    float rows[MAX_REPLICAS * COUNT], init[COUNT];
    make_data(rows, n * COUNT, 61);
    make_data(init, COUNT, 62);
    tdm_variable *none = make_var(s, "agg_none", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_NONE, init);
    job j;
    job_init(&j, none, TDM_ASSIGN, rows, COUNT);
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE,
            "give the variable an aggregation (SUM, MEAN or ONLY_FIRST_REPLICA) or assign in "
            "cross-replica context");
    CHECK(strstr(j.message[0], "'agg_none'"));
    EXPECT_ALL(none, init);
    /* Different calls: an error to every replica, nothing written. */
    tdm_variable *v = make_var(s, "mixed_ops", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, init);
    job_init(&j, v, TDM_ASSIGN_ADD, rows, COUNT);
    j.op[n - 1] = TDM_ASSIGN;
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "same call");
    CHECK(strstr(j.message[0], "'mixed_ops'") && strstr(j.message[0], "assign_add"));
    EXPECT_ALL(v, init);
    /* A tensor on another replica's device. */
    job_init(&j, v, TDM_ASSIGN, rows, COUNT);
    j.foreign_device = 1;
    tdm_status st = tdm_strategy_run(s, assign_fn, &j, NULL, 0, NULL);
    CHECK(st == TDM_ERR_INVALID_ARGUMENT || st == TDM_ERR_CANCELLED);
    CHECK(j.status[0] != TDM_OK);
    CHECK(strstr(j.message[0], "replica's device") || strstr(j.message[0], "cancelled"));
    EXPECT_ALL(v, init);
    tdm_variable_destroy(v);
    tdm_variable_destroy(none);
}

/* Host data in a replica function is a plain value. */
static void test_replica_plain(tdm_strategy *s)
{
    float x[COUNT] = {0.1f, 3e38f, -1.0f / 3.0f, 0x1p-149f, 7.0f, -0.3f};
    float init[COUNT], want[COUNT], rows[MAX_REPLICAS * COUNT];
    make_data(init, COUNT, 71);
    /* Summing N copies then scaling would change some element: the pass-through shows. */
    for (size_t r = 0; r < n; r++)
        memcpy(rows + r * COUNT, x, sizeof x);
    fold(rows, n, COUNT, 1, want);
    CHECK(memcmp(want, x, sizeof x) != 0);
    static const tdm_aggregation pass[] = {TDM_AGG_MEAN, TDM_AGG_ONLY_FIRST_REPLICA};
    job j;
    for (size_t a = 0; a < 2; a++) {
        tdm_variable *v = make_var(s, "plain", COUNT, TDM_SYNC_ON_WRITE, pass[a], init);
        job_init(&j, v, TDM_ASSIGN, x, COUNT);
        j.host = j.same = 1;
        RUN_JOB(s, &j, TDM_OK, "");
        EXPECT_ALL(v, x);
        job_init(&j, v, TDM_ASSIGN_ADD, x, COUNT);
        j.host = j.same = 1;
        RUN_JOB(s, &j, TDM_OK, "");
        for (size_t e = 0; e < COUNT; e++)
            want[e] = x[e] + x[e];
        EXPECT_ALL(v, want);
        tdm_variable_destroy(v);
    }
    tdm_variable *sum = make_var(s, "plain_sum", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, init);
    job_init(&j, sum, TDM_ASSIGN, x, COUNT);
    j.host = j.same = 1;
    char needle[64];
    snprintf(needle, sizeof needle, "would count it %zu times", n);
    RUN_JOB(s, &j, TDM_ERR_INVALID_ARGUMENT, needle);
    CHECK(strstr(j.message[0], "use MEAN or ONLY_FIRST_REPLICA or assign in cross-replica"));
    EXPECT_ALL(sum, init);
    /* Different host data on the replicas. */
    tdm_variable *mean = make_var(s, "plain_diff", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_MEAN, init);
    make_data(rows, n * COUNT, 72);
    job_init(&j, mean, TDM_ASSIGN, rows, COUNT);
    j.host = 1;
    RUN_JOB(s, &j, TDM_ERR_INVALID_ARGUMENT, "pass a device tensor");
    EXPECT_ALL(mean, init);
    tdm_variable_destroy(mean);
    tdm_variable_destroy(sum);
}

/* ---- replica-function writes of sync-on-read variables: the own copy only ---- */

static void test_replica_sync_on_read(tdm_strategy *s)
{
    float rows[MAX_REPLICAS * COUNT], init[COUNT], want[MAX_REPLICAS * COUNT], sum[COUNT];
    make_data(rows, n * COUNT, 81);
    make_data(init, COUNT, 82);
    tdm_variable *v = make_var(s, "sor_w", COUNT, TDM_SYNC_ON_READ, TDM_AGG_SUM, init);
    job j;
    job_init(&j, v, TDM_ASSIGN_ADD, rows, COUNT);
    RUN_JOB(s, &j, TDM_OK, "");
    for (size_t r = 0; r < n; r++) {
        for (size_t e = 0; e < COUNT; e++)
            want[r * COUNT + e] = init[e] + rows[r * COUNT + e];
        EXPECT_COPY(v, r, want + r * COUNT);
        CHECK(same_bits(j.read[r], want + r * COUNT, COUNT, "own copy", __LINE__));
    }
    fold(want, n, COUNT, 0, sum);
    EXPECT_READ(v, sum);
    /* Different ops on different replicas are fine here: no synchronization. */
    job_init(&j, v, TDM_ASSIGN, rows, COUNT);
    j.op[0] = TDM_ASSIGN_SUB;
    RUN_JOB(s, &j, TDM_OK, "");
    for (size_t e = 0; e < COUNT; e++)
        want[e] = want[e] - rows[e];
    EXPECT_COPY(v, 0, want);
    for (size_t r = 1; r < n; r++)
        EXPECT_COPY(v, r, rows + r * COUNT);
    /* Host data: the replica's own copy gets it as is, even for SUM. */
    job_init(&j, v, TDM_ASSIGN, rows, COUNT);
    j.host = 1;
    RUN_JOB(s, &j, TDM_OK, "");
    for (size_t r = 0; r < n; r++)
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
    make_data(x, COUNT, 90 + (unsigned)tdm_replica_id(rc));
    tdm_tensor *t = tensor_of(tdm_replica_device(rc), x, COUNT);
    tdm_status s = tdm_replica_merge_call(rc, assign_in_merge, user, t, NULL);
    tdm_tensor_destroy(t);
    return s;
}

static void test_merge_assign(tdm_strategy *s)
{
    tdm_variable *v = make_var(s, "merged", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_NONE, NULL);
    CHECK_OK(tdm_strategy_run(s, merge_assign_fn, v, NULL, 0, NULL));
    float want[COUNT];
    make_data(want, COUNT, 90 + (unsigned)(n - 1));
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

static void test_update(tdm_strategy *s, tdm_synchronization sync)
{
    float rows[MAX_REPLICAS * COUNT], peek[MAX_REPLICAS * COUNT], want[COUNT];
    make_data(rows, n * COUNT, 101);
    make_data(peek, n * COUNT, 102);
    tdm_variable *v = make_var(s, "upd", COUNT, sync, TDM_AGG_MEAN, NULL);
    tdm_variable *other = make_var(s, "bystander", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    tdm_variable *p = make_var(s, "peeked", COUNT, TDM_SYNC_ON_READ, TDM_AGG_SUM, NULL);
    for (size_t i = 0; i < n; i++) {
        poke_copy(v, i, rows + i * COUNT); /* copies differ: each call sees its own */
        poke_copy(p, i, peek + i * COUNT);
    }
    update_log log = {.other = other, .peek = p, .fail_at = SIZE_MAX};
    CHECK_OK(tdm_strategy_update(s, v, update_fn, &log));
    CHECK(log.calls == n);
    for (size_t k = 0; k < n && k < log.calls; k++) {
        CHECK(log.index[k] == k && log.device[k] == devs[k] && log.var[k] == v);
        CHECK(log.copy[k] == tdm_variable_copy(v, k));
        CHECK(same_bits(log.read[k], rows + k * COUNT, COUNT, "update read", __LINE__));
        CHECK(same_bits(log.peek_read[k], peek + k * COUNT, COUNT, "peek", __LINE__));
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

static void test_update_errors(tdm_strategy *s, tdm_strategy *other)
{
    tdm_variable *v = make_var(s, "u", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    tdm_variable *o = make_var(other, "foreign", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    update_log log = {.fail_at = SIZE_MAX};
    CHECK_FAILS(tdm_strategy_update(s, o, update_fn, &log), TDM_ERR_INVALID_ARGUMENT,
                "another strategy");
    CHECK(log.calls == 0);
    job j;
    job_init(&j, v, TDM_ASSIGN, NULL, COUNT);
    RUN_FN(s, update_in_replica_fn, &j, TDM_ERR_INVALID_STATE, "tdm_replica_merge_call");
    job_init(&j, o, TDM_ASSIGN, NULL, COUNT);
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

static void test_check_mirrored(tdm_strategy *plain)
{
    tdm_strategy *s = mirrored(1);
    float ones[32], bad[32], zero[COUNT] = {0};
    for (size_t e = 0; e < 32; e++)
        ones[e] = bad[e] = 1.0f;
    bad[17] = nextafterf(1.0f, 2.0f);
    tdm_variable *w = make_var(s, "w", 32, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, ones);
    tdm_variable *r = make_var(s, "sync_on_read", COUNT, TDM_SYNC_ON_READ, TDM_AGG_SUM, zero);
    poke_copy(r, n - 1, ones); /* sync-on-read copies may differ */
    CHECK_OK(tdm_strategy_check_mirrored(s));
    poke_copy(w, n - 1, bad);
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(devs[n - 1], &desc));
    char needle[256];
    snprintf(needle, sizeof needle,
             "variable 'w': copy %zu (device %s) differs from copy 0 at element 17: 0x1p+0 vs "
             "0x1.000002p+0",
             n - 1, desc.id);
    CHECK_FAILS(tdm_strategy_check_mirrored(s), TDM_ERR_INVALID_STATE, needle);
    /* A replica-function add keeps the difference: every replica hears of it. */
    float rows[MAX_REPLICAS * 32] = {0};
    job j;
    job_init(&j, w, TDM_ASSIGN_ADD, rows, 32);
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "differs from copy 0 at element 17");
    /* A cross-replica assign writes every copy: identical again. */
    CHECK_OK(tdm_variable_assign_host(w, TDM_ASSIGN, ones, sizeof ones));
    CHECK_OK(tdm_strategy_check_mirrored(s));
    job_init(&j, w, TDM_ASSIGN_ADD, rows, 32);
    RUN_JOB(s, &j, TDM_OK, "");
    /* An update function that writes each copy differently: caught after the update. */
    tdm_variable *u = make_var(s, "u", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK_FAILS(tdm_strategy_update(s, u, diverge_fn, NULL), TDM_ERR_INVALID_STATE,
                "variable 'u': copy 1");
    CHECK(strstr(tdm_last_error(), "differs from copy 0 at element 0: 0x0p+0 vs 0x1p+0"));
    /* Without check_mirrored nothing is verified. */
    tdm_variable *q = make_var(plain, "q", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK_OK(tdm_strategy_update(plain, q, diverge_fn, NULL));
    CHECK_FAILS(tdm_strategy_check_mirrored(plain), TDM_ERR_INVALID_STATE, "variable 'q'");
    tdm_variable_destroy(q);
    CHECK_FAILS(tdm_strategy_check_mirrored(NULL), TDM_ERR_INVALID_ARGUMENT, "'s'");
    tdm_strategy_destroy(s); /* w, r and u go with it */
}

/* ---- colocate_vars_with ---- */

static void test_colocate(tdm_strategy *s, tdm_strategy *one)
{
    tdm_variable *anchor = make_var(s, "anchor", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    tdm_variable *o = make_var(one, "elsewhere", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK_OK(tdm_strategy_colocate_vars_with(s, anchor));
    tdm_variable *slot = make_var(s, "slot", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK(tdm_variable_copy_count(slot) == tdm_variable_copy_count(anchor));
    for (size_t i = 0; i < tdm_variable_copy_count(slot); i++)
        CHECK(tdm_tensor_device(tdm_variable_copy(slot, i)) ==
              tdm_tensor_device(tdm_variable_copy(anchor, i)));
    CHECK_FAILS(tdm_strategy_colocate_vars_with(s, anchor), TDM_ERR_INVALID_STATE,
                "tdm_strategy_colocate_end");
    /* Colocation applies to the strategy it was set for only. */
    tdm_variable *on_one = make_var(one, "on_one", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK(tdm_variable_copy_count(on_one) == 1);
    CHECK_FAILS(tdm_strategy_colocate_end(one), TDM_ERR_INVALID_STATE, "colocate");
    CHECK_OK(tdm_strategy_colocate_end(s));
    CHECK_FAILS(tdm_strategy_colocate_end(s), TDM_ERR_INVALID_STATE, "colocate");
    CHECK_FAILS(tdm_strategy_colocate_vars_with(s, o), TDM_ERR_INVALID_ARGUMENT,
                "another strategy");
    CHECK_FAILS(tdm_strategy_colocate_vars_with(s, NULL), TDM_ERR_INVALID_ARGUMENT, "'var'");
    /* On the one-device strategy: the variable's single device. */
    CHECK_OK(tdm_strategy_colocate_vars_with(one, o));
    tdm_variable *next = make_var(one, "next", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK(tdm_variable_copy_count(next) == 1 && tdm_tensor_device(tdm_variable_copy(next, 0)) ==
                                                    tdm_tensor_device(tdm_variable_copy(o, 0)));
    /* Destroying the target ends the block on this thread: no dangling target. */
    tdm_variable_destroy(o);
    tdm_variable *after = make_var(one, "after", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    CHECK(tdm_variable_copy_count(after) == 1);
    tdm_variable_destroy(after);
    tdm_variable_destroy(next);
    tdm_variable_destroy(on_one);
    tdm_variable_destroy(slot);
    tdm_variable_destroy(anchor);
}

/* ---- one replica: one-device and default strategies hold plain variables ---- */

static void test_single_replica(tdm_strategy *one)
{
    float x[COUNT] = {0.1f, 3e38f, -1.0f / 3.0f, 0x1p-149f, 7.0f, -0.3f}, y[COUNT], want[COUNT];
    make_data(y, COUNT, 111);
    tdm_device *dev = tdm_strategy_device(one, 0);
    tdm_variable *v = make_var(one, "single", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_NONE, NULL);
    CHECK(tdm_variable_copy_count(v) == 1);
    CHECK(tdm_tensor_device(tdm_variable_copy(v, 0)) == dev);
    job j;
    job_init(&j, v, TDM_ASSIGN, x, COUNT); /* NONE is no error with one replica */
    RUN_JOB(one, &j, TDM_OK, "");
    EXPECT_ALL(v, x);
    tdm_variable *sum = make_var(one, "single_sum", COUNT, TDM_SYNC_ON_WRITE, TDM_AGG_SUM, NULL);
    job_init(&j, sum, TDM_ASSIGN, x, COUNT); /* a plain value summed once is itself */
    j.host = j.same = 1;
    RUN_JOB(one, &j, TDM_OK, "");
    EXPECT_ALL(sum, x);
    tdm_variable_options o = TDM_VARIABLE_OPTIONS_INIT;
    o.synchronization = TDM_SYNC_NONE;
    tdm_variable *nosync = NULL;
    CHECK_OK(tdm_variable_create(one, &o, &nosync));
    tdm_variable *sor = make_var(one, "single_sor", COUNT, TDM_SYNC_ON_READ, TDM_AGG_SUM, NULL);
    CHECK_OK(tdm_variable_assign_host(sor, TDM_ASSIGN, x, sizeof x));
    EXPECT_ALL(sor, x); /* x / 1 */
    CHECK_OK(tdm_variable_assign_host(sor, TDM_ASSIGN_ADD, y, sizeof y));
    for (size_t e = 0; e < COUNT; e++)
        want[e] = x[e] + y[e];
    EXPECT_READ(sor, want);
    tdm_variable *none = make_var(one, "single_none", COUNT, TDM_SYNC_ON_READ, TDM_AGG_NONE, x);
    EXPECT_READ(none, x);
    update_log log = {.fail_at = SIZE_MAX};
    CHECK_OK(tdm_strategy_update(one, v, update_fn, &log));
    CHECK(log.calls == 1 && log.device[0] == dev);
    CHECK_OK(tdm_strategy_check_mirrored(one));
    tdm_variable_destroy(v);
    /* sum, nosync, sor and none go with the strategy */
}

static void test_default_strategy(void)
{
    tdm_strategy *def = NULL;
    CHECK_OK(tdm_strategy_default(ctx, &def));
    CHECK(tdm_strategy_kind_of(def) == TDM_STRATEGY_DEFAULT);
    float x[COUNT] = {1, 2, 3, 4, 5, 6};
    tdm_variable *v = make_var(def, "global_step", COUNT, TDM_SYNC_AUTO, TDM_AGG_SUM, NULL);
    CHECK(v && tdm_variable_copy_count(v) == 1);
    CHECK(tdm_tensor_device(tdm_variable_copy(v, 0)) == tdm_strategy_device(def, 0));
    CHECK_OK(tdm_variable_assign_host(v, TDM_ASSIGN, x, sizeof x));
    EXPECT_READ(v, x);
    job j;
    job_init(&j, v, TDM_ASSIGN, x, COUNT);
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
static void test_int64(tdm_strategy *s)
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
        test_replica_reduce(s, aggs[a], COUNT);
        test_replica_reduce(s, aggs[a], BIG);
    }
    test_replica_alias(s);
    test_replica_errors(s);
    test_replica_plain(s);
    test_replica_sync_on_read(s);
    test_merge_assign(s);
    test_update(s, TDM_SYNC_ON_WRITE);
    test_update(s, TDM_SYNC_ON_READ);
    test_update_errors(s, one);
    test_check_mirrored(s);
    test_int64(s);
    test_colocate(s, one);
    test_single_replica(one);
    test_default_strategy();
}

void test_case_variables(const test_run *run)
{
    n = test_scenario_of(run, &ctx, devs);
    tdm_strategy *s = mirrored(0), *one = NULL;
    CHECK_OK(tdm_strategy_create_one_device(devs[n - 1], NULL, &one));
    if (s && one)
        check_strategies(s, one);
    tdm_strategy_destroy(one);
    tdm_strategy_destroy(s);
}
