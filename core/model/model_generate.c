/* Generation: a language model over bytes continues a prompt one byte at a time, each
 * drawn from its logits at the last position read, divided by a temperature, kept to
 * the k likeliest and drawn from their softmax with splitmix64, so a seed gives the
 * same text on every machine. */
#include <math.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/options.h"
#include "model/seed_mix.h"
#include "tandem/model.h"

#define FUNC "tdm_model_generate"

enum { VOCAB = 256 }; /* a byte's values: the tokens of a text over bytes */

/* The generator's next value as a double in [0, 1): the same on every platform. */
static double uniform(uint64_t *state)
{
    return (double)(tdm_seed_next(state) >> 11) * 0x1p-53;
}

static size_t most_likely(const float *logits)
{
    size_t best = 0;
    for (size_t i = 1; i < VOCAB; i++)
        best = logits[i] > logits[best] ? i : best;
    return best;
}

/* The top_k-th largest logit: a byte below it is left out (ties kept, so the draw does
 * not depend on an order among equal logits); -inf for every byte. */
static double bar_of(const float *logits, size_t top_k)
{
    if (!top_k || top_k >= VOCAB)
        return -INFINITY;
    float sorted[VOCAB];
    for (size_t i = 0; i < VOCAB; i++)
        sorted[i] = logits[i];
    for (size_t i = 0; i < top_k; i++) { /* a partial selection sort: k is small */
        size_t top = i;
        for (size_t j = i + 1; j < VOCAB; j++)
            top = sorted[j] > sorted[top] ? j : top;
        float held = sorted[i];
        sorted[i] = sorted[top];
        sorted[top] = held;
    }
    return sorted[top_k - 1];
}

/* The byte drawn from one position's logits. */
static unsigned char draw(const tdm_generate_options *o, uint64_t *state, const float *logits)
{
    size_t best = most_likely(logits);
    if (o->temperature <= 0.0 || o->top_k == 1)
        return (unsigned char)best;
    double bar = bar_of(logits, o->top_k), weights[VOCAB], total = 0.0;
    for (size_t i = 0; i < VOCAB; i++) {
        weights[i] =
            logits[i] >= bar ? exp(((double)logits[i] - logits[best]) / o->temperature) : 0.0;
        total += weights[i];
    }
    double at = uniform(state) * total;
    for (size_t i = 0; i < VOCAB; i++)
        if (weights[i] > 0.0 && (at -= weights[i]) < 0.0)
            return (unsigned char)i;
    return (unsigned char)best; /* rounding left `at` a hair above 0 */
}

static tdm_status check(const tdm_model *m, size_t prompt_size, const tdm_generate_options *o)
{
    size_t context = tdm_model_input_count(m), outputs = tdm_model_output_count(m);
    if (tdm_model_loss_kind(m) != TDM_LOSS_SOFTMAX_CROSS_ENTROPY || outputs != context * VOCAB)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        FUNC ": not a language model: it reads %zu features and gives %zu "
                             "outputs (loss %s), where one over bytes reads its context's byte "
                             "ids and gives 256 logits for each of their positions, trained "
                             "with sparse_categorical_crossentropy",
                        context, outputs, tdm_loss_kind_alias(tdm_model_loss_kind(m)));
    if (!prompt_size)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        FUNC ": an empty prompt: give 1 byte to the model's context of %zu",
                        context);
    if (prompt_size > context)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        FUNC ": a prompt of %zu bytes, longer than the model's context of %zu "
                             "bytes",
                        prompt_size, context);
    if (!(o->temperature >= 0.0 && isfinite(o->temperature)) || o->top_k > VOCAB)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        FUNC ": temperature %g and top_k %zu: a temperature is 0 or more and "
                             "finite, top_k at most %d",
                        o->temperature, o->top_k, VOCAB);
    return TDM_OK;
}

/* Byte i of the text so far: the prompt, then what was drawn. */
static unsigned char byte_at(const unsigned char *prompt, size_t prompt_size,
                             const unsigned char *out, size_t i)
{
    return i < prompt_size ? prompt[i] : out[i - prompt_size];
}

static tdm_status generate(tdm_model *m, const unsigned char *prompt, size_t prompt_size,
                           size_t tokens, const tdm_generate_options *o, unsigned char *out)
{
    size_t context = tdm_model_input_count(m);
    float *ids = calloc(context, sizeof *ids);
    float *logits = malloc(context * VOCAB * sizeof *logits);
    tdm_status s =
        ids && logits ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, FUNC ": out of host memory");
    uint64_t state = o->seed;
    for (size_t n = 0; n < tokens && s == TDM_OK; n++) {
        /* the last bytes, at most a context of them, from position 0 (a causal model's
           later positions do not change what the last one read gives) */
        size_t length = prompt_size + n, start = length > context ? length - context : 0;
        size_t read = length - start;
        for (size_t i = 0; i < context; i++)
            ids[i] = i < read ? (float)byte_at(prompt, prompt_size, out, start + i) : 0.0f;
        s = tdm_model_predict(m, ids, 1, logits);
        if (s != TDM_OK) {
            s = tdm_fail_context(s, FUNC ": byte %zu", n + 1);
            break;
        }
        out[n] = draw(o, &state, logits + (read - 1) * VOCAB);
        if (o->on_byte && o->on_byte(out[n], o->user))
            s = tdm_fail(TDM_ERR_CANCELLED, FUNC ": stopped by on_byte after %zu bytes", n + 1);
    }
    free(logits);
    free(ids);
    return s;
}

tdm_status tdm_model_generate(tdm_model *m, const void *prompt, size_t prompt_size, size_t tokens,
                              const tdm_generate_options *opts, unsigned char *out)
{
    TDM_CHECK_ARG(m, FUNC);
    TDM_CHECK_ARG(prompt, FUNC);
    TDM_CHECK_ARG(out, FUNC);
    tdm_generate_options o = TDM_GENERATE_OPTIONS_INIT;
    tdm_status s = tdm_options_read(&o, sizeof o, opts, FUNC);
    if (s == TDM_OK)
        s = check(m, prompt_size, &o);
    return s == TDM_OK ? generate(m, prompt, prompt_size, tokens, &o, out) : s;
}
