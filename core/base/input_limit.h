/* Internal: the most bytes tandem reads from one input file or checkpoint, so that a
 * file that is (or decompresses to) more than memory holds is refused with a message
 * before memory runs out, instead of being read until the process is killed. */
#ifndef TDM_CORE_INPUT_LIMIT_H
#define TDM_CORE_INPUT_LIMIT_H

#include <stdint.h>

#include "tandem/status.h"

/* What a file's bytes become in memory, which sets the default limit. */
typedef enum tdm_input_kind {
    TDM_INPUT_DATA,      /* parsed into a table several times the text: 1/16 of memory */
    TDM_INPUT_CHECKPOINT /* held as it is while restored: 1/2 of memory */
} tdm_input_kind;

/* TDM_MAX_INPUT_BYTES when set: a byte count with an optional K, M, G or T suffix
 * (powers of 1024); else the kind's share of physical memory. A malformed variable is
 * TDM_ERR_INVALID_ARGUMENT naming it and func. */
tdm_status tdm_input_limit(tdm_input_kind kind, const char *func, uint64_t *bytes);

#endif
