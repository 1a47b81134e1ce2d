/* Per-feature statistics and the standardising map built from them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/dataset_impl.h"
#include "base/error.h"
#include "input/standardize.h"

#define STATS_CHUNK 256 /* rows gathered and mapped at a time */

typedef struct welford {
    size_t n;
    double *mean;
    double *m2; /* sum of squared deviations from the running mean */
} welford;

/* Welford's update: one pass, no cancellation between large sums. */
static void welford_add(welford *w, const float *rows, size_t count, size_t feature_count)
{
    for (size_t r = 0; r < count; r++) {
        w->n++;
        for (size_t f = 0; f < feature_count; f++) {
            double x = rows[r * feature_count + f];
            double delta = x - w->mean[f];
            w->mean[f] += delta / (double)w->n;
            w->m2[f] += delta * (x - w->mean[f]);
        }
    }
}

/* Feeds ds's examples, gathered and mapped as an iterator would deliver them. */
static tdm_status accumulate(const tdm_dataset *ds, float *chunk, welford *w, const char *func)
{
    const tdm_table *t = ds->table;
    for (size_t first = 0; first < ds->row_count; first += STATS_CHUNK) {
        size_t count = ds->row_count - first < STATS_CHUNK ? ds->row_count - first : STATS_CHUNK;
        for (size_t i = 0; i < count; i++)
            memcpy(chunk + i * t->feature_count,
                   t->features + ds->rows[first + i] * t->feature_count,
                   t->feature_count * sizeof(float));
        tdm_status s = tdm_dataset_apply_maps(ds, chunk, count, func);
        if (s != TDM_OK)
            return s;
        welford_add(w, chunk, count, t->feature_count);
    }
    return TDM_OK;
}

tdm_status tdm_dataset_feature_stats(const tdm_dataset *ds, float *mean, float *std)
{
    const char *func = "tdm_dataset_feature_stats";
    TDM_CHECK_ARG(ds, func);
    TDM_CHECK_ARG(mean, func);
    TDM_CHECK_ARG(std, func);
    if (!ds->row_count)
        return tdm_fail(TDM_ERR_INVALID_STATE, "%s: the dataset has no examples", func);
    size_t fc = ds->table->feature_count;
    welford w = {0, calloc(fc, sizeof(double)), calloc(fc, sizeof(double))};
    float *chunk = malloc(STATS_CHUNK * fc * sizeof(float));
    tdm_status s = TDM_OK;
    if (!w.mean || !w.m2 || !chunk)
        s = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: no host memory for %zu features", func, fc);
    if (s == TDM_OK)
        s = accumulate(ds, chunk, &w, func);
    for (size_t f = 0; s == TDM_OK && f < fc; f++) {
        mean[f] = (float)w.mean[f];
        std[f] = (float)sqrt(w.m2[f] / (double)w.n);
    }
    free(w.mean);
    free(w.m2);
    free(chunk);
    return s;
}

void tdm_standardize_rows(float *rows, size_t count, size_t feature_count, const float *params)
{
    const float *mean = params, *divisor = params + feature_count;
    for (size_t r = 0; r < count; r++)
        for (size_t f = 0; f < feature_count; f++)
            rows[r * feature_count + f] = (rows[r * feature_count + f] - mean[f]) / divisor[f];
}

void tdm_standardize_params(const float *mean, const float *std, size_t feature_count,
                            float *params)
{
    for (size_t f = 0; f < feature_count; f++) {
        params[f] = mean[f];
        params[feature_count + f] = std[f] > 0 ? std[f] : 1.0f;
    }
}

/* The map: user holds the params. */
static tdm_status standardize_map(float *features, size_t count, size_t feature_count, void *user)
{
    tdm_standardize_rows(features, count, feature_count, user);
    return TDM_OK;
}

tdm_status tdm_standardize_check(const float *mean, const float *std, size_t fc, const char *func)
{
    for (size_t f = 0; f < fc; f++)
        if (!isfinite(mean[f]) || !isfinite(std[f]) || std[f] < 0)
            return tdm_fail(
                TDM_ERR_INVALID_ARGUMENT,
                "%s: feature %zu has mean %g and std %g; expected finite values and std >= 0", func,
                f, (double)mean[f], (double)std[f]);
    return TDM_OK;
}

tdm_status tdm_dataset_standardize(tdm_dataset *ds, const float *mean, const float *std)
{
    const char *func = "tdm_dataset_standardize";
    TDM_CHECK_ARG(ds, func);
    TDM_CHECK_ARG(mean, func);
    TDM_CHECK_ARG(std, func);
    size_t fc = ds->table->feature_count;
    tdm_status s = tdm_standardize_check(mean, std, fc, func);
    if (s != TDM_OK)
        return s;
    float *params = malloc(2 * fc * sizeof(float));
    if (!params)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: no host memory", func);
    tdm_standardize_params(mean, std, fc, params);
    tdm_map_stage stage = {.fn = standardize_map, .user = params, .owned = params};
    return tdm_dataset_push_map(ds, &stage);
}
