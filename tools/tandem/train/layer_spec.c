/* Reading and writing tandem train's compact model description (layer_spec.h). */
#include "layer_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_UNITS 65536
#define MAX_WINDOW 4096
#define MAX_SKIP 64          /* more than a model has layers */
#define MAX_VOCAB (1u << 24) /* tdm_layer.vocab's */

/* A whole number from 1 to max at *p, moving p past it; 0 when there is none. */
static size_t number(const char **p, size_t max)
{
    if (**p < '0' || **p > '9')
        return 0;
    char *end;
    unsigned long long v = strtoull(*p, &end, 10);
    *p = end;
    return v >= 1 && v <= max ? (size_t)v : 0;
}

static int starts(const char **p, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(*p, word, n) != 0)
        return 0;
    *p += n;
    return 1;
}

/* The window's k<h>[x<w>], then s<stride>[x<stride>] and "valid", of a conv2d or pooling item. */
static int window(const char **p, tdm_layer *d, int conv)
{
    if (conv && !starts(p, "k"))
        return -1;
    d->kernel_h = d->kernel_w = number(p, MAX_WINDOW);
    if (starts(p, "x"))
        d->kernel_w = number(p, MAX_WINDOW);
    if (!d->kernel_h || !d->kernel_w)
        return -1;
    if (starts(p, "s")) {
        d->stride_h = d->stride_w = number(p, MAX_WINDOW);
        if (starts(p, "x"))
            d->stride_w = number(p, MAX_WINDOW);
        if (!d->stride_h || !d->stride_w)
            return -1;
    }
    d->padding = starts(p, "valid") ? TDM_PADDING_VALID : TDM_PADDING_SAME;
    return 0;
}

static int item(const char *p, tdm_layer *d)
{
    *d = (tdm_layer){.kind = TDM_LAYER_DENSE};
    if (starts(&p, "bn")) {
        d->kind = TDM_LAYER_BATCH_NORM;
    } else if (starts(&p, "ln")) {
        d->kind = TDM_LAYER_LAYER_NORM;
    } else if (starts(&p, "gap")) {
        d->kind = TDM_LAYER_GLOBAL_AVG_POOL2D;
    } else if (starts(&p, "emb")) {
        d->kind = TDM_LAYER_EMBEDDING;
        d->vocab = number(&p, MAX_VOCAB);
        d->units = starts(&p, "x") ? number(&p, MAX_UNITS) : 0;
        if (!d->vocab || !d->units)
            return -1;
    } else if (starts(&p, "res")) {
        d->kind = TDM_LAYER_RESIDUAL;
        d->skip = number(&p, MAX_SKIP);
        if (!d->skip)
            return -1;
    } else if (starts(&p, "conv")) {
        d->kind = TDM_LAYER_CONV2D;
        d->units = number(&p, MAX_UNITS);
        if (!d->units || window(&p, d, 1))
            return -1;
    } else if (starts(&p, "avgpool")) {
        d->kind = TDM_LAYER_AVG_POOL2D;
        if (window(&p, d, 0))
            return -1;
    } else if (starts(&p, "maxpool") || starts(&p, "pool")) {
        d->kind = TDM_LAYER_MAX_POOL2D;
        if (window(&p, d, 0))
            return -1;
    } else {
        starts(&p, "dense");
        d->units = number(&p, MAX_UNITS);
        if (!d->units)
            return -1;
    }
    return *p ? -1 : 0;
}

/* Each kind's form, for help and messages; the test checks that every kind the library
 * lists has one, and that its example reads back as that kind. */
static const struct {
    tdm_layer_kind kind;
    const char *form, *example, *what;
} forms[] = {
    {TDM_LAYER_DENSE, "<units> or dense<units>", "128", NULL},
    {TDM_LAYER_CONV2D, "conv<filters>k<size>", "conv32k3",
     "32 filters of 3x3; k5x3: 5 high, 3 wide"},
    {TDM_LAYER_MAX_POOL2D, "pool<size> or maxpool<size>", "pool2", "the largest of each 2x2"},
    {TDM_LAYER_AVG_POOL2D, "avgpool<size>", "avgpool2", "the mean of each 2x2"},
    {TDM_LAYER_BATCH_NORM, "bn", "bn", "statistics of the global batch over every replica"},
    {TDM_LAYER_LAYER_NORM, "ln", "ln", "over each position's channels"},
    {TDM_LAYER_RESIDUAL, "res<layers>", "res2",
     "adds the input of the 2 layers before it to their output"},
    {TDM_LAYER_EMBEDDING, "emb<vocab>x<units>", "emb256x8",
     "first only: each feature an id below 256, looked up as 8 values"},
    {TDM_LAYER_GLOBAL_AVG_POOL2D, "gap", "gap", "each channel's mean over the whole image"},
};
#define FORM_COUNT (sizeof forms / sizeof forms[0])

/* Whether a kind's form is its example: a word with no settings. */
static int plain_form(const char *example)
{
    for (size_t i = 0; i < FORM_COUNT; i++)
        if (forms[i].example == example)
            return !strcmp(forms[i].form, example);
    return 0;
}

const char *layer_spec_example(tdm_layer_kind kind)
{
    for (size_t i = 0; i < FORM_COUNT; i++)
        if (forms[i].kind == kind)
            return forms[i].example;
    return NULL;
}

void layer_spec_help(char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < FORM_COUNT && used < size; i++) {
        int plain = plain_form(forms[i].example); /* bn: no example to give */
        used += (size_t)snprintf(buf + used, size - used, "\n%s: %s%s%s%s%s%s",
                                 tdm_layer_kind_name(forms[i].kind), forms[i].form,
                                 plain ? "" : ", e.g. ", plain ? "" : forms[i].example,
                                 forms[i].what ? " (" : "", forms[i].what ? forms[i].what : "",
                                 forms[i].what ? ")" : "");
    }
}

/* "'x' is not a layer: give <units> or dense<units> (1 to 65536), conv<filters>k<size>, ..." */
static int not_a_layer(const char *one, size_t len, char *err, size_t err_size)
{
    int n = snprintf(err, err_size, "'%.20s%s' is not a layer: give %s (1 to %d)", one,
                     len > 20 ? "..." : "", forms[0].form, MAX_UNITS);
    size_t used = n < 0 ? 0 : (size_t)n;
    for (size_t i = 1; i < FORM_COUNT && used < err_size; i++)
        used += (size_t)snprintf(err + used, err_size - used, ", %s", forms[i].form);
    if (used < err_size)
        snprintf(err + used, err_size - used, "; a window then takes s<stride> and valid");
    return -1;
}

int layer_spec_parse(const char *text, tdm_layer *layers, size_t max, size_t *count, char *err,
                     size_t err_size)
{
    *count = 0;
    for (const char *p = text;; p++) {
        char one[48];
        size_t len = strcspn(p, ",");
        if (*count == max) {
            snprintf(err, err_size, "at most %zu hidden layers", max);
            return -1;
        }
        snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one - 1 ? len : sizeof one - 1), p);
        if (len >= sizeof one || item(one, &layers[*count]) != 0)
            return not_a_layer(one, len, err, err_size);
        ++*count;
        p += len;
        if (!*p)
            return 0;
    }
}

/* "<a>" or "<a>x<b>" */
static int pair(char *buf, size_t size, size_t a, size_t b)
{
    return a == b ? snprintf(buf, size, "%zu", a) : snprintf(buf, size, "%zux%zu", a, b);
}

static void format_one(const tdm_layer *d, char *buf, size_t size)
{
    static const char *const prefix[] = {"", "conv", "pool", "avgpool"};
    char window[48] = "", stride[48] = "";
    const char *example = layer_spec_example(d->kind);
    if (example && plain_form(example)) { /* bn, ln, gap: no settings */
        snprintf(buf, size, "%s", example);
        return;
    }
    if (d->kind == TDM_LAYER_EMBEDDING) {
        snprintf(buf, size, "emb%zux%zu", d->vocab, d->units);
        return;
    }
    if (d->kind == TDM_LAYER_DENSE || d->kind == TDM_LAYER_RESIDUAL) {
        snprintf(buf, size, d->kind == TDM_LAYER_DENSE ? "%zu" : "res%zu",
                 d->kind == TDM_LAYER_DENSE ? d->units : d->skip);
        return;
    }
    pair(window, sizeof window, d->kernel_h, d->kernel_w);
    int pool = d->kind != TDM_LAYER_CONV2D;
    size_t sh = d->stride_h ? d->stride_h : pool ? d->kernel_h : 1;
    size_t sw = d->stride_w ? d->stride_w : pool ? d->kernel_w : 1;
    if (sh != (pool ? d->kernel_h : 1) || sw != (pool ? d->kernel_w : 1)) {
        stride[0] = 's';
        pair(stride + 1, sizeof stride - 1, sh, sw);
    }
    const char *valid = d->padding == TDM_PADDING_VALID ? "valid" : "";
    if (pool)
        snprintf(buf, size, "%s%s%s%s", prefix[d->kind], window, stride, valid);
    else
        snprintf(buf, size, "conv%zuk%s%s%s", d->units, window, stride, valid);
}

void layer_spec_format(const tdm_layer *layers, size_t count, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t l = 0; l < count && used < size; l++) {
        char one[64];
        format_one(&layers[l], one, sizeof one);
        used += (size_t)snprintf(buf + used, size - used, "%s%s", l ? "," : "", one);
    }
}

int layer_spec_has_images(const tdm_layer *layers, size_t count)
{
    for (size_t l = 0; l < count; l++)
        if (layers[l].kind == TDM_LAYER_CONV2D || layers[l].kind == TDM_LAYER_MAX_POOL2D ||
            layers[l].kind == TDM_LAYER_AVG_POOL2D || layers[l].kind == TDM_LAYER_GLOBAL_AVG_POOL2D)
            return 1;
    return 0;
}
