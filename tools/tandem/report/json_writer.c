#include <inttypes.h>
#include <math.h>

#include "json_writer.h"

static void write_escaped(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* Comma, newline and indentation before a value, then its key if any. */
static void prefix(json_writer *w, const char *key)
{
    if (w->depth > 0)
        fprintf(w->out, "%s\n%*s", w->need_comma ? "," : "", 2 * w->depth, "");
    if (key) {
        write_escaped(w->out, key);
        fputs(": ", w->out);
    }
    w->need_comma = 1;
}

static void open_scope(json_writer *w, const char *key, char bracket)
{
    prefix(w, key);
    fputc(bracket, w->out);
    w->depth++;
    w->need_comma = 0;
}

static void close_scope(json_writer *w, char bracket)
{
    w->depth--;
    if (w->need_comma)
        fprintf(w->out, "\n%*s", 2 * w->depth, "");
    fputc(bracket, w->out);
    w->need_comma = 1;
    if (w->depth == 0)
        fputc('\n', w->out);
}

void json_begin_object(json_writer *w, const char *key)
{
    open_scope(w, key, '{');
}
void json_end_object(json_writer *w)
{
    close_scope(w, '}');
}
void json_begin_array(json_writer *w, const char *key)
{
    open_scope(w, key, '[');
}
void json_end_array(json_writer *w)
{
    close_scope(w, ']');
}

void json_string(json_writer *w, const char *key, const char *value)
{
    prefix(w, key);
    write_escaped(w->out, value);
}

void json_uint(json_writer *w, const char *key, uint64_t value)
{
    prefix(w, key);
    fprintf(w->out, "%" PRIu64, value);
}

void json_int(json_writer *w, const char *key, int64_t value)
{
    prefix(w, key);
    fprintf(w->out, "%" PRId64, value);
}

void json_null(json_writer *w, const char *key)
{
    prefix(w, key);
    fputs("null", w->out);
}

void json_bool(json_writer *w, const char *key, int value)
{
    prefix(w, key);
    fputs(value ? "true" : "false", w->out);
}

void json_double(json_writer *w, const char *key, double value)
{
    prefix(w, key);
    if (isfinite(value))
        fprintf(w->out, "%.9g", value);
    else
        fputs("null", w->out);
}
