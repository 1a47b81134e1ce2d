/* The model's loss function: forward, the loss and its gradient with respect to the
 * output, then backward through every layer into the variables' gradients. */
#include "base/error.h"
#include "model/layers/layer_type.h"
#include "model/model_impl.h"
#include "ops/ops_sum.h"
#include "tandem/ops.h"

/* The elementwise losses: per output, with d(loss) / d(output). */
static tdm_status elementwise(const tdm_model *m, const tdm_model_views *v, const tdm_tensor *t,
                              float scale)
{
    tdm_tensor *losses = v->b.losses, *g = v->b.g[v->b.layers - 1];
    const tdm_tensor *out = v->out[v->b.layers - 1];
    switch (m->opts.loss) {
    case TDM_LOSS_MEAN_ABSOLUTE_ERROR:
        return tdm_op_mae(losses, g, out, t, scale);
    case TDM_LOSS_HUBER:
        return tdm_op_huber(losses, g, out, t, tdm_model_huber_delta(m), scale);
    case TDM_LOSS_SIGMOID_CROSS_ENTROPY:
        return tdm_op_sigmoid_xent(losses, g, out, t, scale);
    default:
        return tdm_op_mse(losses, g, out, t, scale);
    }
}

/* t's first rows x cols elements as [rows, cols]. */
static tdm_status as_matrix(const tdm_tensor *t, size_t rows, size_t cols, tdm_tensor **out)
{
    return tdm_tensor_slice((tdm_tensor *)t, 0, &TDM_SHAPE(rows, cols), out);
}

/* The softmax cross-entropies: a loss per example, or per position of a sequence's
 * labels ([rows, positions]: each position's channels its classes, a negative label
 * masking it), whose mean over the positions is the example's; the summed losses in
 * a->loss. */
static tdm_status per_example(const tdm_model *m, const tdm_model_views *v,
                              const tdm_loss_args *a, float scale)
{
    size_t last = v->b.layers - 1;
    if (m->opts.loss != TDM_LOSS_SOFTMAX_CROSS_ENTROPY) {
        tdm_status s = tdm_op_softmax_xent_soft(v->b.losses, v->b.g[last], v->out[last],
                                                a->labels, scale);
        return s == TDM_OK ? tdm_op_sum_scaled(a->loss, v->b.losses, scale) : s;
    }
    if (tdm_model_output_positions(m) == 1) { /* a flat output: the buffers as they are */
        tdm_status s = tdm_op_softmax_xent(v->b.losses, v->b.g[last], v->out[last], a->labels,
                                           scale);
        return s == TDM_OK ? tdm_op_sum_scaled(a->loss, v->b.losses, scale) : s;
    }
    /* an image output: its losses buffer holds one per position; the labels give one
     * per example (over every output) or one per position */
    tdm_shape labels = tdm_tensor_shape(a->labels);
    size_t per_row = labels.rank > 1 ? labels.dims[1] : 1, rows = v->rows * per_row;
    size_t cols = tdm_model_output_count(m) / per_row;
    float share = scale / (float)per_row;
    tdm_tensor *loss = NULL, *g = NULL, *out = NULL, *label = NULL;
    tdm_status s = as_matrix(v->b.losses, rows, 1, &loss);
    if (s == TDM_OK)
        s = as_matrix(v->b.g[last], rows, cols, &g);
    if (s == TDM_OK)
        s = as_matrix(v->out[last], rows, cols, &out);
    if (s == TDM_OK)
        s = as_matrix(a->labels, rows, 1, &label);
    if (s == TDM_OK)
        s = tdm_op_softmax_xent(loss, g, out, label, share);
    if (s == TDM_OK)
        s = tdm_op_sum_scaled(a->loss, loss, share);
    tdm_tensor_destroy(loss);
    tdm_tensor_destroy(g);
    tdm_tensor_destroy(out);
    tdm_tensor_destroy(label);
    return s;
}

/* The loss into a->loss, and d(loss) / d(output), scaled for the step. A per-output
 * loss is the mean over the outputs (Keras' convention), so its scale is divided by
 * their count. */
static tdm_status output_loss(const tdm_model *m, const tdm_model_views *v, const tdm_loss_args *a,
                              float scale)
{
    if (!tdm_model_loss_per_output(m))
        return per_example(m, v, a, scale);
    float per_output = scale / (float)tdm_model_output_count(m);
    const tdm_tensor *t = a->labels;
    tdm_status s = TDM_OK;
    if (tdm_tensor_dtype(a->labels) == TDM_I32) { /* mean squared error on classes */
        s = tdm_op_one_hot(v->b.target, a->labels);
        t = v->b.target;
    }
    if (s == TDM_OK)
        s = elementwise(m, v, t, per_output);
    return s == TDM_OK ? tdm_op_sum_scaled(a->loss, v->b.losses, per_output) : s;
}

/* Layer l's gradients, given d(loss) / d(output of l) in g[l] (every reader of l is
 * later, so done); leaves d(loss) / d(each input) in that input's g, written by its
 * first reader and added to by the others. */
static tdm_status backward_layer(const tdm_model *m, const tdm_model_views *v,
                                 const tdm_loss_args *a, size_t l)
{
    tdm_status s = TDM_OK;
    if (v->b.dropped[l])
        s = tdm_model_dropout(m, l, a->step, a->first_row, v->b.g[l], v->b.g[l]);
    const tdm_layer_type *type = tdm_layer_type_of(m->layers[l].kind);
    const tdm_layer_plan *p = &m->plans[l];
    tdm_activation act = m->layers[l].activation;
    int act_grad = v->b.a[l] && !p->relu_grad_by_reader; /* else g[l] is through it */
    if (s == TDM_OK && act_grad && type->bias_grad_with_activation)
        s = tdm_op_bias_activation_grad(act, a->grads[p->first_var + 1], v->b.g[l], v->b.g[l],
                                        v->b.z[l], v->b.a[l]);
    else if (s == TDM_OK && act_grad)
        s = tdm_op_activation_grad(act, v->b.g[l], v->b.g[l], v->b.z[l], v->b.a[l]);
    const tdm_tensor *x = tdm_model_input_of(v, p, 0, a->features);
    if (s == TDM_OK)
        s = type->backward(m, v, l, a, x);
    for (size_t k = 0; k < p->input_count && s == TDM_OK; k++)
        s = tdm_model_input_grad_given(m, v, l, k);
    return s;
}

static tdm_status passes(const tdm_model *m, const tdm_model_views *v, const tdm_loss_args *a)
{
    float scale = tdm_loss_args_scale(a);
    tdm_forward_args fa = {a->features, tdm_replica_local_id(a->rc), a->first_row, a->step, 1,
                           a->rc,       a->global_batch_size};
    tdm_status s = tdm_model_forward(m, v, &fa);
    if (s == TDM_OK)
        s = output_loss(m, v, a, scale);
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
    if (a->var_count != m->var_count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_model_loss: %zu variables to train, the model has %zu: train "
                        "exactly the model's variables",
                        a->var_count, m->var_count);
    for (size_t i = 0; i < a->var_count; i++)
        if (a->vars[i] != m->vars[i])
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "tdm_model_loss: variable %zu is '%s', the model's is '%s'", i,
                            tdm_variable_name(a->vars[i]), tdm_variable_name(m->vars[i]));
    return TDM_OK;
}

/* Whether mixed precision's gradients never pass through f16 on the replica:
 * activations stored in f32 and every layer's products f32 on its device. (An f32
 * model does not say so: a loss scale given to one was asked for as it is.) */
static int f32_throughout(const tdm_model *m, const tdm_model_scratch *sc)
{
    if (m->opts.compute_dtype != TDM_F16 || m->opts.activation_dtype == TDM_F16)
        return 0;
    for (size_t l = 0; l < m->opts.layer_count; l++)
        if (sc->choice[l].products != TDM_MIXED_F32)
            return 0;
    return 1;
}

tdm_status tdm_model_loss(const tdm_loss_args *args, void *model)
{
    TDM_CHECK_ARG(args, "tdm_model_loss");
    TDM_CHECK_ARG(model, "tdm_model_loss");
    tdm_model *m = model;
    tdm_status s = check_args(m, args);
    tdm_shape ls = args->labels ? tdm_tensor_shape(args->labels) : TDM_SHAPE(0);
    if (s == TDM_OK && args->labels)
        s = tdm_model_check_labels(m, tdm_tensor_dtype(args->labels),
                                   ls.rank > 1 ? ls.dims[1] : 1, "tdm_model_loss");
    /* An empty slice contributes nothing, but batch norms still meet the other
     * replicas in their all-reduces: their passes run over no rows. */
    if (s != TDM_OK || (args->rows == 0 && !m->state_count))
        return s != TDM_OK ? s : zeros(args);
    if (args->global_batch_size == 0)
        return zeros(args);
    tdm_model_scratch *sc = &m->scratch[tdm_replica_local_id(args->rc)];
    s = tdm_model_scratch_reserve(m, sc, tdm_replica_device(args->rc), args->rows, 1);
    tdm_model_views v;
    if (s == TDM_OK)
        s = tdm_model_views_make(m, sc, args->rows, 1, &v);
    if (s != TDM_OK)
        return tdm_fail_context(s, "tdm_model_loss");
    s = passes(m, &v, args);
    tdm_model_views_free(&v);
    if (s == TDM_OK && f32_throughout(m, sc))
        s = tdm_loss_args_f32_throughout(args);
    return s == TDM_OK ? s : tdm_fail_context(s, "tdm_model_loss");
}
