/* Optimizers on a distribution test scenario (argv[1], see test_scenario_devices):
 * every kind against an independent host model of TensorFlow's formulas in double,
 * learning-rate schedules, slots and their errors, the training op's per-replica
 * apply_local, the unwrapped apply in a replica function, and the tower optimizer. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "optimizer/optimizer_impl.h"

#define MAX_REPLICAS 4
#define E 37 /* elements of the main test variable: not a multiple of 4 */
#define STEPS 5

static tdm_context *ctx;
static tdm_device *devs[MAX_REPLICAS];
static size_t n; /* replicas of the scenario */

/* ---- the host model: TensorFlow's training ops, in double ---- */

/* The schedule, written again from its definition. */
static double model_rate(const tdm_lr_schedule *s, uint64_t step)
{
    double t = (double)step;
    switch (s->kind) {
    case TDM_LR_CONSTANT: return s->initial;
    case TDM_LR_EXPONENTIAL_DECAY:
        return s->initial * pow(s->decay_rate, t / (double)s->decay_steps);
    case TDM_LR_STEP_DECAY:
        return s->initial * pow(s->decay_rate, floor(t / (double)s->decay_steps));
    case TDM_LR_WARMUP_COSINE:
        if (step < s->warmup_steps)
            return s->initial * (t + 1.0) / (double)s->warmup_steps;
        if (step >= s->total_steps)
            return s->final_rate;
        {
            double p = (t - (double)s->warmup_steps) / (double)(s->total_steps - s->warmup_steps);
            return s->final_rate + (s->initial - s->final_rate) * (1.0 + cos(M_PI * p)) / 2.0;
        }
    case TDM_LR_KIND_COUNT: break;
    }
    return NAN;
}

typedef struct model {
    tdm_optimizer_options o; /* momentum resolved */
    size_t count;
    double w[E], slot[3][E];
    uint64_t t;
} model;

static void model_init(model *m, const tdm_optimizer_options *o, const float *w0, size_t count)
{
    memset(m, 0, sizeof *m);
    m->o = *o;
    if (m->o.momentum < 0)
        m->o.momentum = o->kind == TDM_OPT_MOMENTUM ? 0.9f : 0.0f;
    m->count = count;
    for (size_t e = 0; e < count; e++) {
        m->w[e] = w0[e];
        if (o->kind == TDM_OPT_ADAGRAD)
            m->slot[0][e] = o->initial_accumulator;
    }
}

static void model_step(model *m, const float *grad)
{
    const tdm_optimizer_options *o = &m->o;
    double lr = model_rate(&o->learning_rate, m->t), mu = o->momentum, eps = o->epsilon;
    double b1 = o->beta1, b2 = o->beta2, rho = o->rho;
    double b1p = pow(b1, (double)m->t + 1), b2p = pow(b2, (double)m->t + 1);
    for (size_t e = 0; e < m->count; e++) {
        double g = grad[e], *w = &m->w[e], *s0 = &m->slot[0][e], *s1 = &m->slot[1][e],
               *s2 = &m->slot[2][e];
        switch (o->kind) {
        case TDM_OPT_SGD: *w -= lr * g; break;
        case TDM_OPT_MOMENTUM: /* ApplyMomentum */
            *s0 = mu * *s0 + g;
            *w -= o->nesterov ? lr * g + lr * mu * *s0 : lr * *s0;
            break;
        case TDM_OPT_ADAGRAD: /* ApplyAdagradV2 */
            *s0 += g * g;
            *w -= lr * g / (sqrt(*s0) + eps);
            break;
        case TDM_OPT_RMSPROP: { /* ApplyRMSProp / ApplyCenteredRMSProp */
            *s0 = rho * *s0 + (1 - rho) * g * g;
            double denom = *s0;
            if (o->centered) {
                *s2 = rho * *s2 + (1 - rho) * g;
                denom -= *s2 * *s2;
            }
            *s1 = mu * *s1 + lr * g / sqrt(denom + eps);
            *w -= *s1;
            break;
        }
        case TDM_OPT_ADAM:
        case TDM_OPT_ADAMW: { /* ApplyAdam; AdamW decays the old w by lr * wd first */
            double lr_t = lr * sqrt(1 - b2p) / (1 - b1p);
            if (o->kind == TDM_OPT_ADAMW)
                *w -= lr * o->weight_decay * *w;
            *s0 = b1 * *s0 + (1 - b1) * g;
            *s1 = b2 * *s1 + (1 - b2) * g * g;
            *w -= lr_t * *s0 / (sqrt(*s1) + eps);
            break;
        }
        }
    }
    m->t++;
}

/* ---- helpers ---- */

/* Gradients that vary in sign and size from step to step and element to element. */
static void make_grad(float *g, size_t count, unsigned step, unsigned salt)
{
    for (size_t e = 0; e < count; e++)
        g[e] = (float)(sin(1.3 * step + 0.7 * (double)e + 0.37 * salt) *
                       (0.25 + (double)((e + step + salt) % 5)));
}

static void make_init(float *w, size_t count)
{
    for (size_t e = 0; e < count; e++)
        w[e] = (float)(0.5 - 0.03 * (double)e);
}

static tdm_variable *make_var(tdm_strategy *s, const char *name, size_t count, const float *init,
                              tdm_synchronization sync)
{
    tdm_variable_options o = TDM_VARIABLE_OPTIONS_INIT;
    o.name = name;
    o.shape = TDM_SHAPE(count);
    o.initial_value = init;
    o.synchronization = sync;
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

static int close_to(float got, double want)
{
    return fabs((double)got - want) <= 1e-5 * fmax(fabs(want), 0.1);
}

/* Every copy of var matches want within the tolerance. */
static void expect_model_(tdm_variable *var, const double *want, size_t count, const char *what,
                          int line)
{
    for (size_t c = 0; c < tdm_variable_copy_count(var); c++) {
        float got[E];
        tdm_status s = tdm_tensor_read(tdm_variable_copy(var, c), got, count * sizeof(float));
        if (s != TDM_OK) {
            test_failures++;
            fprintf(stderr, "line %d: %s: %s\n", line, what, tdm_last_error());
            return;
        }
        for (size_t e = 0; e < count; e++)
            if (!close_to(got[e], want[e])) {
                test_failures++;
                fprintf(stderr, "line %d: %s '%s' copy %zu element %zu: %.9g, expected %.9g\n",
                        line, what, tdm_variable_name(var), c, e, (double)got[e], want[e]);
                return;
            }
    }
}
#define EXPECT_MODEL(var, want, count, what) expect_model_(var, want, count, what, __LINE__)

/* The variable and its slots match the model. */
static void expect_state_(tdm_optimizer *opt, tdm_variable *var, const model *m, int line)
{
    expect_model_(var, m->w, m->count, tdm_optimizer_name(opt), line);
    const char *names[3];
    size_t k = tdm_optimizer_slot_names(opt, names, 3);
    for (size_t j = 0; j < k; j++) {
        tdm_variable *slot = NULL;
        CHECK_OK(tdm_optimizer_get_slot(opt, var, names[j], &slot));
        if (slot)
            expect_model_(slot, m->slot[j], m->count, names[j], line);
    }
}
#define EXPECT_STATE(opt, var, m) expect_state_(opt, var, m, __LINE__)

static tdm_strategy *mirrored(int check)
{
    tdm_strategy_options o = TDM_STRATEGY_OPTIONS_INIT;
    o.check_mirrored = check;
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, n, &o, &s));
    return s;
}

/* Workers on every device; the variables on the last device, then the first. */
static tdm_strategy *parameter_server(void)
{
    tdm_strategy_options o = TDM_STRATEGY_OPTIONS_INIT;
    o.check_mirrored = 1;
    tdm_device *ps[2] = {devs[n - 1], devs[0]};
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_parameter_server(ctx, devs, n, ps, 2, &o, &s));
    return s;
}

/* The optimizer configurations every path is tried with. */
static tdm_optimizer_options config(size_t i, const char **label)
{
    tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
    static const char *const labels[] = {"sgd",     "momentum", "nesterov",
                                         "adagrad", "rmsprop",  "rmsprop-centered-momentum",
                                         "adam",    "adamw"};
    *label = labels[i];
    switch (i) {
    case 0:
        o.kind = TDM_OPT_SGD;
        o.learning_rate.initial = 0.1f;
        break;
    case 1:
        o.kind = TDM_OPT_MOMENTUM;
        o.learning_rate = (tdm_lr_schedule){TDM_LR_STEP_DECAY, 0.05f, 0.5f, 2, 0, 0, 0};
        break;
    case 2:
        o.kind = TDM_OPT_MOMENTUM;
        o.nesterov = 1;
        o.momentum = 0.8f;
        break;
    case 3:
        o.kind = TDM_OPT_ADAGRAD;
        o.learning_rate.initial = 0.1f;
        break;
    case 4:
        o.kind = TDM_OPT_RMSPROP;
        o.learning_rate.initial = 0.001f;
        break;
    case 5:
        o.kind = TDM_OPT_RMSPROP;
        o.centered = 1;
        o.momentum = 0.5f;
        o.epsilon = 1e-3f;
        o.learning_rate.initial = 0.001f;
        break;
    case 6:
        o.kind = TDM_OPT_ADAM;
        o.learning_rate = (tdm_lr_schedule){TDM_LR_EXPONENTIAL_DECAY, 0.01f, 0.9f, 3, 0, 0, 0};
        break;
    case 7:
        o.kind = TDM_OPT_ADAMW;
        o.weight_decay = 0.05f;
        o.learning_rate = (tdm_lr_schedule){TDM_LR_WARMUP_COSINE, 0.02f, 0, 0, 2, 6, 0.001f};
        break;
    }
    return o;
}
#define CONFIGS 8

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
    CHECK(lr[TDM_LR_KIND_COUNT] == NULL && !strcmp(tdm_lr_kind_name(TDM_LR_WARMUP_COSINE), "cosine"));
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
    make_init(init, E);
    tdm_variable *w = make_var(s, "dense/kernel", E, init, TDM_SYNC_AUTO);
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
            CHECK(tdm_variable_copy_count(slot) == n);
            tdm_shape shape = tdm_variable_shape(slot);
            CHECK(shape.rank == 1 && shape.dims[0] == E);
            for (size_t c = 0; c < n; c++) {
                CHECK(tdm_tensor_device(tdm_variable_copy(slot, c)) == devs[c]);
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
    make_grad(g, E, 0, 0);
    tdm_tensor *grad = tensor_of(devs[0], g, E), *short_grad = tensor_of(devs[0], g, E - 1);
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
    tdm_variable *sor = make_var(s, "sync_on_read", E, NULL, TDM_SYNC_ON_READ);
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
    make_init(init, E);
    for (size_t i = 0; i < CONFIGS; i++) {
        const char *label;
        tdm_optimizer_options o = config(i, &label);
        tdm_optimizer *opt = NULL;
        CHECK_OK(tdm_optimizer_create(s, &o, &opt));
        tdm_variable *vars[2] = {make_var(s, "w", E, init, TDM_SYNC_AUTO),
                                 make_var(s, "b", 6, init2, TDM_SYNC_AUTO)};
        if (!opt || !vars[0] || !vars[1])
            return;
        CHECK_OK(tdm_optimizer_create_slots(opt, vars, 2));
        model m[2];
        model_init(&m[0], &o, init, E);
        model_init(&m[1], &o, init2, 6);
        for (unsigned step = 0; step < STEPS; step++) {
            float g0[E], g1[6];
            make_grad(g0, E, step, (unsigned)i);
            make_grad(g1, 6, step, (unsigned)i + 7);
            /* Gradients on any device: each step another one. */
            tdm_tensor *grads[2] = {tensor_of(devs[step % n], g0, E),
                                    tensor_of(devs[(step + 1) % n], g1, 6)};
            CHECK(tdm_optimizer_learning_rate(opt) ==
                  tdm_lr_schedule_value(&o.learning_rate, step));
            CHECK_OK(tdm_optimizer_apply(opt, vars, grads, 2));
            model_step(&m[0], g0);
            model_step(&m[1], g1);
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
    tdm_device *dev = j->foreign_device && id == n - 1 ? devs[0] : tdm_replica_device(rc);
    tdm_tensor *t[2] = {tensor_of(dev, g, E), tensor_of(dev, g, E)};
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
static void test_apply_local(tdm_strategy *s)
{
    float init[E];
    make_init(init, E);
    for (size_t i = 0; i < CONFIGS; i++) {
        const char *label;
        tdm_optimizer_options o = config(i, &label);
        tdm_optimizer *opt = NULL;
        CHECK_OK(tdm_optimizer_create(s, &o, &opt));
        tdm_variable *w = make_var(s, "local_w", E, init, TDM_SYNC_AUTO);
        if (!opt || !w)
            return;
        CHECK_OK(tdm_optimizer_create_slots(opt, &w, 1));
        model m;
        model_init(&m, &o, init, E);
        for (unsigned step = 0; step < STEPS; step++) {
            float g[E];
            make_grad(g, E, step, (unsigned)i + 3);
            write_between_steps(s, opt, w, &m, step);
            job j;
            job_init(&j, opt, w, g, 1, 0);
            RUN_JOB(s, &j, TDM_OK, "");
            CHECK(tdm_optimizer_iterations(opt) == step); /* not advanced by apply_local */
            CHECK_OK(tdm_strategy_check_mirrored(s));
            CHECK_OK(tdm_optimizer_set_iterations(opt, step + 1));
            model_step(&m, g);
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
    tdm_variable *w = make_var(s, "local_errors", E, init, TDM_SYNC_AUTO);
    float g[E];
    make_grad(g, E, 1, 1);
    job j;
    job_init(&j, opt, w, g, 1, 0);
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "tdm_optimizer_create_slots");
    job_init(&j, opt, w, g, 1, 4); /* create_slots in a replica function */
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "cross-replica context");
    CHECK_OK(tdm_optimizer_create_slots(opt, &w, 1));
    job_init(&j, opt, w, g, 1, 0);
    j.foreign_device = 1;
    CHECK(tdm_strategy_run(s, job_fn, &j, NULL, 0, NULL) == TDM_ERR_INVALID_ARGUMENT);
    CHECK(j.status[n - 1] == TDM_ERR_INVALID_ARGUMENT &&
          strstr(j.message[n - 1], "not on the replica's device"));
    job_init(&j, opt, w, g, 1, 3); /* set_iterations in a replica function */
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "cross-replica");
    CHECK(tdm_optimizer_iterations(opt) == 0);
    tdm_optimizer_destroy(opt);
    tdm_variable_destroy(w);
}

/* An unwrapped optimizer in a replica function: an error naming the tower optimizer
 * with N > 1, an ordinary update with one replica. */
static void test_unwrapped(tdm_strategy *s, tdm_strategy *one)
{
    float init[E], g[E];
    make_init(init, E);
    make_grad(g, E, 2, 2);
    tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
    o.kind = TDM_OPT_MOMENTUM;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(s, &o, &opt));
    tdm_variable *w = make_var(s, "unwrapped", E, init, TDM_SYNC_AUTO);
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
    w = make_var(one, "single", E, init, TDM_SYNC_AUTO);
    CHECK_OK(tdm_optimizer_create_slots(opt, &w, 1));
    job_init(&j, opt, w, g, 1, 1);
    RUN_JOB(one, &j, TDM_OK, "");
    model m;
    model_init(&m, &o, init, E);
    model_step(&m, g);
    EXPECT_STATE(opt, w, &m);
    CHECK(tdm_optimizer_iterations(opt) == 1);
    tdm_optimizer_destroy(opt);
    tdm_variable_destroy(w);
}

/* Parameter servers: variables round-robin over the parameter devices, slots at the
 * home alone, and no per-replica update (the home is updated once). */
static void test_parameter_server_placement(tdm_strategy *s)
{
    float init[E];
    make_init(init, E);
    tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
    o.kind = TDM_OPT_ADAM;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(s, &o, &opt));
    tdm_variable *vars[3] = {make_var(s, "ps_a", E, init, TDM_SYNC_AUTO),
                             make_var(s, "ps_b", E, init, TDM_SYNC_AUTO),
                             make_var(s, "ps_c", E, init, TDM_SYNC_AUTO)};
    tdm_variable *local = make_var(s, "ps_read", E, NULL, TDM_SYNC_ON_READ);
    if (!opt || !vars[0] || !vars[1] || !vars[2] || !local)
        return;
    CHECK(tdm_strategy_kind_of(s) == TDM_STRATEGY_PARAMETER_SERVER);
    CHECK(tdm_strategy_num_parameter_devices(s) == 2);
    CHECK(tdm_strategy_parameter_device(s, 1) == devs[0]);
    CHECK(tdm_strategy_parameter_device(s, 2) == NULL);
    for (size_t i = 0; i < 3; i++) {
        tdm_device *home = tdm_strategy_parameter_device(s, i % 2);
        CHECK(tdm_variable_home(vars[i]) == home);
        CHECK(tdm_variable_copy_count(vars[i]) == n + 1);
        CHECK(tdm_tensor_device(tdm_variable_copy(vars[i], n)) == home);
        for (size_t c = 0; c < n; c++)
            CHECK(tdm_tensor_device(tdm_variable_copy(vars[i], c)) == devs[c]);
    }
    CHECK(tdm_variable_home(local) == NULL);
    CHECK(tdm_variable_copy_count(local) == n);
    CHECK_OK(tdm_optimizer_create_slots(opt, vars, 3));
    tdm_variable *slot = NULL;
    CHECK_OK(tdm_optimizer_get_slot(opt, vars[1], "m", &slot));
    CHECK(slot && tdm_variable_copy_count(slot) == 1);
    CHECK(slot && tdm_tensor_device(tdm_variable_copy(slot, 0)) == devs[0]);
    CHECK(slot && tdm_variable_home(slot) == devs[0]);
    float g[E];
    make_grad(g, E, 1, 5);
    job j;
    job_init(&j, opt, vars[0], g, 1, 0);
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "parameter device");
    CHECK(tdm_optimizer_iterations(opt) == 0);
    tdm_optimizer_destroy(opt);
    for (size_t i = 0; i < 3; i++)
        tdm_variable_destroy(vars[i]);
    tdm_variable_destroy(local);
    tdm_strategy *bad = NULL;
    CHECK_FAILS(tdm_strategy_create_parameter_server(ctx, devs, n, NULL, 0, NULL, &bad),
                TDM_ERR_INVALID_ARGUMENT, "parameter device");
    tdm_device *twice[2] = {devs[0], devs[0]};
    CHECK_FAILS(tdm_strategy_create_parameter_server(ctx, devs, n, twice, 2, NULL, &bad),
                TDM_ERR_INVALID_ARGUMENT, "used twice");
}

/* The tower optimizer: the update uses the sum of the towers' gradients, once. */
static void test_tower(tdm_strategy *s)
{
    float init[E], init2[E], rows[MAX_REPLICAS * E];
    make_init(init, E);
    for (size_t e = 0; e < E; e++)
        init2[e] = -init[e];
    for (size_t i = 0; i < CONFIGS; i++) {
        const char *label;
        tdm_optimizer_options o = config(i, &label);
        tdm_optimizer *opt = NULL;
        tdm_tower_optimizer *tower = NULL;
        CHECK_OK(tdm_optimizer_create(s, &o, &opt));
        CHECK_OK(tdm_tower_optimizer_create(opt, TDM_LOSS_SUM_OVER_BATCH_SIZE, &tower));
        tdm_variable *vars[2] = {make_var(s, "tower_w", E, init, TDM_SYNC_AUTO),
                                 make_var(s, "tower_b", E, init2, TDM_SYNC_AUTO)};
        if (!opt || !tower || !vars[0] || !vars[1])
            return;
        CHECK(tdm_tower_optimizer_inner(tower) == opt);
        CHECK_OK(tdm_optimizer_create_slots(opt, vars, 2));
        model m[2];
        model_init(&m[0], &o, init, E);
        model_init(&m[1], &o, init2, E);
        for (unsigned step = 0; step < STEPS; step++) {
            for (size_t r = 0; r < n; r++)
                make_grad(rows + r * E, E, step, (unsigned)(i + 11 * r));
            float sum[E]; /* folded in tower order, in float, as the collectives do */
            for (size_t e = 0; e < E; e++) {
                sum[e] = rows[e];
                for (size_t r = 1; r < n; r++)
                    sum[e] += rows[r * E + e];
            }
            job j;
            job_init(&j, opt, vars[0], rows, 0, 2);
            j.tower = tower;
            j.vars[1] = vars[1];
            for (size_t r = 0; r < n; r++)
                j.var_count[r] = 2;
            RUN_JOB(s, &j, TDM_OK, "");
            CHECK(tdm_optimizer_iterations(opt) == step + 1); /* once, not once per tower */
            model_step(&m[0], sum);
            model_step(&m[1], sum);
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
    tdm_variable *vars[2] = {make_var(s, "calls_a", E, init, TDM_SYNC_AUTO),
                             make_var(s, "calls_b", E, init2, TDM_SYNC_AUTO)};
    CHECK_OK(tdm_optimizer_create_slots(opt, vars, 2));
    for (size_t r = 0; r < n; r++)
        make_grad(rows + r * E, E, 9, (unsigned)r);
    job j;
    job_init(&j, opt, vars[0], rows, 0, 2);
    j.tower = tower;
    j.vars[1] = vars[1];
    j.var_count[n - 1] = 2; /* the last tower passes one variable more */
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "towers made different optimizer calls");
    char towers[64];
    snprintf(towers, sizeof towers, "towers 0 and %zu", n - 1);
    CHECK(strstr(j.message[0], towers));
    for (size_t r = 0; r < n; r++)
        j.var_count[r] = 2;
    j.swap_last = 1; /* the same variables in another order */
    RUN_JOB(s, &j, TDM_ERR_INVALID_STATE, "towers made different optimizer calls");
    CHECK(strstr(j.message[0], "'calls_a'") && strstr(j.message[0], "'calls_b'"));
    j.swap_last = 0;
    j.foreign_device = 1; /* the last tower's gradients on another device */
    snprintf(towers, sizeof towers, "tower %zu", n - 1);
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

    CHECK(tdm_tower_optimizer_loss_scale(tower, n) == (float)(1.0 / (double)n));
    CHECK(tdm_tower_optimizer_loss_scale(tower, 4) == 0.25f);
    CHECK(tdm_tower_optimizer_loss_scale(sum_tower, 4) == 1.0f);
    CHECK(tdm_tower_optimizer_loss_scale(tower, 1) == 1.0f);
    CHECK_OK(tdm_tower_optimizer_check_batch(tower, 12, 3));
    CHECK_OK(tdm_tower_optimizer_check_batch(tower, 16 * n, n));
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
static void test_default_strategy(void)
{
    tdm_strategy *def = NULL;
    CHECK_OK(tdm_strategy_default(ctx, &def));
    if (!def)
        return;
    float init[E], g[E];
    make_init(init, E);
    make_grad(g, E, 4, 4);
    tdm_optimizer_options o = TDM_OPTIMIZER_OPTIONS_INIT;
    o.kind = TDM_OPT_ADAGRAD;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(def, &o, &opt));
    tdm_variable *w = make_var(def, "default_w", E, init, TDM_SYNC_AUTO);
    CHECK_OK(tdm_optimizer_create_slots(opt, &w, 1));
    tdm_tensor *grad = tensor_of(devs[0], g, E);
    CHECK_OK(tdm_optimizer_apply(opt, &w, &grad, 1));
    model m;
    model_init(&m, &o, init, E);
    model_step(&m, g);
    EXPECT_STATE(opt, w, &m);
    tdm_tensor_destroy(grad);
    tdm_optimizer_destroy(opt);
    tdm_variable_destroy(w);
}

void test_case_optimizer(const test_run *run)
{
    n = test_scenario_of(run, &ctx, devs);
    tdm_strategy *s = mirrored(1), *one = NULL;
    CHECK_OK(tdm_strategy_create_one_device(devs[n - 1], NULL, &one));
    if (s && one) {
        test_kind_names();
        test_schedules();
        test_options(s);
        test_slots(s);
        test_kinds_cross_replica(s);
        test_apply_local(s);
        test_unwrapped(s, one);
        test_tower(s);
        test_default_strategy();
        /* The cross-replica and tower paths again, with each update at a home. */
        tdm_strategy *ps = parameter_server();
        if (ps) {
            test_parameter_server_placement(ps);
            test_kinds_cross_replica(ps);
            test_tower(ps);
        }
        tdm_strategy_destroy(ps);
    }
    tdm_strategy_destroy(one);
    tdm_strategy_destroy(s);
}
