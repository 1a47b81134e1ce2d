/* The model's forward pass: per layer x W + b (a convolution, a pooling, a
 * normalisation, a shortcut's sum), the activation, and dropout in training. */
#include "base/error.h"
#include "tandem/ops.h"
#include "model/model_impl.h"

static tdm_status dense(const tdm_model *m, const tdm_model_views *v, size_t l, const tdm_tensor *x,
                        size_t copy)
{
    size_t first = m->plans[l].first_var;
    tdm_tensor *w = tdm_variable_copy(m->vars[first], copy);
    tdm_tensor *b = tdm_variable_copy(m->vars[first + 1], copy);
    tdm_tensor *product = NULL;
    tdm_status s = tdm_model_product(m, v, l, &TDM_SHAPE(v->rows, m->layers[l].units), &product);
    if (s == TDM_OK)
        s = tdm_matmul_mixed(&v->halves, product, x, 0, w, 0, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_op_bias_add(v->b.z[l], product, b);
    tdm_tensor_destroy(product);
    return s;
}

/* A residual layer: z = x + the input of the layer its shortcut starts at. z is
 * stored as x is; a shortcut stored otherwise (the model's f32 input to f16
 * activations) is converted into z first. */
static tdm_status residual(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_tensor *x, const tdm_tensor *model_input)
{
    size_t from = l - m->layers[l].skip;
    const tdm_tensor *shortcut = from ? v->out[from - 1] : model_input;
    tdm_status s = TDM_OK;
    if (tdm_tensor_dtype(shortcut) != tdm_tensor_dtype(v->b.z[l])) {
        s = tdm_op_cast(v->b.z[l], shortcut);
        shortcut = v->b.z[l];
    }
    return s == TDM_OK ? tdm_op_add(v->b.z[l], x, shortcut) : s;
}

/* The mask of layer l in a step: keyed by the step, offset by the slice's first row
 * in the global batch, so each example gets the same mask on any replica count. */
tdm_status tdm_model_dropout(const tdm_model *m, size_t l, uint64_t step, size_t first_row,
                             tdm_tensor *y, const tdm_tensor *x)
{
    size_t features = tdm_plan_out_features(&m->plans[l]);
    return tdm_op_dropout(y, x, m->layers[l].dropout, tdm_model_dropout_seed(m, step, l),
                          (uint32_t)(first_row * features));
}

tdm_status tdm_model_forward(const tdm_model *m, const tdm_model_views *v,
                             const tdm_forward_args *fa)
{
    const tdm_tensor *x = fa->x;
    tdm_status s = TDM_OK;
    for (size_t l = 0; l < v->b.layers && s == TDM_OK; l++) {
        tdm_layer_kind kind = m->layers[l].kind;
        s = kind == TDM_LAYER_DENSE        ? dense(m, v, l, x, fa->copy)
            : kind == TDM_LAYER_BATCH_NORM ? tdm_model_norm_forward(m, v, l, x, fa)
            : kind == TDM_LAYER_LAYER_NORM ? tdm_model_layer_norm_forward(m, v, l, x, fa->copy)
            : kind == TDM_LAYER_RESIDUAL   ? residual(m, v, l, x, fa->x)
            : kind == TDM_LAYER_EMBEDDING  ? tdm_model_embedding_forward(m, v, x, fa->copy)
                                           : tdm_model_image_forward(m, v, l, x, fa->copy);
        if (s == TDM_OK && v->b.a[l])
            s = tdm_op_activation(m->layers[l].activation, v->b.a[l], v->b.z[l]);
        if (s == TDM_OK && v->b.dropped[l])
            s = tdm_model_dropout(m, l, fa->step, fa->first_row, v->b.dropped[l], v->b.a[l]);
        x = v->out[l];
    }
    return s;
}
