/* Evaluation under another strategy than training's (TensorFlow's DistributeConfig):
 * the model's architecture built again on the eval strategy, its weights refreshed
 * from the trained model before every evaluation. */
#include <stdlib.h>

#include "base/error.h"
#include "base/options.h"
#include "model/model_impl.h"

struct tdm_evaluator {
    tdm_model *trained;
    tdm_model *copy; /* on the eval strategy; NULL: evaluate the trained model */
    float *host;     /* the largest variable's floats */
};

static const char create_func[] = "tdm_evaluator_create";

static tdm_status read_config(const tdm_model *m, const tdm_distribute_config *config,
                              tdm_distribute_config *c)
{
    tdm_distribute_config defaults = TDM_DISTRIBUTE_CONFIG_INIT;
    *c = defaults;
    tdm_status s = tdm_options_read(c, sizeof *c, config, create_func);
    if (s == TDM_OK && c->train_distribute && c->train_distribute != m->strategy)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                     "%s: the model was created on another strategy than train_distribute; "
                     "pass the model's strategy (or NULL)",
                     create_func);
    return s;
}

static size_t largest_variable(const tdm_model *m)
{
    size_t most = 1;
    for (size_t i = 0; i < m->var_count; i++) {
        tdm_shape shape = tdm_variable_shape(m->vars[i]);
        size_t n = tdm_shape_count(&shape);
        most = n > most ? n : most;
    }
    return most;
}

tdm_status tdm_evaluator_create(tdm_model *m, const tdm_distribute_config *config,
                                tdm_evaluator **out)
{
    TDM_CHECK_ARG(out, create_func);
    *out = NULL;
    TDM_CHECK_ARG(m, create_func);
    tdm_distribute_config c;
    tdm_status s = read_config(m, config, &c);
    if (s != TDM_OK)
        return s;
    tdm_evaluator *e = calloc(1, sizeof *e);
    if (!e)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", create_func);
    e->trained = m;
    if (c.eval_distribute && c.eval_distribute != m->strategy) {
        e->host = malloc(largest_variable(m) * sizeof *e->host);
        s = e->host
                ? tdm_model_create_with(c.eval_distribute, &m->opts, NULL, create_func, &e->copy)
                : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", create_func);
    }
    if (s != TDM_OK) {
        tdm_evaluator_destroy(e);
        return s;
    }
    *out = e;
    return TDM_OK;
}

/* The copy takes every trained weight and moving statistic, through the host. */
static tdm_status refresh(tdm_evaluator *e)
{
    const tdm_model *m = e->trained;
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < m->var_count + m->state_count && s == TDM_OK; i++) {
        int state = i >= m->var_count;
        tdm_variable *from = state ? m->states[i - m->var_count] : m->vars[i];
        tdm_variable *to = state ? e->copy->states[i - m->var_count] : e->copy->vars[i];
        tdm_shape shape = tdm_variable_shape(from);
        size_t bytes = tdm_shape_count(&shape) * sizeof *e->host;
        s = tdm_variable_read(from, e->host, bytes);
        if (s == TDM_OK)
            s = tdm_variable_assign_host(to, TDM_ASSIGN, e->host, bytes);
        if (s != TDM_OK)
            tdm_fail_context(s, "tdm_evaluator_run: copying '%s' to the eval strategy",
                             tdm_variable_name(from));
    }
    return s;
}

tdm_status tdm_evaluator_run(tdm_evaluator *e, const tdm_dataset *ds, tdm_evaluation *out)
{
    TDM_CHECK_ARG(e, "tdm_evaluator_run");
    tdm_status s = e->copy ? refresh(e) : TDM_OK;
    return s == TDM_OK ? tdm_model_evaluate(e->copy ? e->copy : e->trained, ds, out) : s;
}

tdm_model *tdm_evaluator_model(const tdm_evaluator *e)
{
    return e ? (e->copy ? e->copy : e->trained) : NULL;
}

void tdm_evaluator_destroy(tdm_evaluator *e)
{
    if (!e)
        return;
    tdm_model_destroy(e->copy);
    free(e->host);
    free(e);
}
