/* concatenate: y = the inputs side by side on the channel axis, in their order (Keras'
 * Concatenate): equal images (or flat vectors), the channels summed. Each input is a
 * block of columns of y's positions, copied in forward and back out in backward. f32
 * activations: copy_columns has no f16 twin. */
#include "base/error.h"
#include "model/layers/merges.h"
#include "tandem/ops.h"
#include "model/onnx/onnx_ops.h"

static tdm_status plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l, const char *f)
{
    tdm_layer_plan *p = &plans[l];
    tdm_status s = tdm_merge_needs_f32(o, l, f);
    size_t channels = 0;
    for (size_t k = 0; k < p->input_count && s == TDM_OK; k++) {
        size_t image[3];
        tdm_model_input_image(o, plans, p, k, image);
        if (image[0] != p->in_h || image[1] != p->in_w)
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                         "%s: layer %zu (concatenate) joins a %zu x %zu image (input 0) with a "
                         "%zu x %zu one (input %zu): its inputs have one height and width "
                         "(a flat input is 1 x 1)",
                         f, l, p->in_h, p->in_w, image[0], image[1], k);
        channels += image[2];
    }
    p->out_h = p->in_h, p->out_w = p->in_w, p->out_c = channels;
    return s;
}

/* Input k's channels, and the first of them in y. */
static size_t channels_of(const tdm_model *m, const tdm_layer_plan *p, size_t k, size_t *first)
{
    size_t image[3];
    *first = 0;
    for (size_t j = 0; j <= k; j++) {
        tdm_model_input_image(&m->opts, m->plans, p, j, image);
        *first += j < k ? image[2] : 0;
    }
    return image[2];
}

static tdm_status forward(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa)
{
    (void)x;
    const tdm_layer_plan *p = &m->plans[l];
    tdm_status s = TDM_OK;
    for (size_t k = 0; k < p->input_count && s == TDM_OK; k++) {
        size_t first, c = channels_of(m, p, k, &first);
        s = tdm_op_copy_columns(v->b.z[l], p->out_c, first, tdm_model_input_of(v, p, k, fa->x), c,
                                0, c);
    }
    return s;
}

static tdm_status backward(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x)
{
    (void)a, (void)x;
    const tdm_layer_plan *p = &m->plans[l];
    tdm_status s = TDM_OK;
    for (size_t k = 0; k < p->input_count && s == TDM_OK; k++) {
        tdm_tensor *dx = tdm_model_input_grad(m, v, l, k);
        size_t first, c = channels_of(m, p, k, &first);
        if (dx)
            s = tdm_op_copy_columns(dx, c, 0, v->b.g[l], p->out_c, first, c);
    }
    return s;
}

/* Concat on the channel axis of [N, positions, channels]. */
static tdm_status onnx(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out)
{
    const tdm_layer_plan *p = &m->plans[l];
    tdm_onnx_value parts[TDM_LAYER_MAX_INPUTS];
    for (size_t k = 0; k < p->input_count; k++) {
        size_t first, channels = channels_of(m, p, k, &first);
        parts[k] = tdm_onnx_positions(g, in[k], p->in_h * p->in_w, channels);
    }
    tdm_onnx_value y = tdm_onnx_node_begin(g, "Concat", parts, p->input_count);
    tdm_onnx_attr_int(g, "axis", 2);
    tdm_onnx_node_end(g);
    *out = tdm_onnx_flatten(g, y);
    return TDM_OK;
}

const tdm_layer_type tdm_layer_concatenate = {
    .plan = plan,
    .forward = forward,
    .backward = backward,
    .onnx = onnx,
};
