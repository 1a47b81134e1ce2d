/* The shared table of examples, and what a valid label is. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "input/dataset_impl.h"
#include "base/error.h"

tdm_status tdm_table_create(size_t rows, size_t feature_count, tdm_dtype label_dtype,
                            size_t label_width, tdm_table **out)
{
    *out = NULL;
    if (rows > SIZE_MAX / sizeof(float) / feature_count ||
        rows > SIZE_MAX / sizeof(float) / label_width)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "a table of %zu examples of %zu features and %zu labels is too large",
                        rows, feature_count, label_width);
    tdm_table *t = calloc(1, sizeof *t);
    if (t) {
        t->label_dtype = label_dtype;
        t->label_width = label_width;
        t->features = malloc(rows * feature_count * sizeof(float));
        t->labels = malloc(rows * tdm_table_label_bytes(t));
    }
    if (!t || !t->features || !t->labels) {
        tdm_table_release(t);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "no host memory for %zu examples of %zu features",
                        rows, feature_count);
    }
    atomic_init(&t->refs, 1);
    t->rows = rows;
    t->feature_count = feature_count;
    *out = t;
    return TDM_OK;
}

size_t tdm_table_label_bytes(const tdm_table *t)
{
    return t->label_width * 4; /* int32 classes and float targets alike */
}

void tdm_table_shrink(tdm_table *t, size_t rows)
{
    float *features = realloc(t->features, rows * t->feature_count * sizeof(float));
    void *labels = realloc(t->labels, rows * tdm_table_label_bytes(t));
    /* A failed shrink keeps the larger block, which is just as good. */
    if (features)
        t->features = features;
    if (labels)
        t->labels = labels;
    t->rows = rows;
}

void tdm_table_release(tdm_table *t)
{
    if (!t || atomic_fetch_sub(&t->refs, 1) > 1)
        return;
    free(t->features);
    free(t->labels);
    free(t);
}

int tdm_label_from_value(double value, size_t class_count, size_t max_class_count, int32_t *out,
                         char *why, size_t why_size)
{
    if (!(value >= 0 && value <= INT32_MAX - 1) || value != floor(value)) {
        snprintf(why, why_size, "label %g is not a class index (an integer >= 0)", value);
        return -1;
    }
    if (class_count && value >= (double)class_count) {
        snprintf(why, why_size, "label %g is out of range [0, %zu)", value, class_count);
        return -1;
    }
    if (!class_count && max_class_count && value >= (double)max_class_count) {
        snprintf(why, why_size,
                 "label %.0f would make %.0f classes, more than the limit of %zu "
                 "(max_class_count)",
                 value, value + 1, max_class_count);
        return -1;
    }
    *out = (int32_t)value;
    return 0;
}
