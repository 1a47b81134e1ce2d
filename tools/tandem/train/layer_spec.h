/* tandem train's compact model description: the hidden layers, comma-separated.
 *
 *   128 or dense128           a dense layer of 128 units
 *   conv32k3                  a convolution of 32 filters of 3 x 3 (k5x3: 5 high, 3 wide)
 *   pool2 / maxpool2          max pooling over 2 x 2 windows
 *   avgpool2                  average pooling
 *   bn                        batch normalisation, its statistics over every replica
 *   ln                        layer normalisation over each position's channels
 *   res2                      a shortcut: adds the input of the 2 layers before it to
 *                             their output (ResNet's residual connection)
 *   emb256x8                  an embedding, first only: each feature is an id below 256,
 *                             looked up as 8 values
 *
 * A convolution or pooling item may end with s<stride> (default 1 for a convolution,
 * the window for pooling) and "valid" (default: SAME padding), as in conv64k3s2valid.
 * Activation and dropout come from their own options. */
#ifndef TANDEM_CLI_LAYER_SPEC_H
#define TANDEM_CLI_LAYER_SPEC_H

#include <stddef.h>

#include "tandem/model.h"

/* Reads text into at most max layers (kind, units, window, stride, padding); 0, or -1
 * with the reason in err. */
int layer_spec_parse(const char *text, tdm_layer *layers, size_t max, size_t *count, char *err,
                     size_t err_size);

/* The help's lines, one per kind: "\n<library's kind name>: <form>, e.g. <example>
 * (what it is)". */
void layer_spec_help(char *buf, size_t size);

/* An item of that kind ("conv32k3"); NULL for a kind without a form. */
const char *layer_spec_example(tdm_layer_kind kind);

/* The canonical text of the layers (what layer_spec_parse reads back to them). */
void layer_spec_format(const tdm_layer *layers, size_t count, char *buf, size_t size);

/* Whether any layer needs an image input. */
int layer_spec_has_images(const tdm_layer *layers, size_t count);

#endif
