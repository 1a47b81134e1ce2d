/* Reading argv against a table of options, and the nearest name to a mistyped one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"

/* Levenshtein distance, giving up (returning limit + 1) past limit. */
static size_t distance(const char *a, const char *b, size_t limit)
{
    size_t la = strlen(a), lb = strlen(b);
    if ((la > lb ? la - lb : lb - la) > limit || lb > 64)
        return limit + 1;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t substitute = diagonal + (a[i - 1] != b[j - 1]);
            diagonal = row[j];
            size_t insert = row[j - 1] + 1, remove = row[j] + 1;
            row[j] = substitute < insert ? substitute : insert;
            if (remove < row[j])
                row[j] = remove;
        }
    }
    return row[lb];
}

const char *cli_nearest(const char *given, const char *const *names, size_t count)
{
    const char *best = NULL;
    size_t best_distance = (size_t)-1, given_len = strlen(given);
    for (size_t i = 0; i < count; i++) {
        size_t letters = strspn(names[i], "-");
        size_t limit = (strlen(names[i]) - letters) / 3;
        size_t d = distance(given, names[i], limit ? limit : 1);
        if (given_len > letters + 1 && !strncmp(names[i], given, given_len))
            d = 0; /* an abbreviation */
        if (d <= (limit ? limit : 1) && d < best_distance) {
            best = names[i];
            best_distance = d;
        }
    }
    return best;
}

static cli_result unknown(const cli_option *table, size_t count, const char *arg, size_t len,
                          char *err, size_t err_size)
{
    const char *names[64 + 1];
    size_t n = 0;
    for (size_t i = 0; i < count && n < 64; i++)
        names[n++] = table[i].name;
    names[n++] = "--help";
    char given[64];
    snprintf(given, sizeof given, "%.*s", (int)(len < 63 ? len : 63), arg);
    const char *near = cli_nearest(given, names, n);
    if (near)
        return cli_fail(err, err_size, "unknown option %s; did you mean %s?", given, near);
    return cli_fail(err, err_size, "unknown option %s (--help lists the options)", given);
}

static int whole_into(const cli_option *o, const char *value, char *why, size_t why_size)
{
    uint64_t v;
    if (cli_parse_whole(value, o->min, o->max, &v, why, why_size) != 0)
        return -1;
    if (o->kind == CLI_UNSIGNED)
        *(unsigned *)o->target = (unsigned)v;
    else if (o->kind == CLI_SIZE)
        *(size_t *)o->target = (size_t)v;
    else
        *(uint64_t *)o->target = v;
    return 0;
}

static int value_into(const cli_option *o, const char *value, char *why, size_t why_size)
{
    switch (o->kind) {
    case CLI_STRING:
        if (!*value) {
            snprintf(why, why_size, "the value is empty");
            return -1;
        }
        *(const char **)o->target = value;
        return 0;
    case CLI_UNSIGNED:
    case CLI_SIZE:
    case CLI_U64: return whole_into(o, value, why, why_size);
    case CLI_FLOAT: return cli_parse_float(value, o->lo, o->hi, o->open, o->target, why, why_size);
    case CLI_DOUBLE: return cli_parse_real(value, o->lo, o->hi, o->open, o->target, why, why_size);
    case CLI_BYTES: {
        uint64_t v;
        if (cli_parse_bytes(value, o->min, o->max, &v, why, why_size) != 0)
            return -1;
        *(size_t *)o->target = (size_t)v;
        return 0;
    }
    case CLI_CUSTOM: return o->parse(value, o->target, why, why_size);
    case CLI_FLAG: break;
    }
    snprintf(why, why_size, "takes no value");
    return -1;
}

/* One argument (and the next, for an option's value); *used: arguments consumed. */
static cli_result one(const cli_option *table, size_t count, int left, char **args, int *used,
                      char *err, size_t err_size)
{
    const char *arg = args[0];
    *used = 1;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
        return CLI_HELP;
    if (arg[0] != '-' || !arg[1])
        return cli_fail(err, err_size, "unexpected argument '%.60s': options start with --", arg);
    const char *eq = strncmp(arg, "--", 2) ? NULL : strchr(arg, '='); /* not after -x */
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const cli_option *o = NULL;
    for (size_t i = 0; i < count && !o; i++)
        if ((strlen(table[i].name) == len && !strncmp(table[i].name, arg, len)) ||
            (table[i].short_name && !strcmp(table[i].short_name, arg)))
            o = &table[i];
    if (!o)
        return unknown(table, count, arg, len, err, err_size);
    if (o->kind == CLI_FLAG) {
        if (eq)
            return cli_fail(err, err_size, "%s takes no value", o->name);
        *(int *)o->target = o->flag_value;
        return CLI_OK;
    }
    const char *value = eq ? eq + 1 : left > 1 ? args[1] : NULL;
    if (!value || (!eq && !strncmp(value, "--", 2)))
        return cli_fail(err, err_size, "%s needs a value", o->name);
    *used = eq ? 1 : 2;
    char why[256];
    if (value_into(o, value, why, sizeof why) != 0)
        return cli_fail(err, err_size, "%s: %s", o->name, why);
    return CLI_OK;
}

cli_result cli_parse(const cli_option *table, size_t count, int argc, char **argv, char *err,
                     size_t err_size)
{
    for (int i = 1; i < argc;) {
        int used = 1;
        cli_result r = one(table, count, argc - i, argv + i, &used, err, err_size);
        if (r != CLI_OK)
            return r;
        i += used;
    }
    return CLI_OK;
}

int cli_parse_command(const cli_command *cmd, const cli_option *table, size_t count, int argc,
                      char **argv, int *exit_status)
{
    char err[512];
    switch (cli_parse(table, count, argc, argv, err, sizeof err)) {
    case CLI_OK: return 0;
    case CLI_HELP:
        cli_usage(stdout, cmd, table, count);
        *exit_status = 0;
        return 1;
    case CLI_ERROR: break;
    }
    fprintf(stderr, "tandem %s: %s\n", cmd->name, err);
    *exit_status = 2;
    return 1;
}

int cli_fail_choice(const char *value, const char *what, const char *const *names, char *err,
                    size_t err_size)
{
    char all[512] = "";
    size_t count = 0;
    for (; names[count]; count++) {
        size_t used = strlen(all);
        snprintf(all + used, sizeof all - used, "%s%s", count ? ", " : "", names[count]);
    }
    const char *near = cli_nearest(value, names, count);
    return cli_fail(err, err_size, "no %s '%.40s'%s%s%s (%s)", what, value,
                    near ? "; did you mean " : "", near ? near : "", near ? "?" : "", all);
}

int cli_parse_choice(const char *value, const char *what, const char *const *names, char *err,
                     size_t err_size)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(value, names[i]))
            return i;
    return cli_fail_choice(value, what, names, err, err_size);
}

int cli_parse_list(const char *value, void *target, char *err, size_t err_size)
{
    cli_list *list = target;
    size_t max = list->max && list->max < CLI_LIST_MAX ? list->max : CLI_LIST_MAX;
    for (const char *p = value;; p++) {
        size_t len = strcspn(p, ",");
        if (!len)
            return cli_fail(err, err_size, "'%.60s' has an empty %s", value, list->what);
        if (list->count == max)
            return cli_fail(err, err_size, "more than %zu %ss", max, list->what);
        if (len >= CLI_ITEM_MAX)
            return cli_fail(err, err_size, "'%.40s...' is not a %s", p, list->what);
        memcpy(list->item[list->count], p, len);
        list->item[list->count][len] = '\0';
        list->count++;
        p += len;
        if (!*p)
            return 0;
    }
}
