/* A text as a language model's data: windows of its bytes, each position's label the
 * byte after it, the last part held out for validation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "input/dataset_impl.h"
#include "input/file_read.h"

#define BYTE_VALUES 256

/* Windows of context + 1 bytes every stride bytes that fit in `size` bytes. */
static size_t window_count(size_t size, size_t context, size_t stride)
{
    return size > context ? (size - context - 1) / stride + 1 : 0;
}

/* The windows of text[0, size) as a dataset of byte ids and next-byte labels. */
static tdm_status windows(const unsigned char *text, size_t size, size_t context, size_t stride,
                          tdm_dataset **out)
{
    size_t rows = window_count(size, context, stride);
    tdm_table *t = NULL;
    tdm_status s = tdm_table_create(rows, context, TDM_I32, context, &t);
    if (s != TDM_OK)
        return s;
    int32_t *labels = t->labels;
    for (size_t r = 0; r < rows; r++) {
        const unsigned char *w = text + r * stride;
        for (size_t p = 0; p < context; p++) {
            t->features[r * context + p] = (float)w[p];
            labels[r * context + p] = (int32_t)w[p + 1];
        }
    }
    return tdm_dataset_wrap(t, BYTE_VALUES, out);
}

/* Why a part (`what`, which says its bytes) holds no window. */
static tdm_status too_short(const char *func, const char *name, const char *what, size_t context)
{
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                    "%s: %s: its %s is shorter than one window of context + 1 = %zu bytes: "
                    "give a longer text or a shorter context",
                    func, name, what, context + 1);
}

/* noun: what the caller handed over ("file", "text"), for the empty one's message. */
static tdm_status check_text(const char *func, const char *name, const char *noun, const char *text,
                             size_t size)
{
    if (!size)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: %s: the %s is empty", func, name, noun);
    const char *nul = memchr(text, '\0', size);
    if (nul)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s: byte %zu is NUL: a binary file (or UTF-16), not text; "
                        "convert it to UTF-8",
                        func, name, (size_t)(nul - text) + 1);
    return TDM_OK;
}

static tdm_status check_args(const char *func, const void *source, size_t context, size_t stride,
                             double fraction, tdm_dataset **train, tdm_dataset **validation)
{
    TDM_CHECK_ARG(source, func);
    TDM_CHECK_ARG(train, func);
    TDM_CHECK_ARG(validation, func);
    *train = *validation = NULL;
    if (!context || !stride || !(fraction > 0.0 && fraction < 1.0))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: context %zu and stride %zu must be > 0, validation_fraction "
                        "%g in (0, 1)",
                        func, context, stride, fraction);
    return TDM_OK;
}

/* The windows of text[0, size), a text checked already, cut and held out. */
static tdm_status cut_text(const char *func, const char *name, const unsigned char *bytes,
                           size_t size, size_t context, size_t stride, double validation_fraction,
                           tdm_dataset **train, tdm_dataset **validation, tdm_text_layout *layout)
{
    /* the training part ends on a window's start, the validation part's first */
    size_t cut = (size_t)((double)size * (1.0 - validation_fraction)) / stride * stride;
    char what[160];
    if (!window_count(cut, context, stride)) {
        snprintf(what, sizeof what,
                 "training part (its first %zu of %zu bytes, cut at a multiple of the stride "
                 "%zu)",
                 cut, size, stride);
        return too_short(func, name, what, context);
    }
    if (!window_count(size - cut, context, stride)) {
        snprintf(what, sizeof what, "held-out part (its last %zu of %zu bytes)", size - cut, size);
        return too_short(func, name, what, context);
    }
    tdm_status s = windows(bytes, cut, context, stride, train);
    if (s == TDM_OK)
        s = windows(bytes + cut, size - cut, context, stride, validation);
    if (s != TDM_OK) {
        tdm_dataset_destroy(*train);
        *train = NULL;
        return s;
    }
    if (layout)
        *layout = (tdm_text_layout){.bytes = size, .train_bytes = cut};
    return TDM_OK;
}

tdm_status tdm_dataset_from_text(const char *path, size_t context, size_t stride,
                                 double validation_fraction, tdm_dataset **train,
                                 tdm_dataset **validation, tdm_text_layout *layout)
{
    const char *func = "tdm_dataset_from_text";
    tdm_status s = check_args(func, path, context, stride, validation_fraction, train, validation);
    char *text = NULL;
    size_t size = 0;
    if (s == TDM_OK)
        s = tdm_read_file(path, func, &text, &size);
    if (s == TDM_OK)
        s = check_text(func, path, "file", text, size);
    if (s == TDM_OK)
        s = cut_text(func, path, (const unsigned char *)text, size, context, stride,
                     validation_fraction, train, validation, layout);
    free(text);
    return s;
}

tdm_status tdm_dataset_from_text_bytes(const void *text, size_t size, const char *name,
                                       size_t context, size_t stride, double validation_fraction,
                                       tdm_dataset **train, tdm_dataset **validation,
                                       tdm_text_layout *layout)
{
    const char *func = "tdm_dataset_from_text_bytes";
    tdm_status s = check_args(func, text, context, stride, validation_fraction, train, validation);
    if (s != TDM_OK)
        return s;
    TDM_CHECK_ARG(name, func);
    s = check_text(func, name, "text", text, size);
    return s == TDM_OK ? cut_text(func, name, text, size, context, stride, validation_fraction,
                                  train, validation, layout)
                       : s;
}
