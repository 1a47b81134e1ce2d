/* tandem generate: text sampled from a language model saved by 'tandem train --text
 * ... --save', one byte at a time, by the library's tdm_model_generate: the model reads
 * the last `context` bytes and the byte after them is drawn from its outputs at the
 * last position read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "commands.h"
#include "device_select.h"

enum { VOCAB = 256 }; /* a byte's values: the tokens of 'tandem train --text', top-k's most */

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

/* The library's reason, past its function's name. */
static const char *reason(void)
{
    static const char prefix[] = "tdm_model_generate: ";
    const char *why = tdm_last_error();
    return strncmp(why, prefix, sizeof prefix - 1) ? why : why + sizeof prefix - 1;
}

typedef struct writer {
    const char *prompt;
    int started;
} writer;

/* Each byte as it is drawn, the prompt before the first, so that a refused model or
 * prompt writes nothing; a failed write stops the generation. */
static int write_byte(unsigned char byte, void *user)
{
    writer *w = user;
    if (!w->started++ && fputs(w->prompt, stdout) == EOF)
        return 1;
    return fputc(byte, stdout) == EOF;
}

/* The prompt, then the bytes the library draws (tdm_model_generate) as they come, then
 * a newline. */
static int generate(const generate_options *o, tdm_model *model)
{
    unsigned char *drawn = malloc(o->tokens);
    if (!drawn)
        return fail("memory", "out of memory");
    writer w = {o->prompt, 0};
    tdm_generate_options go = TDM_GENERATE_OPTIONS_INIT;
    go.temperature = o->temperature;
    go.top_k = o->top_k;
    go.seed = o->seed;
    go.on_byte = write_byte;
    go.user = &w;
    tdm_status st = tdm_model_generate(model, o->prompt, strlen(o->prompt), o->tokens, &go, drawn);
    free(drawn);
    if (st != TDM_OK && st != TDM_ERR_CANCELLED)
        return fail(o->model, reason());
    if (st == TDM_ERR_CANCELLED || fputc('\n', stdout) == EOF || fflush(stdout) != 0)
        return fail("output", "cannot write the text");
    return 0;
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
    int status =
        cli_load_model(ctx, "generate", o.device, NULL, o.model, &strategy, &model) ? 1 : 0;
    if (status == 0)
        status = generate(&o, model);
    tdm_model_destroy(model);
    tdm_strategy_destroy(strategy);
    tdm_context_destroy(ctx);
    return status;
}
