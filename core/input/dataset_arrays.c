/* tdm_dataset_from_arrays: a dataset over a copy of the caller's arrays. */
#include <math.h>
#include <string.h>

#include "input/dataset_impl.h"
#include "base/error.h"

static const char *const func = "tdm_dataset_from_arrays";

static tdm_status check_shape(const float *features, const int32_t *labels, size_t count,
                              size_t feature_count)
{
    TDM_CHECK_ARG(features, func);
    TDM_CHECK_ARG(labels, func);
    if (!count || !feature_count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: example_count %zu and feature_count %zu must be > 0", func, count,
                        feature_count);
    return TDM_OK;
}

/* After tdm_table_create, which has checked that count * feature_count fits. */
static tdm_status check_values(const float *features, const int32_t *labels, size_t count,
                               size_t feature_count, size_t class_count)
{
    for (size_t i = 0; i < count; i++)
        if (labels[i] < 0 || (class_count && (size_t)labels[i] >= class_count))
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: labels[%zu] is %d, not a class index in [0, %zu)", func, i,
                            (int)labels[i], class_count ? class_count : (size_t)INT32_MAX);
    for (size_t i = 0; i < count * feature_count; i++)
        if (!isfinite(features[i]))
            return tdm_fail(TDM_ERR_NUMERIC, "%s: feature %zu of example %zu is %g", func,
                            i % feature_count, i / feature_count, (double)features[i]);
    return TDM_OK;
}

tdm_status tdm_dataset_from_arrays(const float *features, const int32_t *labels,
                                   size_t example_count, size_t feature_count, size_t class_count,
                                   tdm_dataset **out)
{
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    tdm_status s = check_shape(features, labels, example_count, feature_count);
    tdm_table *t = NULL;
    if (s == TDM_OK)
        s = tdm_table_create(example_count, feature_count, &t);
    if (s == TDM_OK)
        s = check_values(features, labels, example_count, feature_count, class_count);
    if (s != TDM_OK) {
        tdm_table_release(t);
        return s;
    }
    memcpy(t->features, features, example_count * feature_count * sizeof(float));
    memcpy(t->labels, labels, example_count * sizeof(int32_t));
    return tdm_dataset_wrap(t, class_count, out);
}
