/* tdm_dataset_from_csv: numeric CSV, one example per line, parsed in place. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/dataset_impl.h"
#include "base/error.h"
#include "input/file_read.h"
#include "base/options.h"
#include "platform/tdm_text.h"

static const char *const func = "tdm_dataset_from_csv";

typedef struct csv_parse {
    const char *path;
    tdm_csv_options opts;
    tdm_c_locale *c_locale; /* numbers never follow the program's locale */
    char *next;             /* the unread text, NUL-terminated */
    size_t line;            /* number of the line last returned by next_line */
    size_t columns;
    size_t label_column; /* the first label column; SIZE_MAX: none */
    size_t *label_slot;  /* [columns]: a label column's place among the labels, or
                            SIZE_MAX for a feature */
    size_t label_count;
    tdm_csv_layout layout;
    char **fields; /* [columns]: the current line's fields */
    tdm_table *table;
    size_t rows; /* rows of table filled so far */
} csv_parse;

/* The next line with its end of line cut off, or NULL at the end of the text. */
static char *next_line(csv_parse *c)
{
    char *line = c->next;
    if (!*line)
        return NULL;
    char *nl = strchr(line, '\n');
    char *end = nl ? nl : line + strlen(line);
    c->next = nl ? nl + 1 : end;
    if (end > line && end[-1] == '\r')
        end--;
    *end = '\0';
    c->line++;
    return line;
}

static int is_blank(const char *s)
{
    return s[strspn(s, " \t")] == '\0';
}

static char *next_nonblank_line(csv_parse *c)
{
    char *line;
    while ((line = next_line(c)) && is_blank(line))
        c->layout.blank_lines++;
    return line;
}

static size_t count_fields(const char *line, char delimiter)
{
    size_t n = 1;
    for (; *line; line++)
        n += *line == delimiter;
    return n;
}

/* Cuts the line at each delimiter; the line has c->columns fields. */
static void split_fields(csv_parse *c, char *line)
{
    for (size_t i = 0; i < c->columns; i++) {
        c->fields[i] = line;
        line = strchr(line, c->opts.delimiter);
        if (line)
            *line++ = '\0';
    }
}

/* The whole field as a number (spaces around it allowed), or -1. */
static int parse_number(const csv_parse *c, const char *field, double *out)
{
    char *end;
    *out = tdm_c_strtod(c->c_locale, field, &end);
    return end != field && end[strspn(end, " \t")] == '\0' ? 0 : -1;
}

static tdm_status field_error(const csv_parse *c, size_t column, const char *what)
{
    return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s:%zu:%zu: %s '%.40s' %s", func, c->path, c->line,
                    column + 1, c->label_slot[column] != SIZE_MAX ? "label" : "field",
                    c->fields[column],
                    what);
}

static tdm_status parse_float(const csv_parse *c, size_t column, float *out)
{
    double v;
    if (parse_number(c, c->fields[column], &v) != 0)
        return field_error(c, column, "is not a number");
    *out = (float)v;
    return isfinite(*out) ? TDM_OK : field_error(c, column, "is not a finite float32");
}

/* Label column `column` into this row's labels: a float target as it is, or a class. */
static tdm_status parse_label(csv_parse *c, size_t column, void *labels)
{
    size_t slot = c->label_slot[column];
    if (c->opts.float_labels)
        return parse_float(c, column, (float *)labels + slot);
    double v;
    char why[128];
    if (parse_number(c, c->fields[column], &v) != 0)
        return field_error(c, column, "is not a number");
    if (tdm_label_from_value(v, c->opts.class_count, c->opts.max_class_count,
                             (int32_t *)labels + slot, why, sizeof why) != 0)
        return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s:%zu:%zu: %s", func, c->path, c->line,
                        column + 1, why);
    return TDM_OK;
}

static tdm_status parse_row(csv_parse *c, char *line)
{
    size_t found = count_fields(line, c->opts.delimiter);
    if (found != c->columns)
        return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s:%zu:%zu: %zu fields, expected %zu", func,
                        c->path, c->line, (found < c->columns ? found : c->columns) + 1, found,
                        c->columns);
    split_fields(c, line);
    float *features = c->table->features + c->rows * c->table->feature_count;
    size_t label_bytes = tdm_table_label_bytes(c->table);
    void *labels = (char *)c->table->labels + c->rows * label_bytes;
    memset(labels, 0, label_bytes); /* stays without a label column */
    tdm_status s = TDM_OK;
    for (size_t j = 0; j < c->columns && s == TDM_OK; j++) {
        if (c->label_slot[j] != SIZE_MAX)
            s = parse_label(c, j, labels);
        else
            s = parse_float(c, j, features++);
    }
    if (s == TDM_OK && !c->rows++)
        c->layout.first_line = c->line;
    c->layout.last_line = c->line;
    return s;
}

/* A header name without the spaces and double quotes around it. */
static const char *header_name(char *field)
{
    field += strspn(field, " \t");
    size_t len = strlen(field);
    while (len && (field[len - 1] == ' ' || field[len - 1] == '\t'))
        field[--len] = '\0';
    if (len >= 2 && field[0] == '"' && field[len - 1] == '"') {
        field[len - 1] = '\0';
        field++;
    }
    return field;
}

/* The column the header names `name`, or SIZE_MAX. */
static size_t named_column(csv_parse *c, const char *name, size_t len)
{
    for (size_t j = 0; j < c->columns; j++) {
        const char *h = header_name(c->fields[j]);
        if (strlen(h) == len && strncmp(h, name, len) == 0)
            return j;
    }
    return SIZE_MAX;
}

/* The column one entry of label_columns names: a header name first, else an index. */
static tdm_status list_column(csv_parse *c, const char *entry, size_t len, size_t *out)
{
    *out = c->opts.header ? named_column(c, entry, len) : SIZE_MAX;
    char *end;
    unsigned long long j = len && entry[0] >= '0' && entry[0] <= '9' ? strtoull(entry, &end, 10) : 0;
    if (*out == SIZE_MAX && len && entry[0] >= '0' && entry[0] <= '9' &&
        (size_t)(end - entry) == len) {
        if (j >= c->columns)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: %s:%zu: label column %llu is out of range: lines have %zu "
                            "columns (0 to %zu)",
                            func, c->path, c->line, j, c->columns, c->columns - 1);
        *out = (size_t)j;
    }
    if (*out == SIZE_MAX)
        return tdm_fail(TDM_ERR_NOT_FOUND, "%s: %s:%zu: label column '%.*s': %s", func, c->path,
                        c->line, (int)len, entry,
                        c->opts.header ? "no column of that name in the header, nor an index"
                                       : "not a column index (names need header = 1)");
    return TDM_OK;
}

static tdm_status mark_label(csv_parse *c, size_t column, const char *entry, size_t len)
{
    if (c->label_slot[column] != SIZE_MAX)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: label column '%.*s' is listed twice", func,
                        (int)len, entry);
    if (!c->label_count)
        c->label_column = column;
    c->label_slot[column] = c->label_count++;
    return TDM_OK;
}

/* label_columns: each entry of the list, in order. */
static tdm_status find_label_list(csv_parse *c)
{
    const char *p = c->opts.label_columns;
    tdm_status s = TDM_OK;
    while (s == TDM_OK) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, ",");
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        size_t column;
        s = list_column(c, p, len, &column);
        if (s == TDM_OK)
            s = mark_label(c, column, p, len);
        p += strcspn(p, ",");
        if (!*p++)
            break;
    }
    if (s == TDM_OK && c->label_count >= c->columns)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                     "%s: %s:%zu: every one of the %zu columns is a label: no features left",
                     func, c->path, c->line, c->columns);
    return s;
}

/* label_name, label_column or none: the single label column. */
static tdm_status find_label_column(csv_parse *c, int labelled)
{
    size_t column = !labelled                  ? SIZE_MAX
                    : c->opts.label_column < 0 ? c->columns - 1
                                               : (size_t)c->opts.label_column;
    if (c->opts.label_name) {
        const char *name = c->opts.label_name;
        column = named_column(c, name, strlen(name));
        if (column == SIZE_MAX)
            return tdm_fail(TDM_ERR_NOT_FOUND, "%s: %s:%zu: no column named '%s' in the header",
                            func, c->path, c->line, name);
    }
    if (labelled && column >= c->columns)
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s:%zu: label_column is %zu but lines have %zu columns", func, c->path,
                        c->line, column, c->columns);
    return column == SIZE_MAX ? TDM_OK : mark_label(c, column, "", 0);
}

/* A header names its columns: a bare number there is data or a count line taken as
 * a header by mistake, which would silently lose a row or misname the columns. A
 * name that is a number can be quoted ("0"). */
static tdm_status check_header(const csv_parse *c)
{
    double v;
    for (size_t j = 0; j < c->columns; j++)
        if (parse_number(c, c->fields[j], &v) == 0)
            return tdm_fail(TDM_ERR_CORRUPT_DATA,
                            "%s: %s:%zu:%zu: the header's field '%.40s' is a number: is line "
                            "%zu data, or a count line as scikit-learn's CSVs begin with? Skip "
                            "a count line with skip_rows = 1 (--skip-rows 1), read data "
                            "without header = 1, or quote a name that is a number",
                            func, c->path, c->line, j + 1, c->fields[j], c->line);
    return TDM_OK;
}

/* Reads the header or the first data row's shape and picks the label column. Returns
 * the first data line in *data, or NULL if the header is the first line. */
static tdm_status read_shape(csv_parse *c, char **data)
{
    char *first = next_nonblank_line(c);
    if (!first)
        return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s:%zu: no data rows, only blank lines", func,
                        c->path, c->line);
    c->columns = count_fields(first, c->opts.delimiter);
    int labelled = c->opts.label_column != TDM_CSV_NO_LABEL;
    if (c->columns < 1u + labelled)
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s:%zu: one column: expected features and a label, separated by '%c'",
                        func, c->path, c->line, c->opts.delimiter);
    c->fields = malloc(c->columns * sizeof *c->fields);
    c->label_slot = malloc(c->columns * sizeof *c->label_slot);
    if (!c->fields || !c->label_slot)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: no host memory", func);
    for (size_t j = 0; j < c->columns; j++)
        c->label_slot[j] = SIZE_MAX;
    *data = c->opts.header ? NULL : first;
    c->layout.header_line = c->opts.header ? c->line : 0;
    c->label_column = SIZE_MAX;
    if (c->opts.header) {
        split_fields(c, first);
        tdm_status s = check_header(c);
        if (s != TDM_OK)
            return s;
    }
    return c->opts.label_columns ? find_label_list(c) : find_label_column(c, labelled);
}

/* The first line, read as data, fails it or the next: it may be a header, or a
 * count line (scikit-learn's CSVs begin with "150,4,setosa,versicolor,virginica"),
 * which a newcomer cannot tell from the message alone. */
static tdm_status first_line_hint(tdm_status s)
{
    char message[768];
    snprintf(message, sizeof message, "%s", tdm_last_error());
    return tdm_fail(s,
                    "%s; the columns were read from the first line: if it counts rows and "
                    "features (as scikit-learn's CSVs begin), skip it with skip_rows = 1 "
                    "(--skip-rows 1); if it names the columns, set header = 1 (--header)",
                    message);
}

/* An upper bound on the data rows: the text's lines. */
static size_t count_lines(const char *text)
{
    size_t n = 1;
    while ((text = strchr(text, '\n')))
        n++, text++;
    return n;
}

static tdm_status read_rows(csv_parse *c, char *line)
{
    size_t features = c->columns - c->label_count;
    tdm_dtype dtype = c->opts.float_labels ? TDM_F32 : TDM_I32;
    size_t width = c->label_count ? c->label_count : 1;
    tdm_status s = tdm_table_create(count_lines(c->next) + 1, features, dtype, width, &c->table);
    if (!line && s == TDM_OK)
        line = next_nonblank_line(c);
    for (; line && s == TDM_OK; line = next_nonblank_line(c))
        s = parse_row(c, line);
    if (s != TDM_OK && c->rows <= 1 && !c->opts.header && c->opts.skip_rows == 0)
        return first_line_hint(s);
    if (s == TDM_OK && c->rows == 0)
        s = tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s:%zu: no data rows after the header", func,
                     c->path, c->line);
    return s;
}

static tdm_status check_options(const tdm_csv_options *o)
{
    if (o->delimiter == '\0' || o->delimiter == '\n' || o->delimiter == '\r' || o->delimiter == '"')
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: delimiter 0x%02x cannot separate fields",
                        func, (unsigned)(unsigned char)o->delimiter);
    if (o->label_column < -1 && o->label_column != TDM_CSV_NO_LABEL)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: label_column is %d, expected >= -1 or TDM_CSV_NO_LABEL", func,
                        o->label_column);
    if (o->label_name && o->label_column == TDM_CSV_NO_LABEL)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: label_name '%s' with TDM_CSV_NO_LABEL", func,
                        o->label_name);
    if (o->label_name && !o->header)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: label_name '%s' needs header = 1", func,
                        o->label_name);
    if (o->label_columns && o->label_column == TDM_CSV_NO_LABEL)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: label_columns '%s' with TDM_CSV_NO_LABEL",
                        func, o->label_columns);
    return TDM_OK;
}

/* A NUL byte would end the text early and silently drop the rows after it. */
static tdm_status check_no_nul(const csv_parse *c, const char *text, size_t size)
{
    const char *nul = memchr(text, '\0', size);
    if (!nul)
        return TDM_OK;
    size_t line = 1;
    for (const char *p = text; p < nul; p++)
        line += *p == '\n';
    return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s:%zu: a NUL byte at byte %zu: not text", func,
                    c->path, line, (size_t)(nul - text));
}

static tdm_status parse_text(csv_parse *c, char *text, size_t size)
{
    if (size == 0)
        return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s:1: the file is empty", func, c->path);
    tdm_status s = check_no_nul(c, text, size);
    if (s != TDM_OK)
        return s;
    c->c_locale = tdm_c_locale_new();
    if (!c->c_locale)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: no memory for the C locale", func);
    c->next = text;
    for (size_t i = 0; i < c->opts.skip_rows; i++)
        if (!next_line(c))
            return tdm_fail(TDM_ERR_CORRUPT_DATA,
                            "%s: %s: skip_rows is %zu, the file has %zu lines", func, c->path,
                            c->opts.skip_rows, c->line);
    char *first_data = NULL;
    s = read_shape(c, &first_data);
    return s == TDM_OK ? read_rows(c, first_data) : s;
}

tdm_status tdm_dataset_from_csv(const char *path, const tdm_csv_options *opts, tdm_dataset **out)
{
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(path, func);
    csv_parse c = {.path = path, .opts = TDM_CSV_OPTIONS_INIT};
    tdm_status s = tdm_options_read(&c.opts, sizeof c.opts, opts, func);
    if (s == TDM_OK)
        s = check_options(&c.opts);
    char *text = NULL;
    size_t size = 0;
    if (s == TDM_OK)
        s = tdm_read_file(path, func, &text, &size);
    if (s == TDM_OK)
        s = parse_text(&c, text, size);
    if (c.c_locale)
        tdm_c_locale_free(c.c_locale);
    free(c.fields);
    free(c.label_slot);
    free(text);
    if (s != TDM_OK) {
        tdm_table_release(c.table);
        return s;
    }
    tdm_table_shrink(c.table, c.rows);
    s = tdm_dataset_wrap(c.table, c.opts.class_count, out);
    if (s == TDM_OK && c.opts.layout) {
        c.layout.columns = c.columns;
        c.layout.label_column = c.label_column == SIZE_MAX ? TDM_CSV_NO_LABEL : (int)c.label_column;
        c.layout.label_count = c.label_count;
        *c.opts.layout = c.layout;
    }
    return s;
}
