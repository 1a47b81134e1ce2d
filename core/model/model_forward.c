/* The model's forward pass: per layer in their order (each reads earlier ones), its type's pass (dense and conv2d add their bias
 * and apply their activation in one launch) and, in training, dropout. */
#include "base/error.h"
#include "tandem/ops.h"
#include "model/layers/layer_type.h"

/* The mask of layer l in a step: keyed by the step, offset by the slice's first row
 * in the global batch, so each example gets the same mask on any replica count. */
tdm_status tdm_model_dropout(const tdm_model *m, size_t l, uint64_t step, size_t first_row,
                             tdm_tensor *y, const tdm_tensor *x)
{
    size_t features = tdm_plan_out_features(&m->plans[l]);
    return tdm_op_dropout(y, x, m->layers[l].dropout, tdm_model_dropout_seed(m, step, l),
                          (uint32_t)(first_row * features));
}

/* A model of several inputs: each one's columns of the features x copied into
 * v->b.input[k], where the layers read it; nothing for a model of one. */
static tdm_status split_inputs(const tdm_model *m, const tdm_model_views *v, const tdm_tensor *x)
{
    tdm_status s = TDM_OK;
    for (size_t k = 0, first = 0; k < m->opts.inputs && v->b.input[0] && s == TDM_OK; k++) {
        size_t width = m->opts.input_widths[k];
        s = tdm_op_copy_columns(v->b.input[k], width, 0, x, m->opts.input_features, first,
                                width);
        first += width;
    }
    return s;
}

tdm_status tdm_model_forward(const tdm_model *m, const tdm_model_views *v,
                             const tdm_forward_args *fa)
{
    tdm_status s = split_inputs(m, v, fa->x);
    for (size_t l = 0; l < v->b.layers && s == TDM_OK; l++) {
        const tdm_tensor *x = tdm_model_input_of(v, &m->plans[l], 0, fa->x);
        s = tdm_layer_type_of(m->layers[l].kind)->forward(m, v, l, x, fa);
        if (s == TDM_OK && v->b.dropped[l])
            s = tdm_model_dropout(m, l, fa->step, fa->first_row, v->b.dropped[l], v->b.a[l]);
    }
    return s;
}
