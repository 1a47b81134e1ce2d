/* The model's loss function: forward, the loss and its gradient with respect to the
 * output, then backward through every layer into the variables' gradients. */
#include "device/error.h"
#include "train/model_impl.h"
#include "tandem/ops.h"

/* Per-example losses and d(loss) / d(output), scaled for the step. */
static tdm_status output_loss(const tdm_model *m, const tdm_model_views *v, const tdm_loss_args *a,
                              float scale)
{
    size_t last = v->b.layers - 1;
    if (m->opts.loss == TDM_LOSS_SOFTMAX_CROSS_ENTROPY)
        return tdm_op_softmax_xent(v->b.losses, v->b.g[last], v->out[last], a->labels, scale);
    tdm_status s = tdm_op_one_hot(v->b.target, a->labels);
    return s != TDM_OK ? s
                       : tdm_op_mse(v->b.losses, v->b.g[last], v->out[last], v->b.target, scale);
}

/* Layer l's gradients, given d(loss) / d(output of l) in g[l]; leaves d(loss) /
 * d(output of l - 1) in g[l - 1]. */
static tdm_status backward_layer(const tdm_model *m, const tdm_model_views *v,
                                 const tdm_loss_args *a, size_t l)
{
    tdm_status s = TDM_OK;
    if (v->b.dropped[l])
        s = tdm_model_dropout(m, l, a->step, a->first_row, v->b.g[l], v->b.g[l]);
    if (s == TDM_OK)
        s = tdm_op_activation_grad(m->layers[l].activation, v->b.g[l], v->b.g[l], v->b.z[l],
                                   v->b.a[l]);
    const tdm_tensor *x = l ? v->out[l - 1] : a->features;
    if (s == TDM_OK)
        s = tdm_op_matmul(a->grads[2 * l], x, 1, v->b.g[l], 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_op_sum_rows(a->grads[2 * l + 1], v->b.g[l]);
    /* Their all-reduce may start while the layers below are differentiated. */
    if (s == TDM_OK)
        s = tdm_loss_args_gradient_ready(a, 2 * l);
    if (s == TDM_OK)
        s = tdm_loss_args_gradient_ready(a, 2 * l + 1);
    if (s == TDM_OK && l > 0)
        s = tdm_op_matmul(v->b.g[l - 1], v->b.g[l], 0, tdm_variable_local(m->vars[2 * l], a->rc), 1,
                          1.0f, 0.0f);
    return s;
}

static tdm_status passes(const tdm_model *m, const tdm_model_views *v, const tdm_loss_args *a)
{
    float scale = tdm_loss_args_scale(a);
    tdm_forward_args fa = {a->features, tdm_replica_local_id(a->rc), a->first_row, a->step, 1};
    tdm_status s = tdm_model_forward(m, v, &fa);
    if (s == TDM_OK)
        s = output_loss(m, v, a, scale);
    if (s == TDM_OK)
        s = tdm_op_sum(a->loss, v->b.losses);
    if (s == TDM_OK)
        s = tdm_op_scale(a->loss, a->loss, scale);
    for (size_t l = v->b.layers; l-- > 0 && s == TDM_OK;)
        s = backward_layer(m, v, a, l);
    return s;
}

/* An empty slice contributes nothing: zero loss and gradients. */
static tdm_status zeros(const tdm_loss_args *a)
{
    tdm_status s = tdm_op_fill(a->loss, 0.0f);
    for (size_t i = 0; i < a->var_count && s == TDM_OK; i++)
        s = tdm_op_fill(a->grads[i], 0.0f);
    return s;
}

static tdm_status check_args(const tdm_model *m, const tdm_loss_args *a)
{
    if (a->var_count != 2 * m->opts.layer_count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_model_loss: %zu variables to train, the model has %zu: train "
                        "exactly the model's variables",
                        a->var_count, 2 * m->opts.layer_count);
    for (size_t i = 0; i < a->var_count; i++)
        if (a->vars[i] != m->vars[i])
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "tdm_model_loss: variable %zu is '%s', the model's is '%s'", i,
                            tdm_variable_name(a->vars[i]), tdm_variable_name(m->vars[i]));
    return TDM_OK;
}

tdm_status tdm_model_loss(const tdm_loss_args *args, void *model)
{
    TDM_CHECK_ARG(args, "tdm_model_loss");
    TDM_CHECK_ARG(model, "tdm_model_loss");
    tdm_model *m = model;
    tdm_status s = check_args(m, args);
    if (s != TDM_OK || args->rows == 0)
        return s != TDM_OK ? s : zeros(args);
    tdm_model_scratch *sc = &m->scratch[tdm_replica_local_id(args->rc)];
    s = tdm_model_scratch_reserve(m, sc, tdm_replica_device(args->rc), args->rows);
    tdm_model_views v;
    if (s == TDM_OK)
        s = tdm_model_views_make(m, sc, args->rows, 1, &v);
    if (s != TDM_OK)
        return tdm_fail_context(s, "tdm_model_loss");
    s = passes(m, &v, args);
    tdm_model_views_free(&v);
    return s == TDM_OK ? s : tdm_fail_context(s, "tdm_model_loss");
}
