/* tandem generate: text sampled from a language model saved by 'tandem train --text
 * ... --save', one byte at a time: the model reads the last `context` bytes and the
 * byte after them is drawn from its outputs at the last position read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "commands.h"
#include "device_select.h"
#include "generate_sample.h"

enum { VOCAB = 256 }; /* a byte's values: the tokens of 'tandem train --text' */

typedef struct generate_options {
    const char *model, *prompt, *device;
    size_t tokens, top_k;
    double temperature;
    uint64_t seed;
} generate_options;

static const cli_command generate_command = {
    .name = "generate",
    .synopsis = "--model FILE --prompt TEXT [OPTIONS]",
    .about = "Writes the prompt and the bytes a language model saved by 'tandem train --text "
             "... --save' continues it with, each drawn from the model's outputs at the last "
             "position it read (the last context bytes of the text so far).",
};

/* 0 to go on; otherwise 1 with *exit_status set (--help, a bad option). */
static int parse(int argc, char **argv, generate_options *o, int *exit_status)
{
    *o = (generate_options){.tokens = 200, .temperature = 1.0, .seed = 1};
    const cli_option table[] = {
        {CLI_ENTRY("--model", NULL, CLI_STRING, &o->model), .arg = "FILE",
         .help = "the language model ('tandem train --text ... --save')"},
        {CLI_ENTRY("--prompt", NULL, CLI_STRING, &o->prompt), .arg = "TEXT",
         .help = "the text to continue: 1 byte to the model's context"},
        {CLI_ENTRY("--tokens", "-n", CLI_SIZE, &o->tokens), .min = 1, .max = 1u << 24, .arg = "N",
         .help = "bytes to generate (default 200)"},
        {CLI_ENTRY("--temperature", NULL, CLI_DOUBLE, &o->temperature), .lo = 0, .hi = 100,
         .arg = "T", .help = "the logits divided by T before the draw; 0: always the most likely "
                             "byte (default 1)"},
        {CLI_ENTRY("--top-k", NULL, CLI_SIZE, &o->top_k), .min = 0, .max = VOCAB, .arg = "K",
         .help = "draw among the K likeliest bytes only; 0: among all (default 0)"},
        {CLI_ENTRY("--seed", NULL, CLI_U64, &o->seed), .min = 0, .max = UINT64_MAX, .arg = "S",
         .help = "the draws' seed: the same seed, the same text (default 1)"},
        {CLI_ENTRY("--device", NULL, CLI_STRING, &o->device), .arg = "ID",
         .help = "an id or index from 'tandem devices', or a backend's name; default: the "
                 "first default device"},
    };
    size_t count = sizeof table / sizeof table[0];
    if (cli_parse_command(&generate_command, table, count, argc, argv, exit_status))
        return 1;
    if (!o->model || !o->prompt)
        return cli_required(&generate_command, table, count, "--model and --prompt", exit_status);
    return 0;
}

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "tandem generate: %s: %s\n", what, why);
    return 1;
}

/* A language model reads `context` byte ids and gives 256 logits for each position. */
static int check_model(const generate_options *o, const tdm_model *model, size_t *context)
{
    size_t features = tdm_model_input_count(model), outputs = tdm_model_output_count(model);
    if (tdm_model_loss_kind(model) != TDM_LOSS_SOFTMAX_CROSS_ENTROPY || outputs != features * VOCAB) {
        char why[320];
        snprintf(why, sizeof why,
                 "not a language model: it reads %zu features and gives %zu outputs, where one "
                 "of 'tandem train --text' reads its context's byte ids and gives 256 logits "
                 "for each of their positions",
                 features, outputs);
        return fail(o->model, why);
    }
    size_t prompt = strlen(o->prompt);
    if (prompt > features) {
        char why[160];
        snprintf(why, sizeof why, "%zu bytes, longer than the model's context of %zu bytes",
                 prompt, features);
        return fail("--prompt", why);
    }
    *context = features;
    return 0;
}

/* The prompt, then each byte drawn, written as it comes. */
static int generate(const generate_options *o, tdm_model *model, size_t context)
{
    size_t length = strlen(o->prompt), total = length + o->tokens;
    unsigned char *text = malloc(total);
    float *ids = calloc(context, sizeof *ids);
    float *logits = malloc(context * VOCAB * sizeof *logits);
    int status = text && ids && logits ? 0 : fail("memory", "out of memory");
    sampler s;
    sampler_init(&s, o->temperature, o->top_k, o->seed);
    if (status == 0) {
        memcpy(text, o->prompt, length);
        fwrite(text, 1, length, stdout);
    }
    for (; status == 0 && length < total; length++) {
        /* the last bytes, at most a context of them, from position 0 (a causal model's
           later positions do not change what the last one read gives) */
        size_t start = length > context ? length - context : 0, read = length - start;
        for (size_t i = 0; i < context; i++)
            ids[i] = i < read ? (float)text[start + i] : 0.0f;
        if (tdm_model_predict(model, ids, 1, logits) != TDM_OK) {
            status = fail("prediction", tdm_last_error());
            break;
        }
        text[length] = (unsigned char)sampler_next(&s, logits + (read - 1) * VOCAB, VOCAB);
        fputc(text[length], stdout);
    }
    if (status == 0)
        fputc('\n', stdout);
    if (fflush(stdout) != 0 && status == 0)
        status = fail("output", "cannot write the text");
    free(logits);
    free(ids);
    free(text);
    return status;
}

int cmd_generate(int argc, char **argv)
{
    generate_options o;
    int exit_status = 0;
    if (parse(argc, argv, &o, &exit_status))
        return exit_status;
    tdm_context *ctx = cli_context();
    if (!ctx)
        return 1;
    tdm_strategy *strategy = NULL;
    tdm_model *model = NULL;
    size_t context = 0;
    int status = cli_load_model(ctx, "generate", o.device, NULL, o.model, &strategy, &model) ? 1 : 0;
    if (status == 0)
        status = check_model(&o, model, &context);
    if (status == 0)
        status = generate(&o, model, context);
    tdm_model_destroy(model);
    tdm_strategy_destroy(strategy);
    tdm_context_destroy(ctx);
    return status;
}
