/* The losses' names, aliases and labels (from tandem/loss_kinds.def). */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "tandem/model.h"

static const char *const names[] = {
#define TDM_LOSS_KIND(id, name, alias, labels, what) #name,
#include "tandem/loss_kinds.def"
#undef TDM_LOSS_KIND
};

static const char *const aliases[] = {
#define TDM_LOSS_KIND(id, name, alias, labels, what) #alias,
#include "tandem/loss_kinds.def"
#undef TDM_LOSS_KIND
    NULL};

static const unsigned takes[] = {
#define TDM_LOSS_KIND(id, name, alias, labels, what) labels,
#include "tandem/loss_kinds.def"
#undef TDM_LOSS_KIND
};

const char *tdm_loss_kind_name(tdm_loss_kind kind)
{
    return (unsigned)kind < TDM_LOSS_KIND_COUNT ? names[kind] : "unknown";
}

const char *tdm_loss_kind_alias(tdm_loss_kind kind)
{
    return (unsigned)kind < TDM_LOSS_KIND_COUNT ? aliases[kind] : "unknown";
}

const char *const *tdm_loss_kind_aliases(void)
{
    return aliases;
}

unsigned tdm_loss_kind_labels(tdm_loss_kind kind)
{
    return (unsigned)kind < TDM_LOSS_KIND_COUNT ? takes[kind] : 0;
}

tdm_status tdm_loss_kind_parse(const char *name, tdm_loss_kind *out)
{
    TDM_CHECK_ARG(name, "tdm_loss_kind_parse");
    TDM_CHECK_ARG(out, "tdm_loss_kind_parse");
    for (int k = 0; k < TDM_LOSS_KIND_COUNT; k++)
        if (strcmp(names[k], name) == 0 || strcmp(aliases[k], name) == 0) {
            *out = (tdm_loss_kind)k;
            return TDM_OK;
        }
    char list[512] = "";
    for (int k = 0; k < TDM_LOSS_KIND_COUNT; k++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s (%s)", k ? ", " : "", aliases[k], names[k]);
    }
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "unknown loss '%.64s': the losses are %s", name,
                    list);
}
