/* The optimizer case's shared set-up and checks (the case: optimizer.c). */
#include "optimizer_fixture.h"

tdm_context *opt_ctx;
tdm_device *opt_devs[MAX_REPLICAS];
size_t opt_n; /* replicas of the scenario */

/* The schedule, written again from its definition. */
double opt_model_rate(const tdm_lr_schedule *s, uint64_t step)
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

void opt_model_init(model *m, const tdm_optimizer_options *o, const float *w0, size_t count)
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

void opt_model_step(model *m, const float *grad)
{
    const tdm_optimizer_options *o = &m->o;
    double lr = opt_model_rate(&o->learning_rate, m->t), mu = o->momentum, eps = o->epsilon;
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

/* Gradients that vary in sign and size from step to step and element to element. */
void opt_make_grad(float *g, size_t count, unsigned step, unsigned salt)
{
    for (size_t e = 0; e < count; e++)
        g[e] = (float)(sin(1.3 * step + 0.7 * (double)e + 0.37 * salt) *
                       (0.25 + (double)((e + step + salt) % 5)));
}

void opt_make_init(float *w, size_t count)
{
    for (size_t e = 0; e < count; e++)
        w[e] = (float)(0.5 - 0.03 * (double)e);
}

tdm_variable *opt_make_var(tdm_strategy *s, const char *name, size_t count, const float *init,
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

int opt_close_to(float got, double want)
{
    return fabs((double)got - want) <= 1e-5 * fmax(fabs(want), 0.1);
}

/* Every copy of var matches want within the tolerance. */
void opt_expect_model_(tdm_variable *var, const double *want, size_t count, const char *what,
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
            if (!opt_close_to(got[e], want[e])) {
                test_failures++;
                fprintf(stderr, "line %d: %s '%s' copy %zu element %zu: %.9g, expected %.9g\n",
                        line, what, tdm_variable_name(var), c, e, (double)got[e], want[e]);
                return;
            }
    }
}

/* The variable and its slots match the model. */
void opt_expect_state_(tdm_optimizer *opt, tdm_variable *var, const model *m, int line)
{
    opt_expect_model_(var, m->w, m->count, tdm_optimizer_name(opt), line);
    const char *names[3];
    size_t k = tdm_optimizer_slot_names(opt, names, 3);
    for (size_t j = 0; j < k; j++) {
        tdm_variable *slot = NULL;
        CHECK_OK(tdm_optimizer_get_slot(opt, var, names[j], &slot));
        if (slot)
            opt_expect_model_(slot, m->slot[j], m->count, names[j], line);
    }
}

tdm_strategy *opt_mirrored(int check)
{
    tdm_strategy_options o = TDM_STRATEGY_OPTIONS_INIT;
    o.check_mirrored = check;
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(opt_ctx, opt_devs, opt_n, &o, &s));
    return s;
}

/* Workers on every device; the variables on the last device, then the first. */
tdm_strategy *opt_parameter_server(void)
{
    tdm_strategy_options o = TDM_STRATEGY_OPTIONS_INIT;
    o.check_mirrored = 1;
    tdm_device *ps[2] = {opt_devs[opt_n - 1], opt_devs[0]};
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_parameter_server(opt_ctx, opt_devs, opt_n, ps, 2, &o, &s));
    return s;
}

/* The optimizer configurations every path is tried with. */
tdm_optimizer_options opt_config(size_t i, const char **label)
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
