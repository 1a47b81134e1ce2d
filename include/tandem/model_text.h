/* tandem: a model's layers written as text, and read back: the stacked string of
 * comma-separated items ("conv32k3,pool2,128") and the graph text, one layer a line
 * ("b = conv16k1(input) relu", "c = concatenate(a, b)"). docs/MODELS.md gives both
 * with examples. */
#ifndef TANDEM_MODEL_TEXT_H
#define TANDEM_MODEL_TEXT_H

#include "tandem/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stacked string into at most max layers (kind, units, window, stride, padding,
 * skip, vocabulary; activation linear, no dropout), *count set:
 *
 *   128 or dense128   a dense layer of 128 units
 *   conv32k3          32 filters of 3 x 3 (k5x3: 5 high, 3 wide)
 *   pool2, maxpool2   max pooling over 2 x 2 windows; avgpool2 average pooling
 *   bn, ln            batch and layer normalisation; gap global average pooling
 *   res2              adds the input of the 2 layers before it to their output
 *   emb256x8          an embedding, first only: ids below 256, 8 values each
 *
 * A convolution or pooling item may end with s<stride> and "valid", as in
 * conv64k3s2valid. TDM_ERR_INVALID_ARGUMENT naming the item and every form. */
TDM_API tdm_status tdm_layers_parse(const char *text, tdm_layer *layers, size_t max,
                                    size_t *count);
/* The stacked string tdm_layers_parse reads back to those layers (activations and
 * dropout are not part of it; a merge has no item and is written by its kind's
 * name). */
TDM_API void tdm_layers_format(const tdm_layer *layers, size_t count, char *buf, size_t size);
/* Help lines, one per kind with an item: "\n<kind>: <form>, e.g. <example> (what)". */
TDM_API void tdm_layers_help(char *buf, size_t size);
/* An item of that kind ("conv32k3"); a merge's word ("add"); NULL out of range. */
TDM_API const char *tdm_layer_example(tdm_layer_kind kind);
/* Whether any of the layers needs an image input. */
TDM_API int tdm_layers_need_image(const tdm_layer *layers, size_t count);

/* The inputs a graph text declares, in the order of their lines. */
typedef struct tdm_graph_inputs {
    size_t count;                        /* 0: none declared; the layers read `input`, the
                                            model's one input */
    size_t widths[TDM_MODEL_MAX_INPUTS]; /* input k's features (tdm_model_options'
                                            inputs and input_widths) */
} tdm_graph_inputs;

/* The graph text into at most max layers, in the order of its lines:
 *
 *   # a comment; blank lines are passed over
 *   a = conv32k3(input) relu          NAME = ITEM(INPUTS) [ACTIVATION] [dropout=RATE]
 *   b = conv16k1(input) relu
 *   c = concatenate(a, b)             add, concatenate, multiply: 2 to 8 inputs
 *   d = gap(c)
 *   out = dense10(d)                  the last line is the model's output
 *
 * ITEM is a stacked item or a merge; INPUTS earlier names or `input`, the model's;
 * the activation one of tdm_activation_names (linear where none is given), the
 * dropout rate in [0, 1). A layer that reads the line before is a stacked layer, so
 * a graph text of a stack makes that stack. A model of several inputs declares them
 * before the lines that read them, each with its width, side by side in an example's
 * features in the order declared (into *inputs; NULL refuses a declaration):
 *
 *   wide = input(13)                  NAME = input(WIDTH)
 *   deep = input(4)
 *   a = dense16(deep) relu
 *   c = concatenate(wide, a)
 *
 * TDM_ERR_INVALID_ARGUMENT naming the line and what is wrong: an unknown item or
 * name, a name given twice, a merge of fewer than 2 inputs, another kind of more than
 * 1, a declared input that no line reads. */
TDM_API tdm_status tdm_graph_parse(const char *text, tdm_layer *layers, size_t max,
                                   size_t *count, tdm_graph_inputs *inputs);
/* The graph text of the layers, each named "<kind><index>" as its variables are
 * ("conv2d0"), after the declared inputs "input<k> = input(WIDTH)" where inputs has
 * any (NULL: none, the one `input`); TDM_ERR_INVALID_ARGUMENT where size does not
 * hold it. */
TDM_API tdm_status tdm_graph_format(const tdm_layer *layers, size_t count,
                                    const tdm_graph_inputs *inputs, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
