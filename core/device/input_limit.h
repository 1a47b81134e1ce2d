/* Internal: the most bytes tandem reads from one input file or checkpoint, so that a
 * file that is (or decompresses to) more than memory holds is refused with a message
 * before memory runs out, instead of being read until the process is killed. */
#ifndef TDM_CORE_INPUT_LIMIT_H
#define TDM_CORE_INPUT_LIMIT_H

#include <stdint.h>

#include "tandem/status.h"

/* TDM_MAX_INPUT_BYTES when set: a byte count with an optional K, M, G or T suffix
 * (powers of 1024); else a sixteenth of physical memory (a parsed CSV takes several
 * times its text). A malformed variable is TDM_ERR_INVALID_ARGUMENT naming it and func. */
tdm_status tdm_input_limit(const char *func, uint64_t *bytes);

#endif
