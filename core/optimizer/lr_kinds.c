/* The learning-rate schedules' names (from tandem/lr_kinds.def). */
#include "base/error.h"
#include "tandem/optimizer.h"

static const char *const kind_names[] = {
#define TDM_LR_KIND(id, name, what) name,
#include "tandem/lr_kinds.def"
#undef TDM_LR_KIND
    NULL};

TDM_NAMED_ENUM(tdm_lr_kind, kind_names, tdm_lr_kind_names, tdm_lr_kind_name, tdm_lr_kind_parse,
               "learning-rate schedule")
