/* Datasets over a copy of the caller's arrays: class labels, sequences of class
 * labels, float targets. */
#include <math.h>
#include <string.h>

#include "input/dataset_impl.h"
#include "base/error.h"

/* What the caller hands over, and the function that was called. */
typedef struct arrays {
    const char *func, *labels_name; /* "labels" or "targets" */
    const float *features;
    const void *labels;
    size_t count, feature_count, label_width, class_count;
    tdm_dtype label_dtype;
    int masks; /* a negative class label masks its position */
} arrays;

static tdm_status check_shape(const arrays *a)
{
    if (!a->features || !a->labels)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", a->func,
                        a->features ? a->labels_name : "features");
    if (!a->count || !a->feature_count || !a->label_width)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: example_count %zu, feature_count %zu and the label width %zu "
                        "must be > 0",
                        a->func, a->count, a->feature_count, a->label_width);
    return TDM_OK;
}

static tdm_status check_classes(const arrays *a)
{
    const int32_t *labels = a->labels;
    for (size_t i = 0; i < a->count * a->label_width; i++) {
        if (labels[i] < 0 && a->masks)
            continue;
        if (labels[i] < 0 || (a->class_count && (size_t)labels[i] >= a->class_count))
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: labels[%zu] is %d, not a class index in [0, %zu)", a->func, i,
                            (int)labels[i], a->class_count ? a->class_count : (size_t)INT32_MAX);
    }
    return TDM_OK;
}

static tdm_status check_finite(const char *func, const char *what, const float *x, size_t rows,
                               size_t width)
{
    for (size_t i = 0; i < rows * width; i++)
        if (!isfinite(x[i]))
            return tdm_fail(TDM_ERR_NUMERIC, "%s: %s %zu of example %zu is %g", func, what,
                            i % width, i / width, (double)x[i]);
    return TDM_OK;
}

/* After tdm_table_create, which has checked that the arrays' sizes fit. */
static tdm_status check_values(const arrays *a)
{
    tdm_status s = a->label_dtype == TDM_I32
                       ? check_classes(a)
                       : check_finite(a->func, "target", a->labels, a->count, a->label_width);
    return s != TDM_OK ? s
                       : check_finite(a->func, "feature", a->features, a->count, a->feature_count);
}

static tdm_status from_arrays(const arrays *a, tdm_dataset **out)
{
    TDM_CHECK_ARG(out, a->func);
    *out = NULL;
    tdm_status s = check_shape(a);
    tdm_table *t = NULL;
    if (s == TDM_OK)
        s = tdm_table_create(a->count, a->feature_count, a->label_dtype, a->label_width, &t);
    if (s == TDM_OK)
        s = check_values(a);
    if (s != TDM_OK) {
        tdm_table_release(t);
        return s;
    }
    memcpy(t->features, a->features, a->count * a->feature_count * sizeof(float));
    memcpy(t->labels, a->labels, a->count * tdm_table_label_bytes(t));
    return tdm_dataset_wrap(t, a->class_count, out);
}

tdm_status tdm_dataset_from_arrays(const float *features, const int32_t *labels,
                                   size_t example_count, size_t feature_count, size_t class_count,
                                   tdm_dataset **out)
{
    const arrays a = {"tdm_dataset_from_arrays", "labels", features, labels, example_count, feature_count,
                      1, class_count, TDM_I32, 0};
    return from_arrays(&a, out);
}

tdm_status tdm_dataset_from_sequences(const float *features, const int32_t *labels,
                                      size_t example_count, size_t feature_count,
                                      size_t label_width, size_t class_count, tdm_dataset **out)
{
    const arrays a = {"tdm_dataset_from_sequences", "labels", features, labels, example_count,
                      feature_count, label_width, class_count, TDM_I32, 1};
    return from_arrays(&a, out);
}

tdm_status tdm_dataset_from_targets(const float *features, const float *targets,
                                    size_t example_count, size_t feature_count,
                                    size_t target_width, tdm_dataset **out)
{
    const arrays a = {"tdm_dataset_from_targets", "targets", features, targets, example_count,
                      feature_count, target_width, 0, TDM_F32, 0};
    return from_arrays(&a, out);
}
