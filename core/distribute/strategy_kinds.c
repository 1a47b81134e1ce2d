/* The strategies' names (from tandem/strategy_kinds.def). */
#include "base/error.h"
#include "tandem/strategy.h"

static const char *const kind_names[] = {
#define TDM_STRATEGY_KIND(id, name, what) name,
#include "tandem/strategy_kinds.def"
#undef TDM_STRATEGY_KIND
    NULL};

TDM_NAMED_ENUM(tdm_strategy_kind, kind_names, tdm_strategy_kind_names, tdm_strategy_kind_name,
               tdm_strategy_kind_parse, "strategy")
