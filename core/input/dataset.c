/* Datasets: creation over a table, copies, properties and the map stages. */
#include <stdlib.h>
#include <string.h>

#include "input/dataset_impl.h"
#include "base/error.h"

static tdm_status no_memory(const char *what)
{
    return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "no host memory for %s", what);
}

tdm_status tdm_dataset_wrap(tdm_table *t, size_t class_count, tdm_dataset **out)
{
    *out = NULL;
    tdm_dataset *ds = calloc(1, sizeof *ds);
    size_t *rows = malloc(t->rows * sizeof *rows);
    if (!ds || !rows) {
        free(ds);
        free(rows);
        tdm_table_release(t);
        return no_memory("a dataset's rows");
    }
    size_t max_label = 0, values = t->rows * t->label_width;
    const int32_t *classes = t->labels;
    for (size_t i = 0; i < t->rows; i++)
        rows[i] = i;
    /* A masked position (a negative label) names no class. */
    for (size_t i = 0; t->label_dtype == TDM_I32 && i < values; i++)
        if (classes[i] >= 0 && (size_t)classes[i] > max_label)
            max_label = (size_t)classes[i];
    ds->table = t;
    ds->rows = rows;
    ds->row_count = t->rows;
    if (t->label_dtype == TDM_I32)
        ds->class_count = class_count ? class_count : max_label + 1;
    ds->epochs = 1;
    *out = ds;
    return TDM_OK;
}

static tdm_status copy_maps(tdm_dataset *dst, const tdm_dataset *src)
{
    if (!src->map_count)
        return TDM_OK;
    dst->maps = calloc(src->map_count, sizeof *dst->maps);
    if (!dst->maps)
        return no_memory("a dataset's maps");
    size_t owned_size = 2 * src->table->feature_count * sizeof(float);
    for (size_t i = 0; i < src->map_count; i++) {
        dst->maps[i] = src->maps[i];
        dst->maps[i].owned = NULL;
        dst->map_count = i + 1;
        if (!src->maps[i].owned)
            continue;
        dst->maps[i].owned = malloc(owned_size);
        if (!dst->maps[i].owned)
            return no_memory("a dataset's maps");
        memcpy(dst->maps[i].owned, src->maps[i].owned, owned_size);
        dst->maps[i].user = dst->maps[i].owned;
    }
    return TDM_OK;
}

tdm_status tdm_dataset_clone(const tdm_dataset *ds, const size_t *rows, size_t row_count,
                             tdm_dataset **out)
{
    *out = NULL;
    if (!rows)
        rows = ds->rows;
    tdm_dataset *copy = malloc(sizeof *copy);
    if (!copy)
        return no_memory("a dataset");
    *copy = *ds;
    copy->maps = NULL;
    copy->map_count = 0;
    copy->row_count = row_count;
    copy->rows = malloc(row_count * sizeof *rows + 1); /* + 1: an empty part is valid */
    atomic_fetch_add(&ds->table->refs, 1);
    if (!copy->rows) {
        tdm_dataset_destroy(copy);
        return no_memory("a dataset's rows");
    }
    memcpy(copy->rows, rows, row_count * sizeof *rows);
    tdm_status s = copy_maps(copy, ds);
    if (s != TDM_OK) {
        tdm_dataset_destroy(copy);
        return s;
    }
    *out = copy;
    return TDM_OK;
}

void tdm_dataset_destroy(tdm_dataset *ds)
{
    if (!ds)
        return;
    for (size_t i = 0; i < ds->map_count; i++)
        free(ds->maps[i].owned);
    free(ds->maps);
    free(ds->rows);
    tdm_table_release(ds->table);
    free(ds);
}

tdm_status tdm_dataset_apply_maps(const tdm_dataset *ds, float *features, size_t count,
                                  const char *func)
{
    for (size_t i = 0; i < ds->map_count; i++) {
        const tdm_map_stage *m = &ds->maps[i];
        tdm_status s = m->fn(features, count, ds->table->feature_count, m->user);
        if (s != TDM_OK)
            return tdm_fail(s, "%s: map function %zu of %zu returned %s", func, i + 1,
                            ds->map_count, tdm_status_str(s));
    }
    return TDM_OK;
}

tdm_status tdm_dataset_examples(const tdm_dataset *ds, float *features, void *labels,
                                const char *func)
{
    const tdm_table *t = ds->table;
    size_t fc = t->feature_count, full = tdm_dataset_full_batch(ds);
    size_t lb = tdm_table_label_bytes(t);
    for (size_t j = 0; j < ds->row_count; j++) {
        memcpy(features + j * fc, t->features + ds->rows[j] * fc, fc * sizeof(float));
        memcpy((char *)labels + j * lb, (const char *)t->labels + ds->rows[j] * lb, lb);
    }
    for (size_t first = 0; first < ds->row_count; first += full) {
        size_t count = ds->row_count - first < full ? ds->row_count - first : full;
        tdm_status s = tdm_dataset_apply_maps(ds, features + first * fc, count, func);
        if (s != TDM_OK)
            return s;
    }
    return TDM_OK;
}

size_t tdm_dataset_full_batch(const tdm_dataset *ds)
{
    return ds->batch_size ? ds->batch_size : 1;
}

size_t tdm_dataset_feature_count(const tdm_dataset *ds)
{
    return ds ? ds->table->feature_count : 0;
}

size_t tdm_dataset_class_count(const tdm_dataset *ds)
{
    return ds ? ds->class_count : 0;
}

tdm_dtype tdm_dataset_label_dtype(const tdm_dataset *ds)
{
    return ds ? ds->table->label_dtype : TDM_I32;
}

size_t tdm_dataset_label_width(const tdm_dataset *ds)
{
    return ds ? ds->table->label_width : 0;
}

size_t tdm_dataset_example_count(const tdm_dataset *ds)
{
    return ds ? ds->row_count : 0;
}

size_t tdm_dataset_batch_size(const tdm_dataset *ds)
{
    return ds ? ds->batch_size : 0;
}

size_t tdm_dataset_batches_per_epoch(const tdm_dataset *ds)
{
    if (!ds)
        return 0;
    size_t b = tdm_dataset_full_batch(ds);
    /* Rounded up without row_count + b - 1, which wraps for a huge batch. */
    return ds->row_count / b + (!ds->drop_remainder && ds->row_count % b);
}
