/* The graph text (tandem/model_text.h): one layer a line, NAME = ITEM(INPUTS)
 * [ACTIVATION] [dropout=RATE], read into layers that name their inputs, and written
 * back. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/layer_text.h"

#define NAME_MAX_LEN 32
#define LINE_MAX_LEN 256
#define INPUT_NAME "input"

typedef char node_name[NAME_MAX_LEN + 1];

typedef struct reader {
    tdm_layer *layers;
    node_name *names;
    size_t max, count, line;
    tdm_graph_inputs *inputs; /* those declared, or NULL where the caller takes one */
    node_name input_names[TDM_MODEL_MAX_INPUTS];
    int bare_input; /* a line read `input`: the model's one input */
} reader;

static tdm_status refuse(const reader *r, const char *what, const char *detail)
{
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_graph_parse: line %zu: %s%s", r->line, what,
                    detail);
}

/* s without its leading and trailing blanks, in place. */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int is_name(const char *s)
{
    if (!*s || strlen(s) > NAME_MAX_LEN || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* The next token of *p up to one of seps (the separator replaced by '\0', *p moved
 * past it); NULL at the end. strtok's, without its hidden state. */
static char *token(char **p, const char *seps)
{
    while (**p && strchr(seps, **p) && !strchr(seps, ','))
        ++*p; /* runs of blanks are one separator; commas each separate */
    if (!**p)
        return NULL;
    char *start = *p;
    *p += strcspn(*p, seps);
    if (**p)
        *(*p)++ = '\0';
    return start;
}

/* A rate written as a decimal, "0.25" or ".5", in [0, 1), whatever the locale: 1 or
 * 0. */
static int rate_of(const char *s, float *out)
{
    double v = 0.0, unit = 1.0;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++)
        v = v * 10.0 + (*s - '0');
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++, digits++)
            v += (*s - '0') * (unit /= 10.0);
    *out = (float)v;
    return digits && !*s && v < 1.0;
}

#define NO_NODE (-1 - TDM_MODEL_MAX_INPUTS)

/* The node a name gives: an earlier line's index, a declared input's
 * TDM_MODEL_INPUT_AT(k) (`input` the one input), or NO_NODE. */
static int node_of(const reader *r, const char *name)
{
    if (strcmp(name, INPUT_NAME) == 0)
        return TDM_MODEL_INPUT;
    for (size_t k = 0; r->inputs && k < r->inputs->count; k++)
        if (strcmp(r->input_names[k], name) == 0)
            return TDM_MODEL_INPUT_AT(k);
    for (size_t l = 0; l < r->count; l++)
        if (strcmp(r->names[l], name) == 0)
            return (int)l;
    return NO_NODE;
}

static int declares_inputs(const reader *r)
{
    return r->inputs && r->inputs->count;
}

/* How many inputs layer l reads, and input k of them: the line before (the first
 * line, the model's input) where it names none. */
static size_t reads_of(const tdm_layer *layers, size_t l)
{
    return layers[l].input_count ? layers[l].input_count : 1;
}

static int input_at(const tdm_layer *layers, size_t l, size_t k)
{
    return layers[l].input_count ? layers[l].inputs[k] : l ? (int)l - 1 : TDM_MODEL_INPUT;
}

/* The comma-separated names inside the parentheses into d's inputs. */
static tdm_status inputs(reader *r, char *list, tdm_layer *d)
{
    for (char *name, *p = list; (name = token(&p, ",")) != NULL;) {
        name = trim(name);
        int node = node_of(r, name);
        if (node == NO_NODE)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "tdm_graph_parse: line %zu: '%.32s' is not a layer or input named "
                            "above, nor '%s' (the model's one input)",
                            r->line, name, INPUT_NAME);
        if (strcmp(name, INPUT_NAME) == 0 && declares_inputs(r))
            return refuse(r, "'input' is the model's one input, but this text declares its "
                             "inputs: read them by their names", "");
        r->bare_input |= strcmp(name, INPUT_NAME) == 0;
        if (d->input_count == TDM_LAYER_MAX_INPUTS)
            return refuse(r, "more inputs than a layer takes", "");
        d->inputs[d->input_count++] = node;
    }
    return TDM_OK;
}

/* What follows the parentheses: an activation, dropout=RATE. */
static tdm_status options(reader *r, char *rest, tdm_layer *d)
{
    unsigned traits = tdm_layer_kind_traits(d->kind);
    int takes = (traits & TDM_LAYER_TAKES_ACTIVATION) != 0;
    int takes_dropout = takes || (traits & TDM_LAYER_TAKES_DROPOUT);
    for (char *word, *p = rest; (word = token(&p, " \t")) != NULL;) {
        int dropout = strncmp(word, "dropout=", 8) == 0;
        if (!(dropout ? takes_dropout : takes))
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "tdm_graph_parse: line %zu: '%.32s': a %s layer takes no %s",
                            r->line, word, tdm_layer_kind_name(d->kind),
                            takes_dropout ? "activation" : "activation or dropout");
        if (dropout) {
            if (!rate_of(word + 8, &d->dropout))
                return refuse(r, "a dropout rate is a decimal in [0, 1): ", word);
        } else if (tdm_activation_parse(word, &d->activation) != TDM_OK) {
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "tdm_graph_parse: line %zu: '%.32s' is neither an activation (%s) "
                            "nor dropout=RATE",
                            r->line, word, "linear, relu, tanh, sigmoid, gelu");
        }
    }
    return TDM_OK;
}

/* A layer reading the line before (the first, the model's input) is a stacked one. */
static tdm_status settle_inputs(const reader *r, tdm_layer *d)
{
    size_t l = r->count;
    int merges = (tdm_layer_kind_traits(d->kind) & TDM_LAYER_MERGES) != 0;
    int before = l ? (int)l - 1 : TDM_MODEL_INPUT;
    if (merges && d->input_count < 2)
        return refuse(r, "a merge takes 2 to 8 inputs", "");
    if (!merges && d->input_count != 1)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_graph_parse: line %zu: a %s layer takes one input, not %zu; merge "
                        "several with add, concatenate or multiply",
                        r->line, tdm_layer_kind_name(d->kind), d->input_count);
    if (!merges && d->inputs[0] == before)
        d->input_count = 0, d->inputs[0] = 0;
    if (d->kind == TDM_LAYER_RESIDUAL && d->input_count)
        return refuse(r, "a residual reads the line before; name two inputs with add", "");
    return TDM_OK;
}

/* NAME = input(WIDTH): the model's next input, WIDTH features of each example. */
static tdm_status declare_input(reader *r, const char *name, char *width, char *rest)
{
    char *end = NULL;
    width = trim(width);
    unsigned long long w = *width >= '1' && *width <= '9' ? strtoull(width, &end, 10) : 0;
    if (!w || *end || w > UINT32_MAX || *trim(rest))
        return refuse(r, "an input is NAME = input(WIDTH), WIDTH its features (from 1): ",
                      width);
    if (!r->inputs)
        return refuse(r, "this reader takes the model's one input, 'input'; it declares none",
                      "");
    if (r->bare_input)
        return refuse(r, "a line above read 'input', the model's one input: declare the inputs "
                         "before any line reads one", "");
    if (r->inputs->count == TDM_MODEL_MAX_INPUTS)
        return refuse(r, "more inputs than a model takes (8)", "");
    snprintf(r->input_names[r->inputs->count], sizeof(node_name), "%s", name);
    r->inputs->widths[r->inputs->count++] = (size_t)w;
    return TDM_OK;
}

/* One line, at most LINE_MAX_LEN long, without its comment. */
static tdm_status line(reader *r, char *text)
{
    char *eq = strchr(text, '='), *open = strchr(text, '('), *close = strrchr(text, ')');
    if (!eq || !open || !close || open < eq || close < open)
        return refuse(r, "not NAME = ITEM(INPUTS) [ACTIVATION] [dropout=RATE]: ", trim(text));
    *eq = *open = *close = '\0';
    char *name = trim(text), *item = trim(eq + 1);
    if (!is_name(name) || strcmp(name, INPUT_NAME) == 0)
        return refuse(r, "a name is a letter or _ then letters, digits and _ (up to 32), "
                         "not 'input': ", name);
    if (node_of(r, name) != NO_NODE)
        return refuse(r, "a name given twice: ", name);
    if (strcmp(item, INPUT_NAME) == 0)
        return declare_input(r, name, open + 1, close + 1);
    if (r->count == r->max)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_graph_parse: line %zu: at most %zu layers",
                        r->line, r->max);
    tdm_layer *d = &r->layers[r->count];
    if (tdm_layer_item_parse(item, d) != 0) {
        tdm_status s = tdm_layer_item_refused("tdm_graph_parse", item, strlen(item));
        return tdm_fail(s, "tdm_graph_parse: line %zu: %s", r->line,
                        tdm_last_error() + strlen("tdm_graph_parse: "));
    }
    tdm_status s = inputs(r, open + 1, d);
    if (s == TDM_OK)
        s = options(r, close + 1, d);
    if (s == TDM_OK)
        s = settle_inputs(r, d);
    if (s == TDM_OK)
        snprintf(r->names[r->count++], sizeof(node_name), "%s", name);
    return s;
}

tdm_status tdm_graph_parse(const char *text, tdm_layer *layers, size_t max, size_t *count,
                           tdm_graph_inputs *inputs)
{
    TDM_CHECK_ARG(text, "tdm_graph_parse");
    TDM_CHECK_ARG(layers, "tdm_graph_parse");
    TDM_CHECK_ARG(count, "tdm_graph_parse");
    if (inputs)
        *inputs = (tdm_graph_inputs){0};
    reader r = {.layers = layers,
                .max = max,
                .inputs = inputs,
                .names = calloc(max ? max : 1, sizeof(node_name))};
    if (!r.names)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_graph_parse: out of host memory");
    tdm_status s = TDM_OK;
    for (const char *p = text; *p && s == TDM_OK;) {
        size_t len = strcspn(p, "\n");
        char one[LINE_MAX_LEN + 1];
        r.line++;
        if (len > LINE_MAX_LEN)
            s = refuse(&r, "longer than 256 characters", "");
        snprintf(one, sizeof one, "%.*s", (int)(len > LINE_MAX_LEN ? LINE_MAX_LEN : len), p);
        one[strcspn(one, "#")] = '\0'; /* a comment may hold a ';' */
        for (char *part, *rest = one; s == TDM_OK && (part = token(&rest, ";")) != NULL;)
            if (*trim(part))
                s = line(&r, part);
        p += len + (p[len] != '\0');
    }
    if (s == TDM_OK && !r.count)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_graph_parse: no layers: give one a line, "
                                               "NAME = ITEM(INPUTS)");
    for (size_t k = 0; s == TDM_OK && declares_inputs(&r) && k < inputs->count; k++) {
        int read = 0;
        for (size_t l = 0; l < r.count; l++)
            for (size_t j = 0; j < reads_of(layers, l); j++)
                read |= input_at(layers, l, j) == TDM_MODEL_INPUT_AT(k);
        if (!read)
            s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                         "tdm_graph_parse: the input '%s' is read by no line", r.input_names[k]);
    }
    *count = s == TDM_OK ? r.count : 0;
    if (s != TDM_OK && inputs)
        *inputs = (tdm_graph_inputs){0};
    free(r.names);
    return s;
}

/* Input k of layer l as a name: the line before where it names none (a residual's
 * shortcut is its position's); the model's input `input`, or `input<k>` where
 * declared. */
static void input_name(const tdm_layer *layers, size_t l, size_t k, int declared, char *buf,
                       size_t size)
{
    int node = input_at(layers, l, k);
    if (node < 0 && declared)
        snprintf(buf, size, "%s%d", INPUT_NAME, -1 - node);
    else if (node < 0)
        snprintf(buf, size, "%s", INPUT_NAME);
    else
        snprintf(buf, size, "%s%d", tdm_layer_kind_name(layers[node].kind), node);
}

tdm_status tdm_graph_format(const tdm_layer *layers, size_t count,
                            const tdm_graph_inputs *inputs, char *buf, size_t size)
{
    TDM_CHECK_ARG(layers, "tdm_graph_format");
    TDM_CHECK_ARG(buf, "tdm_graph_format");
    size_t used = 0, declared = inputs ? inputs->count : 0;
    int n = 0;
    if (size)
        buf[0] = '\0';
    for (size_t k = 0; k < declared && k < TDM_MODEL_MAX_INPUTS && used < size; k++) {
        n = snprintf(buf + used, size - used, "%s%s%zu = %s(%zu)", k ? "\n" : "", INPUT_NAME, k,
                     INPUT_NAME, inputs->widths[k]);
        used += n > 0 ? (size_t)n : 0;
    }
    for (size_t l = 0; l < count && used < size; l++) {
        const tdm_layer *d = &layers[l];
        char item[64], in[48], opts[48] = "";
        tdm_layer_item_format(d, item + 5, sizeof item - 5);
        /* a dense item is its units alone in a stack; a line says what it is */
        memcpy(item, "dense", 5);
        int dense = item[5] >= '0' && item[5] <= '9';
        if ((tdm_layer_kind_traits(d->kind) & TDM_LAYER_TAKES_ACTIVATION) &&
            d->activation != TDM_ACT_LINEAR)
            snprintf(opts, sizeof opts, " %s", tdm_activation_name(d->activation));
        if (d->dropout > 0.0f) { /* 9 decimals read back to the float, in any locale */
            snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " dropout=0.%09lu",
                     (unsigned long)((double)d->dropout * 1e9 + 0.5));
            for (size_t end = strlen(opts); opts[end - 1] == '0'; end--)
                opts[end - 1] = '\0';
        }
        n = snprintf(buf + used, size - used, "%s%s%zu = %s(", l || declared ? "\n" : "",
                     tdm_layer_kind_name(d->kind), l, dense ? item : item + 5);
        used += n > 0 ? (size_t)n : 0;
        for (size_t k = 0; k < reads_of(layers, l) && used < size; k++) {
            input_name(layers, l, k, declared != 0, in, sizeof in);
            n = snprintf(buf + used, size - used, "%s%s", k ? ", " : "", in);
            used += n > 0 ? (size_t)n : 0;
        }
        if (used < size) {
            n = snprintf(buf + used, size - used, ")%s", opts);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    if (used >= size)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_graph_format: %zu layers take more than %zu bytes", count, size);
    return TDM_OK;
}
