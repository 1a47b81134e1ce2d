/* The stacked string of layers (tandem/model_text.h) and the items the graph text
 * shares with it (model/layer_text.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/layer_text.h"

#define MAX_UNITS 65536
#define MAX_WINDOW 4096
#define MAX_SKIP 64          /* more than a model has layers */
#define MAX_VOCAB (1u << 24) /* tdm_layer.vocab's */
#define MAX_HEADS 1024

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

/* What follows a kind's word in an item. */
typedef enum settings {
    NONE,   /* bn */
    UNITS,  /* 128 */
    CONV,   /* 32k3, then the window's stride and padding */
    WINDOW, /* 2, then the window's stride and padding */
    SKIP,   /* res2 */
    VOCAB,  /* emb256x8 */
    MERGE,  /* add: a graph's line names its inputs */
    HEADS,  /* mha4, then "full" for no causal mask */
    HIDDEN  /* ffn, ffn512: units or none */
} settings;

static const char *const settings_form[] = {
    [NONE] = "",         [UNITS] = "<units>", [CONV] = "<filters>k<size>",
    [WINDOW] = "<size>", [SKIP] = "<layers>", [VOCAB] = "<vocab>x<units>", [MERGE] = "",
    [HEADS] = "<heads>[full]", [HIDDEN] = "[<units>]",
};

/* Each kind's item: the word that starts it (which formatting writes), another word
 * it may start with, its settings, and for help an example and what that is. The
 * test checks that every kind the library lists has one, and that its example reads
 * back as that kind. */
static const struct form {
    const char *word, *alias;
    settings settings;
    const char *example, *what;
} forms[TDM_LAYER_KIND_COUNT] = {
    [TDM_LAYER_DENSE] = {"", "dense", UNITS, "128", NULL},
    [TDM_LAYER_CONV2D] = {"conv", NULL, CONV, "conv32k3",
                          "32 filters of 3x3; k5x3: 5 high, 3 wide"},
    [TDM_LAYER_MAX_POOL2D] = {"pool", "maxpool", WINDOW, "pool2", "the largest of each 2x2"},
    [TDM_LAYER_AVG_POOL2D] = {"avgpool", NULL, WINDOW, "avgpool2", "the mean of each 2x2"},
    [TDM_LAYER_BATCH_NORM] = {"bn", NULL, NONE, "bn",
                              "statistics of the global batch over every replica"},
    [TDM_LAYER_LAYER_NORM] = {"ln", NULL, NONE, "ln", "over each position's channels"},
    [TDM_LAYER_RESIDUAL] = {"res", NULL, SKIP, "res2",
                            "adds the input of the 2 layers before it to their output"},
    [TDM_LAYER_EMBEDDING] = {"emb", NULL, VOCAB, "emb256x8",
                             "first only: each feature an id below 256, looked up as 8 values"},
    [TDM_LAYER_GLOBAL_AVG_POOL2D] = {"gap", NULL, NONE, "gap",
                                     "each channel's mean over the whole image"},
    [TDM_LAYER_ADD] = {"add", NULL, MERGE, "add", "a graph's: the sum of its inputs"},
    [TDM_LAYER_CONCATENATE] = {"concatenate", "concat", MERGE, "concatenate",
                               "a graph's: its inputs side by side, channel after channel"},
    [TDM_LAYER_MULTIPLY] = {"multiply", NULL, MERGE, "multiply",
                            "a graph's: the elementwise product of its inputs"},
    [TDM_LAYER_POSITION_EMBEDDING] = {"pos", NULL, NONE, "pos",
                                      "a learned vector added at each position of a sequence"},
    [TDM_LAYER_ATTENTION] = {"mha", NULL, HEADS, "mha4",
                             "causal self-attention of 4 heads; mha4full: every position "
                             "sees every other"},
    [TDM_LAYER_FEED_FORWARD] = {"ffn", NULL, HIDDEN, "ffn512",
                                "each position's MLP: 512 hidden units with GELU, back to its "
                                "channels; ffn: 4x the channels"},
};

/* The kind whose word (or other word) starts the item at *p, moving p past it; dense,
 * the kind with no word, when none does. */
static tdm_layer_kind kind_at(const char **p)
{
    for (size_t k = 0; k < TDM_LAYER_KIND_COUNT; k++) {
        const struct form *f = &forms[k];
        if ((f->word && *f->word && starts(p, f->word)) || (f->alias && starts(p, f->alias)))
            return (tdm_layer_kind)k;
    }
    return TDM_LAYER_DENSE;
}

int tdm_layer_item_parse(const char *p, tdm_layer *d)
{
    memset(d, 0, sizeof *d); /* padding too: layers read alike compare alike */
    d->kind = kind_at(&p);
    switch (forms[d->kind].settings) {
    case NONE:
    case MERGE: break;
    case UNITS:
        d->units = number(&p, MAX_UNITS);
        if (!d->units)
            return -1;
        break;
    case CONV:
        d->units = number(&p, MAX_UNITS);
        if (!d->units || window(&p, d, 1))
            return -1;
        break;
    case WINDOW:
        if (window(&p, d, 0))
            return -1;
        break;
    case SKIP:
        d->skip = number(&p, MAX_SKIP);
        if (!d->skip)
            return -1;
        break;
    case VOCAB:
        d->vocab = number(&p, MAX_VOCAB);
        d->units = starts(&p, "x") ? number(&p, MAX_UNITS) : 0;
        if (!d->vocab || !d->units)
            return -1;
        break;
    case HEADS:
        d->heads = number(&p, MAX_HEADS);
        d->causal = !starts(&p, "full");
        if (!d->heads)
            return -1;
        break;
    case HIDDEN:
        d->units = *p ? number(&p, MAX_UNITS) : 0;
        if (*p)
            return -1;
        break;
    }
    return *p ? -1 : 0;
}

/* A kind's form for help and messages: "conv<filters>k<size>", "<units> or
 * dense<units>". */
static void form_text(const struct form *f, char *buf, size_t size)
{
    const char *set = settings_form[f->settings];
    if (f->alias)
        snprintf(buf, size, "%s%s or %s%s", f->word, set, f->alias, set);
    else
        snprintf(buf, size, "%s%s", f->word, set);
}

const char *tdm_layer_example(tdm_layer_kind kind)
{
    return (unsigned)kind < TDM_LAYER_KIND_COUNT ? forms[kind].example : NULL;
}

void tdm_layers_help(char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < TDM_LAYER_KIND_COUNT && used < size; k++) {
        const struct form *f = &forms[k];
        char form[64];
        if (!f->word)
            continue;
        form_text(f, form, sizeof form);
        int plain = f->settings == NONE || f->settings == MERGE; /* bn: no example to give */
        used += (size_t)snprintf(buf + used, size - used, "\n%s: %s%s%s%s%s%s",
                                 tdm_layer_kind_name((tdm_layer_kind)k), form,
                                 plain ? "" : ", e.g. ", plain ? "" : f->example,
                                 f->what ? " (" : "", f->what ? f->what : "", f->what ? ")" : "");
    }
    if (used < size)
        snprintf(buf + used, size - used,
                 "\nblock<heads>[full], e.g. block4 (a pre-norm transformer block: "
                 "ln,mha4,res2,ln,ffn,res2)");
}

tdm_status tdm_layer_item_refused(const char *func, const char *one, size_t len)
{
    char forms_text[768], form[64];
    size_t used = 0;
    forms_text[0] = '\0';
    for (size_t k = 1; k < TDM_LAYER_KIND_COUNT && used < sizeof forms_text; k++) {
        form_text(&forms[k], form, sizeof form);
        used += (size_t)snprintf(forms_text + used, sizeof forms_text - used, ", %s", form);
    }
    form_text(&forms[0], form, sizeof form);
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                    "%s: '%.20s%s' is not a layer: give %s (1 to %d)%s; a window then takes "
                    "s<stride> and valid; block<heads>[full] is a transformer block",
                    func, one, len > 20 ? "..." : "", form, MAX_UNITS, forms_text);
}

/* The layers of a pre-norm transformer block, block<heads>[full]: x + attention(ln(x)),
 * then that + ffn(ln(that)); 0, or -1 when the item is none. */
enum { BLOCK_LAYERS = 6 };
static int block_parse(const char *p, tdm_layer block[BLOCK_LAYERS])
{
    if (!starts(&p, "block"))
        return -1;
    tdm_layer attention = {.kind = TDM_LAYER_ATTENTION};
    attention.heads = number(&p, MAX_HEADS);
    attention.causal = !starts(&p, "full");
    if (!attention.heads || *p)
        return -1;
    memset(block, 0, BLOCK_LAYERS * sizeof *block);
    block[0].kind = block[3].kind = TDM_LAYER_LAYER_NORM;
    block[1] = attention;
    block[2] = (tdm_layer)TDM_RESIDUAL(2);
    block[4].kind = TDM_LAYER_FEED_FORWARD;
    block[5] = (tdm_layer)TDM_RESIDUAL(2);
    return 0;
}

tdm_status tdm_layers_parse(const char *text, tdm_layer *layers, size_t max, size_t *count)
{
    TDM_CHECK_ARG(text, "tdm_layers_parse");
    TDM_CHECK_ARG(layers, "tdm_layers_parse");
    TDM_CHECK_ARG(count, "tdm_layers_parse");
    *count = 0;
    for (const char *p = text;; p++) {
        char one[48];
        size_t len = strcspn(p, ",");
        if (*count == max)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_layers_parse: at most %zu layers",
                            max);
        snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one - 1 ? len : sizeof one - 1), p);
        tdm_layer block[BLOCK_LAYERS];
        if (len < sizeof one && block_parse(one, block) == 0) {
            if (max - *count < BLOCK_LAYERS)
                return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                                "tdm_layers_parse: at most %zu layers (a block is %d)", max,
                                BLOCK_LAYERS);
            memcpy(&layers[*count], block, sizeof block);
            *count += BLOCK_LAYERS;
        } else if (len >= sizeof one || tdm_layer_item_parse(one, &layers[*count]) != 0) {
            return tdm_layer_item_refused("tdm_layers_parse", one, len);
        } else {
            ++*count;
        }
        p += len;
        if (!*p)
            return TDM_OK;
    }
}

/* "<a>" or "<a>x<b>" */
static int pair(char *buf, size_t size, size_t a, size_t b)
{
    return a == b ? snprintf(buf, size, "%zu", a) : snprintf(buf, size, "%zux%zu", a, b);
}

void tdm_layer_item_format(const tdm_layer *d, char *buf, size_t size)
{
    if ((unsigned)d->kind >= TDM_LAYER_KIND_COUNT || !forms[d->kind].word) {
        snprintf(buf, size, "%s", tdm_layer_kind_name(d->kind)); /* no form to read back */
        return;
    }
    const struct form *f = &forms[d->kind];
    char window[48] = "", stride[48] = "";
    switch (f->settings) {
    case NONE:
    case MERGE: snprintf(buf, size, "%s", f->word); return;
    case UNITS: snprintf(buf, size, "%s%zu", f->word, d->units); return;
    case SKIP: snprintf(buf, size, "%s%zu", f->word, d->skip); return;
    case VOCAB: snprintf(buf, size, "%s%zux%zu", f->word, d->vocab, d->units); return;
    case HEADS: snprintf(buf, size, "%s%zu%s", f->word, d->heads, d->causal ? "" : "full"); return;
    case HIDDEN:
        if (d->units)
            snprintf(buf, size, "%s%zu", f->word, d->units);
        else
            snprintf(buf, size, "%s", f->word);
        return;
    case CONV:
    case WINDOW: break;
    }
    pair(window, sizeof window, d->kernel_h, d->kernel_w);
    int pool = f->settings == WINDOW;
    size_t sh = d->stride_h ? d->stride_h : pool ? d->kernel_h : 1;
    size_t sw = d->stride_w ? d->stride_w : pool ? d->kernel_w : 1;
    if (sh != (pool ? d->kernel_h : 1) || sw != (pool ? d->kernel_w : 1)) {
        stride[0] = 's';
        pair(stride + 1, sizeof stride - 1, sh, sw);
    }
    const char *valid = d->padding == TDM_PADDING_VALID ? "valid" : "";
    if (pool)
        snprintf(buf, size, "%s%s%s%s", f->word, window, stride, valid);
    else
        snprintf(buf, size, "%s%zuk%s%s%s", f->word, d->units, window, stride, valid);
}

void tdm_layers_format(const tdm_layer *layers, size_t count, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t l = 0; l < count && used < size; l++) {
        char one[64];
        tdm_layer_item_format(&layers[l], one, sizeof one);
        used += (size_t)snprintf(buf + used, size - used, "%s%s", l ? "," : "", one);
    }
}

int tdm_layers_need_image(const tdm_layer *layers, size_t count)
{
    for (size_t l = 0; l < count; l++)
        if (tdm_layer_kind_traits(layers[l].kind) & TDM_LAYER_NEEDS_IMAGE)
            return 1;
    return 0;
}
