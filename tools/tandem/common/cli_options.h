/* Command-line options read from a table. Every value is checked as it is read:
 * whole numbers are plain decimal digits that must not wrap, reals must be finite,
 * both must lie in the option's range, and the message names the option and that
 * range. A mistyped option name gets the nearest known one suggested. Nothing is
 * printed: messages go to the caller's buffer. */
#ifndef TANDEM_CLI_OPTIONS_H
#define TANDEM_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum cli_kind {
    CLI_FLAG,     /* no value: *(int *)target = flag_value */
    CLI_STRING,   /* *(const char **)target = the value, which must not be empty */
    CLI_UNSIGNED, /* *(unsigned *)target: a whole number in [min, max] */
    CLI_SIZE,     /* *(size_t *)target: likewise */
    CLI_U64,      /* *(uint64_t *)target: likewise */
    CLI_FLOAT,    /* *(float *)target: a finite number in the range lo..hi */
    CLI_DOUBLE,   /* *(double *)target: likewise */
    CLI_BYTES,    /* *(size_t *)target: a whole number with an optional K, M or G (powers
                     of 1024) in [min, max] bytes */
    CLI_CUSTOM    /* parse(value, target, err, err_size) */
} cli_kind;

/* Range ends that reals may not take (CLI_FLOAT, CLI_DOUBLE). */
#define CLI_ABOVE_LO 1u /* the value must be greater than lo */
#define CLI_BELOW_HI 2u /* the value must be less than hi */

/* Parses value into target; 0, or -1 with the reason (without the option's name)
 * written to err. */
typedef int (*cli_parse_fn)(const char *value, void *target, char *err, size_t err_size);

typedef struct cli_option {
    const char *name;       /* "--epochs" */
    const char *short_name; /* "-e", or NULL */
    cli_kind kind;
    void *target;
    uint64_t min, max; /* whole numbers */
    double lo, hi;     /* reals */
    unsigned open;     /* reals: CLI_ABOVE_LO | CLI_BELOW_HI */
    int flag_value;    /* CLI_FLAG */
    cli_parse_fn parse;
    const char *arg;            /* the value in the help ("FILE"); NULL for a flag */
    const char *help;           /* what it does and its default, for cli_usage to wrap */
    const char *const *choices; /* NULL-terminated: the names the value takes, which
                                   cli_usage lists under the help */
} cli_option;

/* A table entry's names, kind and target, so that an entry fits one line:
 * {CLI_ENTRY("--iters", "-n", CLI_UNSIGNED, &o->iters), .min = 1, .max = 1000}. */
#define CLI_ENTRY(long_name, short, entry_kind, entry_target)                                      \
    .name = (long_name), .short_name = (short), .kind = (entry_kind), .target = (entry_target)

typedef enum cli_result { CLI_OK, CLI_HELP, CLI_ERROR = -1 } cli_result;

/* A command's help around its options' rows. */
typedef struct cli_command {
    const char *name;     /* "bench gemm": "usage: tandem bench gemm ..." and messages */
    const char *synopsis; /* what follows the name on the usage line; NULL: "[OPTIONS]" */
    const char *about;    /* the paragraph under it, wrapped; '\n' starts a line */
    const char *footer;   /* after the options, or NULL */
} cli_command;

/* The command's help: the usage line, the paragraph, then one entry per row (names,
 * value, the help wrapped beside them, the choices under it), then the footer. */
void cli_usage(FILE *out, const cli_command *cmd, const cli_option *table, size_t count);

/* For options a command cannot run without: "tandem NAME: WHAT are required" and the
 * usage on stderr, *exit_status 2; returns 1 (the parsers' "stop"). */
int cli_required(const cli_command *cmd, const cli_option *table, size_t count, const char *what,
                 int *exit_status);

/* Reads argv[1..argc-1] against the table: "--name VALUE", "--name=VALUE" or
 * "-n VALUE" for options with a value, "--name" or "-n" for flags, "--help" or "-h"
 * for CLI_HELP. Later options
 * override earlier ones. CLI_ERROR writes one line to err: an unknown option (with
 * the nearest known name when one is close), a missing value, or a value out of
 * range, e.g. "--epochs: '-3' is not a whole number from 1 to 1000000". */
cli_result cli_parse(const cli_option *table, size_t count, int argc, char **argv, char *err,
                     size_t err_size);

/* cli_parse for a subcommand, which prints: 0 to go on; otherwise 1 with
 * *exit_status set: --help prints cli_usage to stdout, and the status is 0; a bad
 * option prints "tandem COMMAND: why" to stderr, and the status is 2. */
int cli_parse_command(const cli_command *cmd, const cli_option *table, size_t count, int argc,
                      char **argv, int *exit_status);

/* The name among names[0..count-1] nearest to `given` by edit distance, when at most
 * a third of its letters (and at least one) must change, or `given` starts it; NULL
 * otherwise. */
const char *cli_nearest(const char *given, const char *const *names, size_t count);

/* Writes a message to err; returns -1 (CLI_ERROR's value), so that a failure reads
 * `return cli_fail(err, err_size, "...", ...);`. */
int cli_fail(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The checks cli_parse applies, for custom parsers: a whole number in [min, max],
 * a finite real in the range (open: CLI_ABOVE_LO | CLI_BELOW_HI). 0, or -1 with the
 * reason in err. */
int cli_parse_whole(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *err,
                    size_t err_size);
int cli_parse_real(const char *text, double lo, double hi, unsigned open, double *out, char *err,
                   size_t err_size);
/* A size in bytes: digits, then optionally K, M or G (powers of 1024). */
int cli_parse_bytes(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *err,
                    size_t err_size);
/* cli_parse_real, then still in the range as a float (a tiny value may round to 0). */
int cli_parse_float(const char *text, double lo, double hi, unsigned open, float *out, char *err,
                    size_t err_size);

/* The index among names (NULL-terminated) that value is; otherwise -1 with
 * cli_fail_choice's message. */
int cli_parse_choice(const char *value, const char *what, const char *const *names, char *err,
                     size_t err_size);

/* Writes "no WHAT 'value'; did you mean NAME? (every name)" to err, for a value
 * outside names (NULL-terminated), and returns -1. */
int cli_fail_choice(const char *value, const char *what, const char *const *names, char *err,
                    size_t err_size);

/* A list option: comma-separated items, which may also repeat ("--device a --device
 * b,c" is three), copied so that the value is not modified. */
#define CLI_LIST_MAX 64
#define CLI_ITEM_MAX 64
typedef struct cli_list { /* no pointers into itself: it may be copied */
    const char *what;     /* an item, for messages: "device id" */
    size_t max;           /* the most items, at most CLI_LIST_MAX */
    char item[CLI_LIST_MAX][CLI_ITEM_MAX];
    size_t count;
} cli_list;

/* A CLI_CUSTOM parser whose target is a cli_list: appends each item of value. */
int cli_parse_list(const char *value, void *target, char *err, size_t err_size);

#endif
