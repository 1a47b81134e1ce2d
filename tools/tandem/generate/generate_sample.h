/* tandem generate: the next byte drawn from a position's logits, as a language model's
 * sampling does: divided by a temperature (0: the most likely byte), kept to the k
 * likeliest (0: all), then drawn from their softmax with a seeded generator, so a
 * seed gives the same text on every machine. */
#ifndef TANDEM_CLI_GENERATE_SAMPLE_H
#define TANDEM_CLI_GENERATE_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct sampler {
    double temperature; /* 0: the most likely byte */
    size_t top_k;       /* 0: every byte */
    uint64_t state;     /* the generator's: splitmix64 */
} sampler;

void sampler_init(sampler *s, double temperature, size_t top_k, uint64_t seed);

/* The byte drawn from logits[0..vocab). */
size_t sampler_next(sampler *s, const float *logits, size_t vocab);

#endif
