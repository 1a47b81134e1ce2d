/* Iterators: each epoch's order, batches gathered into contiguous arrays, positions. */
#include <stdlib.h>
#include <string.h>

#include "input/dataset_impl.h"
#include "base/error.h"
#include "input/shuffle.h"

struct tdm_dataset_iterator {
    tdm_dataset *ds; /* a private snapshot of the pipeline */
    size_t *order;   /* epoch `order_epoch`'s examples (indices into ds->rows), in
                        delivery order */
    uint64_t order_epoch;
    int order_valid;
    tdm_dataset_position pos;
    size_t batches_per_epoch;
    float *features; /* the current batch */
    void *labels;
    tdm_batch batch;
};

static int at_end(const tdm_dataset_iterator *it)
{
    return it->batches_per_epoch == 0 || it->pos.epoch >= it->ds->epochs;
}

static void prepare_order(tdm_dataset_iterator *it)
{
    const tdm_dataset *ds = it->ds;
    if (it->order_valid && it->order_epoch == it->pos.epoch)
        return;
    for (size_t i = 0; i < ds->row_count; i++)
        it->order[i] = i;
    /* The shuffle moves positions whatever they hold: the table rows it delivers are
     * those of shuffling ds->rows itself. */
    if (ds->shuffled)
        tdm_shuffle(it->order, ds->row_count, ds->seed, it->pos.epoch);
    it->order_epoch = it->pos.epoch;
    it->order_valid = 1;
}

/* The current batch's examples: a run of `order`; returns their count. */
static size_t batch_examples(const tdm_dataset_iterator *it, const size_t **examples)
{
    const tdm_dataset *ds = it->ds;
    size_t full = tdm_dataset_full_batch(ds);
    size_t first = (size_t)it->pos.batch * full;
    *examples = it->order + first;
    return ds->row_count - first < full ? ds->row_count - first : full;
}

static size_t gather(tdm_dataset_iterator *it)
{
    const tdm_dataset *ds = it->ds;
    const tdm_table *t = ds->table;
    const size_t *examples;
    size_t count = batch_examples(it, &examples), lb = tdm_table_label_bytes(t);
    for (size_t i = 0; i < count; i++) {
        size_t row = ds->rows[examples[i]];
        memcpy(it->features + i * t->feature_count, t->features + row * t->feature_count,
               t->feature_count * sizeof(float));
        memcpy((char *)it->labels + i * lb, (const char *)t->labels + row * lb, lb);
    }
    return count;
}

static void advance(tdm_dataset_iterator *it)
{
    if (++it->pos.batch == it->batches_per_epoch) {
        it->pos.epoch++;
        it->pos.batch = 0;
    }
}

tdm_status tdm_dataset_iterator_next(tdm_dataset_iterator *it, const tdm_batch **batch)
{
    const char *func = "tdm_dataset_iterator_next";
    TDM_CHECK_ARG(it, func);
    TDM_CHECK_ARG(batch, func);
    *batch = &it->batch;
    it->batch.epoch = it->pos.epoch;
    it->batch.index = it->pos.batch;
    it->batch.count = 0;
    if (at_end(it))
        return TDM_OK;
    prepare_order(it);
    size_t count = gather(it);
    tdm_status s = tdm_dataset_apply_maps(it->ds, it->features, count, func);
    if (s != TDM_OK)
        return s;
    it->batch.count = count;
    advance(it);
    return TDM_OK;
}

size_t tdm_dataset_iterator_next_examples(tdm_dataset_iterator *it, const size_t **order,
                                          size_t *first, tdm_dataset_position *at)
{
    *at = it->pos;
    *order = it->order;
    *first = 0;
    if (at_end(it))
        return 0;
    prepare_order(it);
    const size_t *examples;
    size_t count = batch_examples(it, &examples);
    *first = (size_t)(examples - it->order);
    advance(it);
    return count;
}

tdm_status tdm_dataset_iterator_position(const tdm_dataset_iterator *it, tdm_dataset_position *pos)
{
    TDM_CHECK_ARG(it, "tdm_dataset_iterator_position");
    TDM_CHECK_ARG(pos, "tdm_dataset_iterator_position");
    *pos = it->pos;
    return TDM_OK;
}

tdm_status tdm_dataset_iterator_seek(tdm_dataset_iterator *it, const tdm_dataset_position *pos)
{
    const char *func = "tdm_dataset_iterator_seek";
    TDM_CHECK_ARG(it, func);
    TDM_CHECK_ARG(pos, func);
    uint64_t epochs = it->batches_per_epoch ? it->ds->epochs : 0;
    if (pos->epoch > epochs || (pos->epoch == epochs && pos->batch != 0))
        return tdm_fail(
            TDM_ERR_INVALID_ARGUMENT,
            "%s: position (epoch %llu, batch %llu) is past the end of the data (%llu epochs)", func,
            (unsigned long long)pos->epoch, (unsigned long long)pos->batch,
            (unsigned long long)epochs);
    if (pos->batch >= it->batches_per_epoch && pos->epoch < epochs)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: batch %llu is past the last batch of an epoch (%zu batches)", func,
                        (unsigned long long)pos->batch, it->batches_per_epoch);
    it->pos = *pos;
    it->batch.count = 0;
    return TDM_OK;
}

void tdm_dataset_iterator_destroy(tdm_dataset_iterator *it)
{
    if (!it)
        return;
    tdm_dataset_destroy(it->ds);
    free(it->order);
    free(it->features);
    free(it->labels);
    free(it);
}

static tdm_status allocate_buffers(tdm_dataset_iterator *it)
{
    const tdm_dataset *ds = it->ds;
    size_t full = tdm_dataset_full_batch(ds);
    size_t rows = full < ds->row_count ? full : ds->row_count;
    size_t feature_count = ds->table->feature_count;
    /* + 1: an iterator over no examples still owns valid (empty) arrays */
    it->order = malloc(ds->row_count * sizeof *it->order + 1);
    it->features = malloc(rows * feature_count * sizeof(float) + 1);
    it->labels = malloc(rows * tdm_table_label_bytes(ds->table) + 1);
    if (!it->order || !it->features || !it->labels)
        return tdm_fail(
            TDM_ERR_OUT_OF_MEMORY,
            "tdm_dataset_iterator_create: no host memory for batches of %zu x %zu features", rows,
            feature_count);
    it->batch.features = it->features;
    if (ds->table->label_dtype == TDM_F32)
        it->batch.targets = it->labels;
    else
        it->batch.labels = it->labels;
    it->batch.label_width = ds->table->label_width;
    it->batch.feature_count = feature_count;
    return TDM_OK;
}

tdm_status tdm_dataset_iterator_create(const tdm_dataset *ds, tdm_dataset_iterator **out)
{
    const char *func = "tdm_dataset_iterator_create";
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(ds, func);
    tdm_dataset_iterator *it = calloc(1, sizeof *it);
    if (!it)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: no host memory", func);
    tdm_status s = tdm_dataset_clone(ds, NULL, ds->row_count, &it->ds);
    if (s == TDM_OK)
        s = allocate_buffers(it);
    if (s != TDM_OK) {
        tdm_dataset_iterator_destroy(it);
        return s;
    }
    it->batches_per_epoch = tdm_dataset_batches_per_epoch(ds);
    *out = it;
    return TDM_OK;
}
