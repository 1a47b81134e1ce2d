/* The model as a graph: each layer's inputs, resolved once into its plan, and the
 * gradients that flow back along them, written by an input's first reader in the
 * backward pass and added to by the others. */
#include "base/error.h"
#include "model/layers/layer_type.h"
#include "tandem/ops.h"

/* A residual's shortcut: the input of the layer `skip` back, as that layer reads it. */
static void resolve(const tdm_model_options *o, tdm_layer_plan *plans, size_t l)
{
    const tdm_layer *d = &o->layers[l];
    tdm_layer_plan *p = &plans[l];
    if (d->input_count) {
        p->input_count = d->input_count;
        for (size_t k = 0; k < d->input_count; k++)
            p->inputs[k] = d->inputs[k];
        return;
    }
    p->input_count = 1;
    p->inputs[0] = l ? (int)(l - 1) : TDM_MODEL_INPUT;
    if (d->kind == TDM_LAYER_RESIDUAL) {
        p->input_count = 2;
        p->inputs[1] = plans[l - d->skip].inputs[0];
    }
}

static tdm_status check_inputs(const tdm_model_options *o, size_t l, const char *f)
{
    const tdm_layer *d = &o->layers[l];
    const char *kind = tdm_layer_kind_name(d->kind);
    int merges = (tdm_layer_kind_traits(d->kind) & TDM_LAYER_MERGES) != 0;
    if (merges && (d->input_count < 2 || d->input_count > TDM_LAYER_MAX_INPUTS))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) merges %zu inputs; a merge takes 2 to %d", f, l,
                        kind, d->input_count, TDM_LAYER_MAX_INPUTS);
    if (!merges && d->input_count > 1)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) has %zu inputs; only a merge (add, concatenate, "
                        "multiply) takes more than one",
                        f, l, kind, d->input_count);
    if (d->kind == TDM_LAYER_RESIDUAL && d->input_count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (residual) names its inputs; a residual adds the layer "
                        "before and its shortcut: name two inputs with add",
                        f, l);
    for (size_t k = 0; k < d->input_count; k++) {
        int in = d->inputs[k];
        if (in >= 0 ? (size_t)in < l : (size_t)(-1 - (long)in) < o->inputs)
            continue;
        if (in < 0)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: layer %zu (%s) reads %d as input %zu, the model's input %ld; "
                            "the model has %zu (%d to %d)",
                            f, l, kind, in, k, -1 - (long)in, o->inputs, TDM_MODEL_INPUT,
                            TDM_MODEL_INPUT_AT(o->inputs - 1));
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: layer %zu (%s) reads layer %d as input %zu: a layer reads an "
                        "earlier layer (0 to %zu) or the model's input (%d), so the graph has "
                        "no cycle",
                        f, l, kind, in, k, l ? l - 1 : 0, TDM_MODEL_INPUT);
    }
    return TDM_OK;
}

/* Each of the model's inputs leads to its output: some layer reads it. */
static tdm_status every_input_read(const tdm_model_options *o, const tdm_layer_plan *plans,
                                   const char *f)
{
    for (size_t j = 0; j < o->inputs; j++) {
        int read = 0;
        for (size_t l = 0; l < o->layer_count && !read; l++)
            for (size_t k = 0; k < plans[l].input_count; k++)
                read |= plans[l].inputs[k] == TDM_MODEL_INPUT_AT(j);
        if (!read)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: the model's input %zu (%d) is read by no layer: each input "
                            "leads to the output",
                            f, j, TDM_MODEL_INPUT_AT(j));
    }
    return TDM_OK;
}

tdm_status tdm_model_graph_plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                                const char *f)
{
    tdm_status s = check_inputs(o, l, f);
    if (s != TDM_OK)
        return s;
    resolve(o, plans, l);
    size_t image[3];
    tdm_model_input_image(o, plans, &plans[l], 0, image);
    plans[l].in_h = image[0], plans[l].in_w = image[1], plans[l].in_c = image[2];
    if (l + 1 < o->layer_count)
        return TDM_OK;
    /* the last layer is the output: every other is read by a later one */
    for (size_t n = 0; n < l; n++)
        if (tdm_model_graph_readers(o, plans, n) == 0)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: layer %zu (%s) is read by no later layer: the model's output "
                            "is its last layer, and every other layer leads to it",
                            f, n, tdm_layer_kind_name(o->layers[n].kind));
    return every_input_read(o, plans, f);
}

void tdm_model_graph_first_grads(const tdm_model_options *o, tdm_layer_plan *plans)
{
    for (size_t l = o->layer_count; l-- > 0;)
        for (size_t k = 0; k < plans[l].input_count; k++) {
            int in = plans[l].inputs[k], first = 1;
            /* an earlier edge of the backward order: a later layer, or this one's earlier
             * input */
            for (size_t r = l + 1; r < o->layer_count && first; r++)
                for (size_t j = 0; j < plans[r].input_count; j++)
                    first &= plans[r].inputs[j] != in;
            for (size_t j = 0; j < k; j++)
                first &= plans[l].inputs[j] != in;
            plans[l].first_grad[k] = (unsigned char)first;
        }
}

size_t tdm_model_graph_readers(const tdm_model_options *o, const tdm_layer_plan *plans, size_t l)
{
    size_t n = 0;
    for (size_t r = l + 1; r < o->layer_count; r++)
        for (size_t k = 0; k < plans[r].input_count; k++)
            n += plans[r].inputs[k] == (int)l;
    return n;
}

void tdm_model_input_image(const tdm_model_options *o, const tdm_layer_plan *plans,
                           const tdm_layer_plan *p, size_t k, size_t image[3])
{
    int in = p->inputs[k];
    if (in >= 0) {
        image[0] = plans[in].out_h, image[1] = plans[in].out_w, image[2] = plans[in].out_c;
        return;
    }
    /* the model's input j: input 0 the image where one is given, else flat */
    size_t j = (size_t)(-1 - (long)in);
    int pictured = j == 0 && o->input_height;
    image[0] = pictured ? o->input_height : 1;
    image[1] = pictured ? o->input_width : 1;
    image[2] = pictured ? o->input_channels : o->input_widths[j];
}

const tdm_tensor *tdm_model_input_of(const tdm_model_views *v, const tdm_layer_plan *p, size_t k,
                                     const tdm_tensor *x)
{
    int in = p->inputs[k];
    if (in >= 0)
        return v->out[in];
    /* several inputs: each split from the features into its own buffer */
    return v->b.input[0] ? v->b.input[-1 - in] : x;
}

tdm_dtype tdm_model_input_storage(const tdm_layer_plan *plans, const tdm_layer_plan *p, size_t k)
{
    return p->inputs[k] >= 0 ? plans[p->inputs[k]].storage : TDM_F32;
}

tdm_tensor *tdm_model_input_grad(const tdm_model *m, const tdm_model_views *v, size_t l, size_t k)
{
    const tdm_layer_plan *p = &m->plans[l];
    if (p->inputs[k] < 0)
        return NULL;
    return p->first_grad[k] ? v->b.g[p->inputs[k]] : v->b.dx[tdm_model_edge(l, k)];
}

tdm_status tdm_model_input_grad_given(const tdm_model *m, const tdm_model_views *v, size_t l,
                                      size_t k)
{
    const tdm_layer_plan *p = &m->plans[l];
    if (p->inputs[k] < 0 || p->first_grad[k])
        return TDM_OK;
    tdm_tensor *grad = v->b.g[p->inputs[k]];
    return tdm_op_add(grad, grad, v->b.dx[tdm_model_edge(l, k)]);
}
