/* Internal: the reproducible shuffle (its definition is in tandem/dataset.h). */
#ifndef TDM_INPUT_SHUFFLE_H
#define TDM_INPUT_SHUFFLE_H

#include <stddef.h>
#include <stdint.h>

/* Permutes items[0..count) in place into epoch `epoch`'s order for seed. */
void tdm_shuffle(size_t *items, size_t count, uint64_t seed, uint64_t epoch);

#endif
