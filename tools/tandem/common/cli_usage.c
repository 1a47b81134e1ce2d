/* A command's help, generated from its option table: each row's names and value on
 * the left, its help wrapped beside them, the names it takes under that. */
#include <stdio.h>
#include <string.h>

#include "cli_options.h"

#define WIDTH 80    /* the longest line */
#define LEFT_MAX 24 /* a wider left part puts its help two spaces after it */

/* Writes text from column col, the first word without a space before it, breaking
 * lines at spaces before WIDTH and at '\n'; each new line starts at column indent. */
static void wrap(FILE *out, const char *text, size_t indent, size_t col)
{
    int fresh = 1; /* nothing on this line yet after the caller's part */
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, " \n");
        if (*p == '\n' || (!fresh && col + 1 + len > WIDTH)) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
            fresh = 1;
        }
        if (*p == ' ' || *p == '\n') {
            p++;
            continue;
        }
        fprintf(out, "%s%.*s", fresh ? "" : " ", (int)len, p);
        col += len + !fresh;
        fresh = 0;
        p += len;
    }
}

/* "-d, --devices LIST" */
static size_t left_part(const cli_option *o, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s%s%s%s%s", o->short_name ? o->short_name : "",
                     o->short_name ? ", " : "", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    return n < 0 ? 0 : (size_t)n;
}

static void choices(FILE *out, const cli_option *o, size_t indent)
{
    char line[512];
    size_t used = (size_t)snprintf(line, sizeof line, "%s:", o->arg ? o->arg : "one of");
    for (size_t i = 0; o->choices[i] && used < sizeof line; i++)
        used += (size_t)snprintf(line + used, sizeof line - used, " %s%s", o->choices[i],
                                 o->choices[i + 1] ? "," : "");
    fprintf(out, "%*s", (int)indent, "");
    wrap(out, line, indent, indent);
    fputc('\n', out);
}

void cli_usage(FILE *out, const cli_command *cmd, const cli_option *table, size_t count)
{
    char left[128];
    size_t indent = 0;
    fprintf(out, "usage: tandem %s %s\n\n", cmd->name, cmd->synopsis ? cmd->synopsis : "[OPTIONS]");
    wrap(out, cmd->about, 0, 0);
    fprintf(out, "\n\n");
    for (size_t i = 0; i < count; i++) {
        size_t width = 2 + left_part(&table[i], left, sizeof left) + 2;
        if (width <= LEFT_MAX && width > indent)
            indent = width;
    }
    for (size_t i = 0; i < count; i++) {
        size_t width = 2 + left_part(&table[i], left, sizeof left);
        size_t col = width + 2 > indent ? width + 2 : indent;
        fprintf(out, "  %s%*s", left, (int)(col - width), "");
        wrap(out, table[i].help ? table[i].help : "", indent, col);
        fputc('\n', out);
        if (table[i].choices)
            choices(out, &table[i], indent);
    }
    if (cmd->footer) {
        fputc('\n', out);
        wrap(out, cmd->footer, 0, 0);
        fputc('\n', out);
    }
}

int cli_required(const cli_command *cmd, const cli_option *table, size_t count, const char *what,
                 int *exit_status)
{
    fprintf(stderr, "tandem %s: %s are required\n\n", cmd->name, what);
    cli_usage(stderr, cmd, table, count);
    *exit_status = 2;
    return 1;
}
