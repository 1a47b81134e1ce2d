/* The one dispatcher of the tool's subcommands (cli_dispatch.h). */
#include "cli_dispatch.h"

#include <stdio.h>
#include <string.h>

/* "usage: PROGRAM WHAT [OPTIONS]", the subcommands with their summaries in a column
 * as wide as the longest name, and where their own help is. */
static int usage(const cli_dispatch_table *t, FILE *out, int status)
{
    int width = 0;
    for (size_t i = 0; i < t->count; i++) {
        int n = (int)strlen(t->entries[i].name);
        width = n > width ? n : width;
    }
    fprintf(out, "usage: %s %s [OPTIONS]\n\n", t->program, t->what);
    for (size_t i = 0; i < t->count; i++)
        fprintf(out, "  %-*s  %s\n", width, t->entries[i].name, t->entries[i].summary);
    fprintf(out, "\n'%s %s --help' describes its options.\n", t->program, t->what);
    return status;
}

int cli_dispatch(const cli_dispatch_table *t, int argc, char **argv)
{
    if (argc < 2)
        return usage(t, stderr, 2);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return usage(t, stdout, 0);
    for (size_t i = 0; i < t->count; i++)
        if (!strcmp(argv[1], t->entries[i].name))
            return t->entries[i].run(argc - 1, argv + 1);
    fprintf(stderr, "%s: unknown %s '%s'\n\n", t->program, t->noun, argv[1]);
    return usage(t, stderr, 2);
}
