/* Fisher-Yates driven by xoshiro256**, seeded through splitmix64: a permutation that
 * depends on nothing but (seed, epoch), the same on every platform. */
#include "input/shuffle.h"

typedef struct rng {
    uint64_t s[4];
} rng;

/* splitmix64's output function: a bijection that maps 0 to 0. */
static uint64_t splitmix64_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static uint64_t splitmix64_next(uint64_t *state)
{
    *state += 0x9E3779B97F4A7C15u;
    return splitmix64_mix(*state);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t xoshiro256ss_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, bound), bound > 0: draws below 2^64 mod bound are rejected so that
 * every residue is equally likely. */
static uint64_t uniform_below(rng *r, uint64_t bound)
{
    uint64_t threshold = -bound % bound;
    uint64_t x;
    do
        x = xoshiro256ss_next(r);
    while (x < threshold);
    return x % bound;
}

void tdm_shuffle(size_t *items, size_t count, uint64_t seed, uint64_t epoch)
{
    uint64_t state = seed ^ splitmix64_mix(epoch);
    rng r;
    for (int i = 0; i < 4; i++)
        r.s[i] = splitmix64_next(&state);
    for (size_t i = count; i > 1; i--) {
        size_t j = (size_t)uniform_below(&r, i);
        size_t tmp = items[i - 1];
        items[i - 1] = items[j];
        items[j] = tmp;
    }
}
