/* Optimizers on a distribution test scenario (argv[1], see test_scenario_devices):
 * every kind against an independent host model of TensorFlow's formulas in double,
 * learning-rate schedules, slots and their errors, the training op's per-replica
 * apply_local, the unwrapped apply in a replica function, and the tower optimizer. */
#include "optimizer_fixture.h"

/* ---- schedules ---- */

/* The schedules' and strategies' names: each parses back to its kind, and another is
 * refused listing them. */
static void test_kind_names(void)
{
    const char *const *lr = tdm_lr_kind_names(), *const *strategies = tdm_strategy_kind_names();
    for (int k = 0; k < TDM_LR_KIND_COUNT; k++) {
        tdm_lr_kind back = TDM_LR_KIND_COUNT;
        CHECK(lr[k] && !strcmp(lr[k], tdm_lr_kind_name((tdm_lr_kind)k)));
        CHECK_OK(tdm_lr_kind_parse(lr[k], &back));
        CHECK(back == (tdm_lr_kind)k);
    }
    CHECK(lr[TDM_LR_KIND_COUNT] == NULL &&
          !strcmp(tdm_lr_kind_name(TDM_LR_WARMUP_COSINE), "cosine"));
    for (int k = 0; k < TDM_STRATEGY_KIND_COUNT; k++) {
        tdm_strategy_kind back = TDM_STRATEGY_KIND_COUNT;
        CHECK_OK(tdm_strategy_kind_parse(strategies[k], &back));
        CHECK(back == (tdm_strategy_kind)k);
    }
    CHECK(strategies[TDM_STRATEGY_KIND_COUNT] == NULL);
    CHECK(!strcmp(tdm_strategy_kind_name(TDM_STRATEGY_PARAMETER_SERVER), "parameter-server"));
    CHECK(!strcmp(tdm_strategy_kind_name(TDM_STRATEGY_KIND_COUNT), "unknown"));
    tdm_lr_kind lk;
    CHECK_FAILS(tdm_lr_kind_parse("linear", &lk), TDM_ERR_NOT_FOUND, "constant");
    tdm_strategy_kind sk;
    CHECK_FAILS(tdm_strategy_kind_parse("mirorred", &sk), TDM_ERR_NOT_FOUND, "mirrored");
}

static void test_schedules(void)
{
    tdm_lr_schedule c = TDM_LR_CONSTANT_RATE(0.05f);
    CHECK_OK(tdm_lr_schedule_check(&c));
    CHECK(tdm_lr_schedule_value(&c, 0) == 0.05f && tdm_lr_schedule_value(&c, 1000000) == 0.05f);

    tdm_lr_schedule x = {TDM_LR_EXPONENTIAL_DECAY, 1.0f, 0.5f, 10, 0, 0, 0};
    CHECK_OK(tdm_lr_schedule_check(&x));
    CHECK(tdm_lr_schedule_value(&x, 0) == 1.0f);
    CHECK(tdm_lr_schedule_value(&x, 10) == 0.5f);
    CHECK(tdm_lr_schedule_value(&x, 5) == (float)M_SQRT1_2); /* a real exponent */
    CHECK(tdm_lr_schedule_value(&x, 30) == 0.125f);

    tdm_lr_schedule st = {TDM_LR_STEP_DECAY, 1.0f, 0.5f, 10, 0, 0, 0};
    CHECK_OK(tdm_lr_schedule_check(&st));
    CHECK(tdm_lr_schedule_value(&st, 0) == 1.0f);
    CHECK(tdm_lr_schedule_value(&st, 9) == 1.0f);
    CHECK(tdm_lr_schedule_value(&st, 10) == 0.5f);
    CHECK(tdm_lr_schedule_value(&st, 25) == 0.25f);

    tdm_lr_schedule wc = {TDM_LR_WARMUP_COSINE, 1.0f, 0, 0, 4, 12, 0.0f};
    CHECK_OK(tdm_lr_schedule_check(&wc));
    CHECK(tdm_lr_schedule_value(&wc, 0) == 0.25f);
    CHECK(tdm_lr_schedule_value(&wc, 1) == 0.5f);
    CHECK(tdm_lr_schedule_value(&wc, 3) == 1.0f);  /* the peak, at the end of warm-up */
    CHECK(tdm_lr_schedule_value(&wc, 4) == 1.0f);  /* the cosine starts at the peak */
    CHECK(tdm_lr_schedule_value(&wc, 8) == 0.5f);  /* half way */
    CHECK(tdm_lr_schedule_value(&wc, 12) == 0.0f); /* the final rate, then flat */
    CHECK(tdm_lr_schedule_value(&wc, 1000) == 0.0f);
    wc.final_rate = 0.25f;
    CHECK(tdm_lr_schedule_value(&wc, 8) == 0.625f);
    CHECK(tdm_lr_schedule_value(&wc, 6) == (float)(0.25 + 0.75 * (1 + M_SQRT1_2) / 2));
    CHECK(tdm_lr_schedule_value(&wc, 99) == 0.25f);
    wc.warmup_steps = 0; /* no warm-up: the cosine from step 0 */
    CHECK(tdm_lr_schedule_value(&wc, 0) == 1.0f && tdm_lr_schedule_value(&wc, 6) == 0.625f);
    wc.warmup_steps = 12; /* all warm-up */
    CHECK_OK(tdm_lr_schedule_check(&wc));
    CHECK(tdm_lr_schedule_value(&wc, 11) == 1.0f && tdm_lr_schedule_value(&wc, 12) == 0.25f);

    /* Errors name the field. */
    tdm_lr_schedule bad = x;
    bad.decay_steps = 0;
    CHECK_FAILS(tdm_lr_schedule_check(&bad), TDM_ERR_INVALID_ARGUMENT, "decay_steps");
    CHECK(isnan(tdm_lr_schedule_value(&bad, 3)));
    bad = st;
    bad.decay_steps = 0;
    CHECK_FAILS(tdm_lr_schedule_check(&bad), TDM_ERR_INVALID_ARGUMENT, "decay_steps");
    bad.decay_steps = 3;
    bad.decay_rate = 0.0f;
    CHECK_FAILS(tdm_lr_schedule_check(&bad), TDM_ERR_INVALID_ARGUMENT, "decay_rate");
    bad = c;
    bad.initial = -0.1f;
    CHECK_FAILS(tdm_lr_schedule_check(&bad), TDM_ERR_INVALID_ARGUMENT, "'initial' is -0.1");
    bad.initial = NAN;
    CHECK_FAILS(tdm_lr_schedule_check(&bad), TDM_ERR_INVALID_ARGUMENT, "initial");
    bad = wc;
    bad.warmup_steps = 13;
    CHECK_FAILS(tdm_lr_schedule_check(&bad), TDM_ERR_INVALID_ARGUMENT, "'warmup_steps' (13)");
    CHECK(strstr(tdm_last_error(), "'total_steps' (12)"));
    bad = wc;
    bad.total_steps = 0;
    bad.warmup_steps = 0;
    CHECK_FAILS(tdm_lr_schedule_check(&bad), TDM_ERR_INVALID_ARGUMENT, "total_steps");
    bad = wc;
    bad.final_rate = -1.0f;
    CHECK_FAILS(tdm_lr_schedule_check(&bad), TDM_ERR_INVALID_ARGUMENT, "final_rate");
    bad.kind = (tdm_lr_kind)9;
    CHECK_FAILS(tdm_lr_schedule_check(&bad), TDM_ERR_INVALID_ARGUMENT, "kind");
    CHECK_FAILS(tdm_lr_schedule_check(NULL), TDM_ERR_INVALID_ARGUMENT, "NULL");
    CHECK(isnan(tdm_lr_schedule_value(NULL, 0)));
}

/* ---- options, names, kinds ---- */

static void test_options(tdm_strategy *s)
{
    static const struct {
        const char *parse, *name;
        tdm_optimizer_kind kind;
    } kinds[] = {{"sgd", "SGD", TDM_OPT_SGD},
                 {"momentum", "Momentum", TDM_OPT_MOMENTUM},
                 {"NESTEROV", "Nesterov", TDM_OPT_MOMENTUM},
                 {"adagrad", "Adagrad", TDM_OPT_ADAGRAD},
                 {"rmsprop", "RMSProp", TDM_OPT_RMSPROP},
                 {"Adam", "Adam", TDM_OPT_ADAM},
                 {"adamw", "AdamW", TDM_OPT_ADAMW}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
        o.nesterov = 1;
        CHECK_OK(tdm_optimizer_kind_parse(kinds[i].parse, &o));
        CHECK(o.kind == kinds[i].kind);
        tdm_optimizer *opt = NULL;
        CHECK_OK(tdm_optimizer_create(s, &o, &opt));
        CHECK(opt && !strcmp(tdm_optimizer_name(opt), kinds[i].name));
        tdm_optimizer_options got;
        CHECK_OK(tdm_optimizer_get_options(opt, &got));
        CHECK(got.momentum == (o.kind == TDM_OPT_MOMENTUM ? 0.9f : 0.0f));
        CHECK(tdm_optimizer_strategy(opt) == s);
        tdm_optimizer_destroy(opt);
    }
    tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
    CHECK_FAILS(tdm_optimizer_kind_parse("lamb", &o), TDM_ERR_NOT_FOUND, "'lamb'");
    CHECK(strstr(tdm_last_error(), "sgd") && strstr(tdm_last_error(), "adamw") &&
          strstr(tdm_last_error(), "nesterov"));

    /* The defaults: SGD at a constant 0.01, Keras' values for the rest. */
    CHECK(o.kind == TDM_OPT_SGD && o.learning_rate.kind == TDM_LR_CONSTANT &&
          o.learning_rate.initial == 0.01f && o.rho == 0.9f && o.epsilon == 1e-7f &&
          o.beta1 == 0.9f && o.beta2 == 0.999f && o.weight_decay == 0.004f &&
          o.initial_accumulator == 0.1f && !o.nesterov && !o.centered);
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(s, NULL, &opt));
    CHECK(opt && !strcmp(tdm_optimizer_name(opt), "SGD"));
    CHECK(tdm_optimizer_learning_rate(opt) == 0.01f && tdm_optimizer_iterations(opt) == 0);
    CHECK(tdm_optimizer_slot_names(opt, NULL, 0) == 0);

    /* A constant rate is set between steps; nothing else is. */
    CHECK_OK(tdm_optimizer_set_learning_rate(opt, 0.25f));
    CHECK(tdm_optimizer_learning_rate(opt) == 0.25f);
    CHECK_FAILS(tdm_optimizer_set_learning_rate(opt, 0.0f), TDM_ERR_INVALID_ARGUMENT, "rate 0");
    CHECK_FAILS(tdm_optimizer_set_learning_rate(opt, NAN), TDM_ERR_INVALID_ARGUMENT, "positive");
    CHECK_FAILS(tdm_optimizer_set_learning_rate(opt, INFINITY), TDM_ERR_INVALID_ARGUMENT, "finite");
    CHECK(tdm_optimizer_learning_rate(opt) == 0.25f);
    tdm_optimizer_destroy(opt);
    tdm_optimizer_destroy(NULL);
    o.learning_rate = (tdm_lr_schedule){TDM_LR_EXPONENTIAL_DECAY, 0.01f, 0.9f, 3, 0, 0, 0};
    CHECK_OK(tdm_optimizer_create(s, &o, &opt));
    CHECK_FAILS(tdm_optimizer_set_learning_rate(opt, 0.5f), TDM_ERR_INVALID_STATE, "schedule");
    CHECK(tdm_optimizer_learning_rate(opt) == 0.01f);
    tdm_optimizer_destroy(opt);
    o.learning_rate = (tdm_lr_schedule){TDM_LR_CONSTANT, 0.01f, 0, 0, 0, 0, 0};

    /* Errors name the option. */
    static const struct {
        tdm_optimizer_kind kind;
        const char *field;
        float value;
    } bad[] = {{TDM_OPT_MOMENTUM, "momentum", 1.5f},
               {TDM_OPT_RMSPROP, "rho", 1.0f},
               {TDM_OPT_RMSPROP, "epsilon", -1e-7f},
               {TDM_OPT_ADAM, "beta1", 1.0f},
               {TDM_OPT_ADAMW, "beta2", NAN},
               {TDM_OPT_ADAMW, "weight_decay", -0.1f},
               {TDM_OPT_ADAGRAD, "initial_accumulator", -0.5f}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o = (tdm_optimizer_options)TDM_OPTIMIZER_OPTIONS_INIT;
        o.kind = bad[i].kind;
        float *f = !strcmp(bad[i].field, "momentum")       ? &o.momentum
                   : !strcmp(bad[i].field, "rho")          ? &o.rho
                   : !strcmp(bad[i].field, "epsilon")      ? &o.epsilon
                   : !strcmp(bad[i].field, "beta1")        ? &o.beta1
                   : !strcmp(bad[i].field, "beta2")        ? &o.beta2
                   : !strcmp(bad[i].field, "weight_decay") ? &o.weight_decay
                                                           : &o.initial_accumulator;
        *f = bad[i].value;
        char needle[64];
        snprintf(needle, sizeof needle, "'%s'", bad[i].field);
        opt = (tdm_optimizer *)&o;
        CHECK_FAILS(tdm_optimizer_create(s, &o, &opt), TDM_ERR_INVALID_ARGUMENT, needle);
        CHECK(opt == NULL);
    }
    o = (tdm_optimizer_options)TDM_OPTIMIZER_OPTIONS_INIT;
    o.kind = (tdm_optimizer_kind)42;
    CHECK_FAILS(tdm_optimizer_create(s, &o, &opt), TDM_ERR_INVALID_ARGUMENT, "'kind'");
    o = (tdm_optimizer_options)TDM_OPTIMIZER_OPTIONS_INIT;
    o.kind = TDM_OPT_MOMENTUM;
    o.nesterov = 2;
    CHECK_FAILS(tdm_optimizer_create(s, &o, &opt), TDM_ERR_INVALID_ARGUMENT, "'nesterov'");
    o = (tdm_optimizer_options)TDM_OPTIMIZER_OPTIONS_INIT;
    o.learning_rate.kind = TDM_LR_EXPONENTIAL_DECAY;
    o.learning_rate.decay_rate = 0.5f;
    CHECK_FAILS(tdm_optimizer_create(s, &o, &opt), TDM_ERR_INVALID_ARGUMENT, "learning_rate");
    CHECK(strstr(tdm_last_error(), "decay_steps"));
    o = (tdm_optimizer_options)TDM_OPTIMIZER_OPTIONS_INIT;
    o.size = 3;
    CHECK_FAILS(tdm_optimizer_create(s, &o, &opt), TDM_ERR_INVALID_ARGUMENT, "size");
    CHECK_FAILS(tdm_optimizer_create(NULL, NULL, &opt), TDM_ERR_INVALID_ARGUMENT, "'s'");

    /* The rate follows iterations through the schedule. */
    o = (tdm_optimizer_options)TDM_OPTIMIZER_OPTIONS_INIT;
    o.learning_rate = (tdm_lr_schedule){TDM_LR_STEP_DECAY, 1.0f, 0.5f, 10, 0, 0, 0};
    CHECK_OK(tdm_optimizer_create(s, &o, &opt));
    CHECK(tdm_optimizer_learning_rate(opt) == 1.0f);
    CHECK_OK(tdm_optimizer_set_iterations(opt, 20));
    CHECK(tdm_optimizer_iterations(opt) == 20 && tdm_optimizer_learning_rate(opt) == 0.25f);
    tdm_optimizer_destroy(opt);
}

/* ---- slots ---- */

static void test_slots(tdm_strategy *s)
{
    static const struct {
        tdm_optimizer_kind kind;
        int centered;
        size_t count;
        const char *names[3];
    } table[] = {{TDM_OPT_SGD, 0, 0, {0}},
                 {TDM_OPT_MOMENTUM, 0, 1, {"momentum"}},
                 {TDM_OPT_ADAGRAD, 0, 1, {"accumulator"}},
                 {TDM_OPT_RMSPROP, 0, 2, {"rms", "momentum"}},
                 {TDM_OPT_RMSPROP, 1, 3, {"rms", "momentum", "mg"}},
                 {TDM_OPT_ADAM, 0, 2, {"m", "v"}},
                 {TDM_OPT_ADAMW, 0, 2, {"m", "v"}}};
    float init[E];
    opt_make_init(init, E);
    tdm_variable *w = opt_make_var(s, "dense/kernel", E, init, TDM_SYNC_AUTO);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
        o.kind = table[i].kind;
        o.centered = table[i].centered;
        tdm_optimizer *opt = NULL;
        CHECK_OK(tdm_optimizer_create(s, &o, &opt));
        if (!opt)
            continue;
        const char *names[3] = {0};
        CHECK(tdm_optimizer_slot_names(opt, names, 1) == table[i].count);
        CHECK(tdm_optimizer_slot_names(opt, names, 3) == table[i].count);
        for (size_t k = 0; k < table[i].count; k++)
            CHECK(names[k] && !strcmp(names[k], table[i].names[k]));
        tdm_variable *slot = NULL;
        if (table[i].count) {
            /* Before create_slots: NOT_FOUND naming the variable, the slot and the call. */
            CHECK_FAILS(tdm_optimizer_get_slot(opt, w, names[0], &slot), TDM_ERR_NOT_FOUND,
                        "tdm_optimizer_create_slots");
            CHECK(strstr(tdm_last_error(), "'dense/kernel'") && strstr(tdm_last_error(), names[0]));
        }
        CHECK_OK(tdm_optimizer_create_slots(opt, &w, 1));
        CHECK_OK(tdm_optimizer_create_slots(opt, &w, 1)); /* idempotent */
        for (size_t k = 0; k < table[i].count; k++) {
            tdm_variable *again = NULL;
            CHECK_OK(tdm_optimizer_get_slot(opt, w, names[k], &slot));
            CHECK_OK(tdm_optimizer_get_slot(opt, w, names[k], &again));
            CHECK(slot && slot == again);
            if (!slot)
                continue;
            char want[64];
            snprintf(want, sizeof want, "dense/kernel/%s", names[k]);
            CHECK(!strcmp(tdm_variable_name(slot), want));
            CHECK(tdm_variable_trainable(slot) == 0);
            CHECK(tdm_variable_synchronization(slot) == TDM_SYNC_ON_WRITE);
            CHECK(tdm_variable_copy_count(slot) == opt_n);
            tdm_shape shape = tdm_variable_shape(slot);
            CHECK(shape.rank == 1 && shape.dims[0] == E);
            for (size_t c = 0; c < opt_n; c++) {
                CHECK(tdm_tensor_device(tdm_variable_copy(slot, c)) == opt_devs[c]);
                float got[E];
                CHECK_OK(tdm_tensor_read(tdm_variable_copy(slot, c), got, sizeof got));
                float v0 = table[i].kind == TDM_OPT_ADAGRAD ? 0.1f : 0.0f;
                for (size_t e = 0; e < E; e++)
                    CHECK(got[e] == v0);
            }
        }
        /* Unknown names list the valid ones. */
        CHECK_FAILS(tdm_optimizer_get_slot(opt, w, "velocity", &slot), TDM_ERR_NOT_FOUND,
                    "'velocity'");
        CHECK(slot == NULL && strstr(tdm_last_error(), "'dense/kernel'"));
        for (size_t k = 0; k < table[i].count; k++) {
            char quoted[32];
            snprintf(quoted, sizeof quoted, "'%s'", names[k]);
            CHECK(strstr(tdm_last_error(), quoted));
        }
        if (!table[i].count)
            CHECK(strstr(tdm_last_error(), "no slots"));
        tdm_optimizer_destroy(opt);
    }

    /* Apply before create_slots; bad gradients; sync-on-read variables. */
    tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
    o.kind = TDM_OPT_ADAM;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(s, &o, &opt));
    float g[E];
    opt_make_grad(g, E, 0, 0);
    tdm_tensor *grad = test_tensor_of(opt_devs[0], g, E),
               *short_grad = test_tensor_of(opt_devs[0], g, E - 1);
    CHECK_FAILS(tdm_optimizer_apply(opt, &w, &grad, 1), TDM_ERR_INVALID_STATE,
                "tdm_optimizer_create_slots");
    CHECK(strstr(tdm_last_error(), "'dense/kernel'"));
    CHECK(tdm_optimizer_iterations(opt) == 0);
    CHECK_OK(tdm_optimizer_create_slots(opt, &w, 1));
    CHECK_FAILS(tdm_optimizer_apply(opt, &w, &short_grad, 1), TDM_ERR_INVALID_ARGUMENT,
                "36 elements");
    tdm_tensor *null_grad = NULL;
    CHECK_FAILS(tdm_optimizer_apply(opt, &w, &null_grad, 1), TDM_ERR_INVALID_ARGUMENT, "NULL");
    float got[E];
    CHECK_OK(tdm_variable_read(w, got, sizeof got));
    CHECK(!memcmp(got, init, sizeof got) && tdm_optimizer_iterations(opt) == 0);
    tdm_variable *sor = opt_make_var(s, "sync_on_read", E, NULL, TDM_SYNC_ON_READ);
    CHECK_FAILS(tdm_optimizer_create_slots(opt, &sor, 1), TDM_ERR_INVALID_ARGUMENT, "sync-on-read");
    tdm_tensor_destroy(grad);
    tdm_tensor_destroy(short_grad);
    tdm_optimizer_destroy(opt);
    tdm_variable_destroy(sor);
    tdm_variable_destroy(w);
}

/* ---- every kind, cross-replica, against the host model ---- */

static void test_kinds_cross_replica(tdm_strategy *s)
{
    float init[E], init2[6] = {1.0f, -2.0f, 0.5f, 0.0f, 3.0f, -0.25f};
    opt_make_init(init, E);
    for (size_t i = 0; i < CONFIGS; i++) {
        const char *label;
        tdm_optimizer_options o = opt_config(i, &label);
        tdm_optimizer *opt = NULL;
        CHECK_OK(tdm_optimizer_create(s, &o, &opt));
        tdm_variable *vars[2] = {opt_make_var(s, "w", E, init, TDM_SYNC_AUTO),
                                 opt_make_var(s, "b", 6, init2, TDM_SYNC_AUTO)};
        if (!opt || !vars[0] || !vars[1])
            return;
        CHECK_OK(tdm_optimizer_create_slots(opt, vars, 2));
        model m[2];
        opt_model_init(&m[0], &o, init, E);
        opt_model_init(&m[1], &o, init2, 6);
        for (unsigned step = 0; step < STEPS; step++) {
            float g0[E], g1[6];
            opt_make_grad(g0, E, step, (unsigned)i);
            opt_make_grad(g1, 6, step, (unsigned)i + 7);
            /* Gradients on any device: each step another one. */
            tdm_tensor *grads[2] = {test_tensor_of(opt_devs[step % opt_n], g0, E),
                                    test_tensor_of(opt_devs[(step + 1) % opt_n], g1, 6)};
            CHECK(tdm_optimizer_learning_rate(opt) ==
                  tdm_lr_schedule_value(&o.learning_rate, step));
            CHECK_OK(tdm_optimizer_apply(opt, vars, grads, 2));
            opt_model_step(&m[0], g0);
            opt_model_step(&m[1], g1);
            CHECK(tdm_optimizer_iterations(opt) == step + 1);
            tdm_tensor_destroy(grads[0]);
            tdm_tensor_destroy(grads[1]);
        }
        fprintf(stderr, "cross-replica %s\n", label);
        EXPECT_STATE(opt, vars[0], &m[0]);
        EXPECT_STATE(opt, vars[1], &m[1]);
        CHECK_OK(tdm_strategy_check_mirrored(s));
        tdm_optimizer_destroy(opt);
        tdm_variable_destroy(vars[0]);
        tdm_variable_destroy(vars[1]);
    }
}

void test_case_optimizer(const test_run *run)
{
    opt_n = test_scenario_of(run, &opt_ctx, opt_devs);
    tdm_strategy *s = opt_mirrored(1), *one = NULL;
    CHECK_OK(tdm_strategy_create_one_device(opt_devs[opt_n - 1], NULL, &one));
    if (s && one) {
        test_kind_names();
        test_schedules();
        test_options(s);
        test_slots(s);
        test_kinds_cross_replica(s);
        opt_test_apply_local(s);
        opt_test_unwrapped(s, one);
        opt_test_tower(s);
        opt_test_default_strategy();
        /* The cross-replica and tower paths again, with each update at a home. */
        tdm_strategy *ps = opt_parameter_server();
        if (ps) {
            opt_test_parameter_server_placement(ps);
            test_kinds_cross_replica(ps);
            opt_test_tower(ps);
        }
        tdm_strategy_destroy(ps);
    }
    tdm_strategy_destroy(one);
    tdm_strategy_destroy(s);
}
