/* Internal: a checkpoint that is not a file of this process's. */
#ifndef TDM_TRAIN_CHECKPOINT_MEMORY_H
#define TDM_TRAIN_CHECKPOINT_MEMORY_H

#include <stddef.h>

#include "tandem/checkpoint.h"

/* A checkpoint read from memory (data taken over, freed with it; freed on failure
 * too): a multi-worker job's chief sends its file to the other processes. `label`
 * names it in messages. */
tdm_status tdm_checkpoint_open_bytes(const char *label, unsigned char *data, size_t size,
                                     tdm_checkpoint **out);

/* The bytes a checkpoint was read from, *size of them: what the chief sends. */
const unsigned char *tdm_checkpoint_bytes(const tdm_checkpoint *c, size_t *size);

#endif
