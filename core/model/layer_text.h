/* Internal: one layer's item of the stacked string, which the graph text's lines
 * share (layer_text.c). */
#ifndef TDM_MODEL_LAYER_TEXT_H
#define TDM_MODEL_LAYER_TEXT_H

#include "tandem/model_text.h"

/* The item into d (activation linear, no inputs); 0, or -1 when it is none. */
int tdm_layer_item_parse(const char *item, tdm_layer *d);
/* d's item, which tdm_layer_item_parse reads back (a kind's name where it has none). */
void tdm_layer_item_format(const tdm_layer *d, char *buf, size_t size);
/* TDM_ERR_INVALID_ARGUMENT for func: the len bytes at item are not a layer, and the
 * forms that are. */
tdm_status tdm_layer_item_refused(const char *func, const char *item, size_t len);

#endif
