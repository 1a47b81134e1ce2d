/* The optimizer case, its second part (optimizer.c runs it): optimizers in replica
 * functions, unwrapped, on parameter servers, in towers and on the default strategy. */
#include "optimizer_fixture.h"

/* ---- replica functions ---- */

typedef struct job {
    tdm_optimizer *opt;
    tdm_tower_optimizer *tower;
    tdm_variable *vars[2];
    size_t var_count[MAX_REPLICAS]; /* how many of vars each replica passes */
    int swap_last;                  /* the last replica passes vars in the other order */
    const float *grads;             /* E floats per replica (same: one row for all) */
    int same;
    int mode; /* 0 apply_local, 1 apply, 2 tower apply, 3 set_iterations, 4 create_slots */
    int foreign_device; /* the last replica's gradient on replica 0's device */
    tdm_status status[MAX_REPLICAS];
    char message[MAX_REPLICAS][512];
} job;

static tdm_status job_fn(tdm_replica_context *rc, void *user)
{
    job *j = user;
    size_t id = tdm_replica_id(rc), count = j->var_count[id];
    const float *g = j->grads + (j->same ? 0 : id * E);
    tdm_device *dev = j->foreign_device && id == opt_n - 1 ? opt_devs[0] : tdm_replica_device(rc);
    tdm_tensor *t[2] = {test_tensor_of(dev, g, E), test_tensor_of(dev, g, E)};
    tdm_variable *vars[2] = {j->vars[0], j->vars[1]};
    if (j->swap_last && id == tdm_replica_num_replicas(rc) - 1) {
        vars[0] = j->vars[1];
        vars[1] = j->vars[0];
    }
    tdm_status s = TDM_OK;
    switch (j->mode) {
    case 0: {
        tdm_buffer_view views[2] = {tdm_tensor_view(t[0]), tdm_tensor_view(t[1])};
        s = tdm_optimizer_apply_local(j->opt, rc, vars, views, count);
        break;
    }
    case 1: s = tdm_optimizer_apply(j->opt, vars, t, count); break;
    case 2: s = tdm_tower_optimizer_apply(j->tower, rc, vars, t, count); break;
    case 3: s = tdm_optimizer_set_iterations(j->opt, 7); break;
    case 4: s = tdm_optimizer_create_slots(j->opt, vars, count); break;
    }
    j->status[id] = s;
    snprintf(j->message[id], sizeof j->message[id], "%s", s ? tdm_last_error() : "");
    tdm_tensor_destroy(t[0]);
    tdm_tensor_destroy(t[1]);
    return s;
}

static void job_init(job *j, tdm_optimizer *opt, tdm_variable *var, const float *grads, int same,
                     int mode)
{
    memset(j, 0, sizeof *j);
    j->opt = opt;
    j->vars[0] = var;
    j->grads = grads;
    j->same = same;
    j->mode = mode;
    for (size_t r = 0; r < MAX_REPLICAS; r++)
        j->var_count[r] = 1;
}

/* Every replica ends with `expected` and a message containing needle. */
static void run_job_(tdm_strategy *s, job *j, tdm_status expected, const char *needle, int line)
{
    tdm_status st = tdm_strategy_run(s, job_fn, j, NULL, 0, NULL);
    if (st != expected) {
        test_failures++;
        fprintf(stderr, "line %d: run returned %s (%s), expected %s\n", line, tdm_status_str(st),
                tdm_last_error(), tdm_status_str(expected));
    }
    for (size_t r = 0; r < tdm_strategy_num_replicas(s); r++)
        if (j->status[r] != expected || !strstr(j->message[r], needle)) {
            test_failures++;
            fprintf(stderr, "line %d: replica %zu: %s '%s', expected %s mentioning '%s'\n", line, r,
                    tdm_status_str(j->status[r]), j->message[r], tdm_status_str(expected), needle);
        }
}
#define RUN_JOB(s, j, expected, needle) run_job_(s, j, expected, needle, __LINE__)

static tdm_status write_fixed(tdm_update_context *uc, tdm_tensor *copy, void *user)
{
    (void)uc;
    return tdm_tensor_write(copy, user, E * sizeof(float));
}

/* Between steps the variable or a slot is written by another path than the update,
 * each step's in turn: every path must count its write, or a copy updated on another
 * device's arithmetic (mixed) would go on from the state its scratch kept. */
static void write_between_steps(tdm_strategy *s, tdm_optimizer *opt, tdm_variable *w, model *m,
                                unsigned step)
{
    float x[E];
    for (size_t e = 0; e < E; e++)
        x[e] = (float)(0.25 + 0.01 * (double)(e + step));
    tdm_variable *target = w;
    double *mirror = m->w;
    const char *names[3];
    if (step == 2 && tdm_optimizer_slot_names(opt, names, 3) > 0) {
        CHECK_OK(tdm_optimizer_get_slot(opt, w, names[0], &target));
        mirror = m->slot[0];
    }
    if (!target)
        return;
    if (step == 1 || step == 2)
        CHECK_OK(tdm_variable_assign_host(target, TDM_ASSIGN, x, sizeof x));
    else if (step == 3)
        CHECK_OK(tdm_strategy_update(s, target, write_fixed, x));
    else
        return;
    for (size_t e = 0; e < E; e++)
        mirror[e] = x[e];
}

/* The training op's path: summed gradients applied per replica, iterations advanced
 * once per step in cross-replica context. */
void opt_test_apply_local(tdm_strategy *s)
{
    float init[E];
    opt_make_init(init, E);
    for (size_t i = 0; i < CONFIGS; i++) {
        const char *label;
        tdm_optimizer_options o = opt_config(i, &label);
        tdm_optimizer *opt = NULL;
        CHECK_OK(tdm_optimizer_create(s, &o, &opt));
        tdm_variable *w = opt_make_var(s, "local_w", E, init, TDM_SYNC_AUTO);
        if (!opt || !w)
            return;
        CHECK_OK(tdm_optimizer_create_slots(opt, &w, 1));
        model m;
        opt_model_init(&m, &o, init, E);
        for (unsigned step = 0; step < STEPS; step++) {
            float g[E];
            opt_make_grad(g, E, step, (unsigned)i + 3);
            write_between_steps(s, opt, w, &m, step);
            job j;
            job_init(&j, opt, w, g, 1, 0);
            RUN_JOB(s, &j, TDM_OK, "");
            CHECK(tdm_optimizer_iterations(opt) == step); /* not advanced by apply_local */
            CHECK_OK(tdm_strategy_check_mirrored(s));
            CHECK_OK(tdm_optimizer_set_iterations(opt, step + 1));
            opt_model_step(&m, g);
        }
        fprintf(stderr, "apply_local %s\n", label);
        EXPECT_STATE(opt, w, &m);
        tdm_optimizer_destroy(opt);
        tdm_variable_destroy(w);
    }

    /* Errors: a gradient on another device, a missing slot set, replica-mode calls. */
    tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
    o.kind = TDM_OPT_MOMENTUM;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(s, &o, &opt));
    tdm_variable *w = opt_make_var(s, "local_errors", E, init, TDM_SYNC_AUTO);
    float g[E];
    opt_make_grad(g, E, 1, 1);
    job j;
    job_init(&j, opt, w, g, 1, 0);
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "tdm_optimizer_create_slots");
    job_init(&j, opt, w, g, 1, 4); /* create_slots in a replica function */
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "cross-replica context");
    CHECK_OK(tdm_optimizer_create_slots(opt, &w, 1));
    job_init(&j, opt, w, g, 1, 0);
    j.foreign_device = 1;
    CHECK(tdm_strategy_run(s, job_fn, &j, NULL, 0, NULL) == TDM_ERR_INVALID_ARGUMENT);
    CHECK(j.status[opt_n - 1] == TDM_ERR_INVALID_ARGUMENT &&
          strstr(j.message[opt_n - 1], "not on the replica's device"));
    job_init(&j, opt, w, g, 1, 3); /* set_iterations in a replica function */
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "cross-replica");
    CHECK(tdm_optimizer_iterations(opt) == 0);
    tdm_optimizer_destroy(opt);
    tdm_variable_destroy(w);
}

/* An unwrapped optimizer in a replica function: an error naming the tower optimizer
 * with N > 1, an ordinary update with one replica. */
void opt_test_unwrapped(tdm_strategy *s, tdm_strategy *one)
{
    float init[E], g[E];
    opt_make_init(init, E);
    opt_make_grad(g, E, 2, 2);
    tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
    o.kind = TDM_OPT_MOMENTUM;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(s, &o, &opt));
    tdm_variable *w = opt_make_var(s, "unwrapped", E, init, TDM_SYNC_AUTO);
    CHECK_OK(tdm_optimizer_create_slots(opt, &w, 1));
    job j;
    job_init(&j, opt, w, g, 1, 1);
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "tower");
    CHECK(strstr(j.message[0], "tdm_tower_optimizer_create"));
    CHECK(tdm_optimizer_iterations(opt) == 0);
    float got[E];
    CHECK_OK(tdm_variable_read(w, got, sizeof got));
    CHECK(!memcmp(got, init, sizeof got));
    tdm_optimizer_destroy(opt);
    tdm_variable_destroy(w);

    /* One replica: the local copies, and iterations advance. */
    CHECK_OK(tdm_optimizer_create(one, &o, &opt));
    w = opt_make_var(one, "single", E, init, TDM_SYNC_AUTO);
    CHECK_OK(tdm_optimizer_create_slots(opt, &w, 1));
    job_init(&j, opt, w, g, 1, 1);
    RUN_JOB(one, &j, TDM_OK, "");
    model m;
    opt_model_init(&m, &o, init, E);
    opt_model_step(&m, g);
    EXPECT_STATE(opt, w, &m);
    CHECK(tdm_optimizer_iterations(opt) == 1);
    tdm_optimizer_destroy(opt);
    tdm_variable_destroy(w);
}

/* Parameter servers: variables round-robin over the parameter devices, slots at the
 * home alone, and no per-replica update (the home is updated once). */
void opt_test_parameter_server_placement(tdm_strategy *s)
{
    float init[E];
    opt_make_init(init, E);
    tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
    o.kind = TDM_OPT_ADAM;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(s, &o, &opt));
    tdm_variable *vars[3] = {opt_make_var(s, "ps_a", E, init, TDM_SYNC_AUTO),
                             opt_make_var(s, "ps_b", E, init, TDM_SYNC_AUTO),
                             opt_make_var(s, "ps_c", E, init, TDM_SYNC_AUTO)};
    tdm_variable *local = opt_make_var(s, "ps_read", E, NULL, TDM_SYNC_ON_READ);
    if (!opt || !vars[0] || !vars[1] || !vars[2] || !local)
        return;
    CHECK(tdm_strategy_kind_of(s) == TDM_STRATEGY_PARAMETER_SERVER);
    CHECK(tdm_strategy_num_parameter_devices(s) == 2);
    CHECK(tdm_strategy_parameter_device(s, 1) == opt_devs[0]);
    CHECK(tdm_strategy_parameter_device(s, 2) == NULL);
    for (size_t i = 0; i < 3; i++) {
        tdm_device *home = tdm_strategy_parameter_device(s, i % 2);
        CHECK(tdm_variable_home(vars[i]) == home);
        CHECK(tdm_variable_copy_count(vars[i]) == opt_n + 1);
        CHECK(tdm_tensor_device(tdm_variable_copy(vars[i], opt_n)) == home);
        for (size_t c = 0; c < opt_n; c++)
            CHECK(tdm_tensor_device(tdm_variable_copy(vars[i], c)) == opt_devs[c]);
    }
    CHECK(tdm_variable_home(local) == NULL);
    CHECK(tdm_variable_copy_count(local) == opt_n);
    CHECK_OK(tdm_optimizer_create_slots(opt, vars, 3));
    tdm_variable *slot = NULL;
    CHECK_OK(tdm_optimizer_get_slot(opt, vars[1], "m", &slot));
    CHECK(slot && tdm_variable_copy_count(slot) == 1);
    CHECK(slot && tdm_tensor_device(tdm_variable_copy(slot, 0)) == opt_devs[0]);
    CHECK(slot && tdm_variable_home(slot) == opt_devs[0]);
    float g[E];
    opt_make_grad(g, E, 1, 5);
    job j;
    job_init(&j, opt, vars[0], g, 1, 0);
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "parameter device");
    CHECK(tdm_optimizer_iterations(opt) == 0);
    tdm_optimizer_destroy(opt);
    for (size_t i = 0; i < 3; i++)
        tdm_variable_destroy(vars[i]);
    tdm_variable_destroy(local);
    tdm_strategy *bad = NULL;
    CHECK_FAILS(tdm_strategy_create_parameter_server(opt_ctx, opt_devs, opt_n, NULL, 0, NULL, &bad),
                TDM_ERR_INVALID_ARGUMENT, "parameter device");
    tdm_device *twice[2] = {opt_devs[0], opt_devs[0]};
    CHECK_FAILS(
        tdm_strategy_create_parameter_server(opt_ctx, opt_devs, opt_n, twice, 2, NULL, &bad),
        TDM_ERR_INVALID_ARGUMENT, "used twice");
}

/* The tower optimizer: the update uses the sum of the towers' gradients, once. */
void opt_test_tower(tdm_strategy *s)
{
    float init[E], init2[E], rows[MAX_REPLICAS * E];
    opt_make_init(init, E);
    for (size_t e = 0; e < E; e++)
        init2[e] = -init[e];
    for (size_t i = 0; i < CONFIGS; i++) {
        const char *label;
        tdm_optimizer_options o = opt_config(i, &label);
        tdm_optimizer *opt = NULL;
        tdm_tower_optimizer *tower = NULL;
        CHECK_OK(tdm_optimizer_create(s, &o, &opt));
        CHECK_OK(tdm_tower_optimizer_create(opt, TDM_LOSS_SUM_OVER_BATCH_SIZE, &tower));
        tdm_variable *vars[2] = {opt_make_var(s, "tower_w", E, init, TDM_SYNC_AUTO),
                                 opt_make_var(s, "tower_b", E, init2, TDM_SYNC_AUTO)};
        if (!opt || !tower || !vars[0] || !vars[1])
            return;
        CHECK(tdm_tower_optimizer_inner(tower) == opt);
        CHECK_OK(tdm_optimizer_create_slots(opt, vars, 2));
        model m[2];
        opt_model_init(&m[0], &o, init, E);
        opt_model_init(&m[1], &o, init2, E);
        for (unsigned step = 0; step < STEPS; step++) {
            for (size_t r = 0; r < opt_n; r++)
                opt_make_grad(rows + r * E, E, step, (unsigned)(i + 11 * r));
            float sum[E]; /* folded in tower order, in float, as the collectives do */
            for (size_t e = 0; e < E; e++) {
                sum[e] = rows[e];
                for (size_t r = 1; r < opt_n; r++)
                    sum[e] += rows[r * E + e];
            }
            job j;
            job_init(&j, opt, vars[0], rows, 0, 2);
            j.tower = tower;
            j.vars[1] = vars[1];
            for (size_t r = 0; r < opt_n; r++)
                j.var_count[r] = 2;
            RUN_JOB(s, &j, TDM_OK, "");
            CHECK(tdm_optimizer_iterations(opt) == step + 1); /* once, not once per tower */
            opt_model_step(&m[0], sum);
            opt_model_step(&m[1], sum);
        }
        fprintf(stderr, "tower %s\n", label);
        EXPECT_STATE(opt, vars[0], &m[0]);
        EXPECT_STATE(opt, vars[1], &m[1]);
        CHECK_OK(tdm_strategy_check_mirrored(s));
        tdm_tower_optimizer_destroy(tower);
        tdm_optimizer_destroy(opt);
        tdm_variable_destroy(vars[0]);
        tdm_variable_destroy(vars[1]);
    }

    /* Different calls, bad arguments, loss scale and the batch check. */
    tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
    o.kind = TDM_OPT_ADAM;
    tdm_optimizer *opt = NULL;
    tdm_tower_optimizer *tower = NULL, *sum_tower = NULL;
    CHECK_OK(tdm_optimizer_create(s, &o, &opt));
    CHECK_OK(tdm_tower_optimizer_create(opt, TDM_LOSS_SUM_OVER_BATCH_SIZE, &tower));
    CHECK_OK(tdm_tower_optimizer_create(opt, TDM_LOSS_SUM, &sum_tower));
    tdm_variable *vars[2] = {opt_make_var(s, "calls_a", E, init, TDM_SYNC_AUTO),
                             opt_make_var(s, "calls_b", E, init2, TDM_SYNC_AUTO)};
    CHECK_OK(tdm_optimizer_create_slots(opt, vars, 2));
    for (size_t r = 0; r < opt_n; r++)
        opt_make_grad(rows + r * E, E, 9, (unsigned)r);
    job j;
    job_init(&j, opt, vars[0], rows, 0, 2);
    j.tower = tower;
    j.vars[1] = vars[1];
    j.var_count[opt_n - 1] = 2; /* the last tower passes one variable more */
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "towers made different optimizer calls");
    char towers[64];
    snprintf(towers, sizeof towers, "towers 0 and %zu", opt_n - 1);
    CHECK(strstr(j.message[0], towers));
    for (size_t r = 0; r < opt_n; r++)
        j.var_count[r] = 2;
    j.swap_last = 1; /* the same variables in another order */
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "towers made different optimizer calls");
    CHECK(strstr(j.message[0], "'calls_a'") && strstr(j.message[0], "'calls_b'"));
    j.swap_last = 0;
    j.foreign_device = 1; /* the last tower's gradients on another device */
    snprintf(towers, sizeof towers, "tower %zu", opt_n - 1);
    RUN_JOB(s, &j, TDM_ERR_INVALID_ARGUMENT, towers);
    CHECK(strstr(j.message[0], "tower's device"));
    CHECK(tdm_optimizer_iterations(opt) == 0);
    float got[E];
    CHECK_OK(tdm_variable_read(vars[0], got, sizeof got));
    CHECK(!memcmp(got, init, sizeof got));
    /* Outside a replica function. */
    tdm_replica_context *none = NULL;
    CHECK_FAILS(tdm_tower_optimizer_apply(tower, none, vars, NULL, 0), TDM_ERR_INVALID_ARGUMENT,
                "'rc'");

    CHECK(tdm_tower_optimizer_loss_scale(tower, opt_n) == (float)(1.0 / (double)opt_n));
    CHECK(tdm_tower_optimizer_loss_scale(tower, 4) == 0.25f);
    CHECK(tdm_tower_optimizer_loss_scale(sum_tower, 4) == 1.0f);
    CHECK(tdm_tower_optimizer_loss_scale(tower, 1) == 1.0f);
    CHECK_OK(tdm_tower_optimizer_check_batch(tower, 12, 3));
    CHECK_OK(tdm_tower_optimizer_check_batch(tower, 16 * opt_n, opt_n));
    CHECK_FAILS(tdm_tower_optimizer_check_batch(tower, 10, 3), TDM_ERR_INVALID_ARGUMENT, "10");
    CHECK(strstr(tdm_last_error(), "3 towers"));
    CHECK_FAILS(tdm_tower_optimizer_check_batch(tower, 10, 0), TDM_ERR_INVALID_ARGUMENT,
                "0 towers");
    tdm_tower_optimizer_destroy(tower);
    CHECK_FAILS(tdm_tower_optimizer_create(opt, (tdm_loss_reduction)5, &tower),
                TDM_ERR_INVALID_ARGUMENT, "reduction");
    CHECK(tower == NULL);
    tdm_tower_optimizer_destroy(sum_tower);
    tdm_tower_optimizer_destroy(NULL);
    tdm_optimizer_destroy(opt);
    tdm_variable_destroy(vars[0]);
    tdm_variable_destroy(vars[1]);
}

/* The default strategy: no scope entered, one replica. */
void opt_test_default_strategy(void)
{
    tdm_strategy *def = NULL;
    CHECK_OK(tdm_strategy_default(opt_ctx, &def));
    if (!def)
        return;
    float init[E], g[E];
    opt_make_init(init, E);
    opt_make_grad(g, E, 4, 4);
    tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
    o.kind = TDM_OPT_ADAGRAD;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(def, &o, &opt));
    tdm_variable *w = opt_make_var(def, "default_w", E, init, TDM_SYNC_AUTO);
    CHECK_OK(tdm_optimizer_create_slots(opt, &w, 1));
    tdm_tensor *grad = test_tensor_of(opt_devs[0], g, E);
    CHECK_OK(tdm_optimizer_apply(opt, &w, &grad, 1));
    model m;
    opt_model_init(&m, &o, init, E);
    opt_model_step(&m, g);
    EXPECT_STATE(opt, w, &m);
    tdm_tensor_destroy(grad);
    tdm_optimizer_destroy(opt);
    tdm_variable_destroy(w);
}
