/* Internal: splitmix64, the generator that turns one seed into initial weights and
 * dropout keys, with its published constants. */
#ifndef TDM_TRAIN_SEED_MIX_H
#define TDM_TRAIN_SEED_MIX_H

#include <stdint.h>

/* The splitmix64 finaliser: a bijection that scatters nearby inputs. */
static inline uint64_t tdm_seed_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The next output of the splitmix64 sequence at *state. */
static inline uint64_t tdm_seed_next(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ull;
    return tdm_seed_mix(*state);
}

#endif
