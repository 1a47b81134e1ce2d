/* tuning_key.h: which devices a tuning row is for. */
#include <ctype.h>

#include "tuning_key.h"

/* Whether `piece` occurs in `text`, any case. */
static int contains(const char *text, const char *piece)
{
    for (;; text++) {
        size_t i = 0;
        while (piece[i] && tolower((unsigned char)text[i]) == tolower((unsigned char)piece[i]))
            i++;
        if (!piece[i])
            return 1;
        if (!*text)
            return 0;
    }
}

int tdm_tuning_key_match(const tdm_tuning_key *key, const tdm_device_desc *desc)
{
    int named = 0;
    if (key->backend >= 0 && (named++, key->backend != (int)desc->backend))
        return -1;
    if (key->type >= 0 && (named++, key->type != (int)desc->type))
        return -1;
    if (key->vendor_id && (named++, key->vendor_id != desc->vendor_id))
        return -1;
    if (key->vendor && (named++, !contains(desc->vendor, key->vendor)))
        return -1;
    if (key->device && (named++, !contains(desc->name, key->device)))
        return -1;
    if (key->driver && (named++, !contains(desc->driver, key->driver)))
        return -1;
    return named;
}
