/* The table of layer types, one per kind of tandem/layer_kinds.def: the one file
 * that names every kind's type, above the kinds and the helpers they call. */
#include "model/layers/layer_type.h"

#define TDM_LAYER_KIND(id, name, ...) extern const tdm_layer_type tdm_layer_##name;
#include "tandem/layer_kinds.def"
#undef TDM_LAYER_KIND

static const tdm_layer_type *const types[] = {
#define TDM_LAYER_KIND(id, name, ...) [TDM_LAYER_##id] = &tdm_layer_##name,
#include "tandem/layer_kinds.def"
#undef TDM_LAYER_KIND
};

const tdm_layer_type *tdm_layer_type_of(tdm_layer_kind kind)
{
    return types[kind];
}
