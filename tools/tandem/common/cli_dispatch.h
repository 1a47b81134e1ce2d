/* The one dispatcher of the tool's subcommands: `tandem COMMAND ...` and
 * `tandem bench WHAT ...` both look a name up in a table of their own and run it. */
#ifndef TANDEM_CLI_DISPATCH_H
#define TANDEM_CLI_DISPATCH_H

#include <stddef.h>

/* A subcommand: run(argc, argv) with argv[0] its name returns the exit status. */
typedef struct cli_subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary; /* one line for the usage's list */
} cli_subcommand;

typedef struct cli_dispatch_table {
    const char *program; /* "tandem", "tandem bench": usage lines and messages */
    const char *what;    /* the placeholder in the usage line: "COMMAND", "WHAT" */
    const char *noun;    /* in "unknown <noun> 'x'": "command", "benchmark" */
    const cli_subcommand *entries;
    size_t count;
} cli_dispatch_table;

/* Runs the subcommand argv[1] names with argv + 1. No name prints the usage to
 * stderr and returns 2; --help or -h prints it to stdout and returns 0; an unknown
 * name says so, prints the usage to stderr and returns 2. */
int cli_dispatch(const cli_dispatch_table *t, int argc, char **argv);

#endif
