#include "generate_sample.h"

#include <math.h>

enum { VOCAB_MAX = 256 };

void sampler_init(sampler *s, double temperature, size_t top_k, uint64_t seed)
{
    *s = (sampler){.temperature = temperature, .top_k = top_k, .state = seed};
}

/* splitmix64's next value as a double in [0, 1): the same on every platform. */
static double uniform(sampler *s)
{
    uint64_t z = (s->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53;
}

static size_t most_likely(const float *logits, size_t vocab)
{
    size_t best = 0;
    for (size_t i = 1; i < vocab; i++)
        best = logits[i] > logits[best] ? i : best;
    return best;
}

size_t sampler_next(sampler *s, const float *logits, size_t vocab)
{
    if (vocab > VOCAB_MAX)
        vocab = VOCAB_MAX;
    size_t best = most_likely(logits, vocab);
    if (s->temperature <= 0.0 || s->top_k == 1)
        return best;
    /* The k-th largest logit is the bar: a byte below it is left out (ties kept, so
     * the draw does not depend on an order among equal logits). */
    double bar = -INFINITY;
    if (s->top_k && s->top_k < vocab) {
        float sorted[VOCAB_MAX];
        for (size_t i = 0; i < vocab; i++)
            sorted[i] = logits[i];
        for (size_t i = 0; i < s->top_k; i++) { /* a partial selection sort: k is small */
            size_t top = i;
            for (size_t j = i + 1; j < vocab; j++)
                top = sorted[j] > sorted[top] ? j : top;
            float held = sorted[i];
            sorted[i] = sorted[top];
            sorted[top] = held;
        }
        bar = sorted[s->top_k - 1];
    }
    double weights[VOCAB_MAX], total = 0.0;
    for (size_t i = 0; i < vocab; i++) {
        weights[i] = logits[i] >= bar ? exp(((double)logits[i] - logits[best]) / s->temperature)
                                      : 0.0;
        total += weights[i];
    }
    double at = uniform(s) * total;
    for (size_t i = 0; i < vocab; i++) {
        if (weights[i] > 0.0 && (at -= weights[i]) < 0.0)
            return i;
    }
    return best; /* rounding left `at` a hair above 0 */
}
