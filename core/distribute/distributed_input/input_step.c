/* The host side of a distributed step: gathering one step's rows from the pipelines,
 * split across the replicas by the rules of SEMANTICS.md, and its upload. */
#include <stdlib.h>
#include <string.h>

#include "input/dataset_impl.h"
#include "base/checked_size.h"
#include "base/error.h"
#include "distribute/distributed_input/input_impl.h"
#include "kernel/kernel_args.h"
#include "distribute/strategy_impl.h"

/* The most rows one batch of ds holds: never more than an epoch's examples, so a
 * huge batch size costs no more memory than the data itself. */
static size_t batch_rows(const tdm_dataset *ds)
{
    size_t batch = tdm_dataset_batch_size(ds), examples = tdm_dataset_example_count(ds);
    return batch < examples ? batch : examples;
}

/* The most rows one step holds: one global batch, or one batch per replica from its
 * pipeline. 1 when that does not fit in a size_t. */
static int step_capacity_overflows(const tdm_distributed_dataset *dist, size_t replicas,
                                   size_t *out)
{
    if (dist->mode == TDM_INPUT_GLOBAL) {
        *out = batch_rows(dist->pipelines[0]);
        return 0;
    }
    size_t per_pipeline = replicas / dist->pipeline_count;
    *out = 0;
    for (size_t r = 0; r < replicas; r++)
        if (__builtin_add_overflow(*out, batch_rows(dist->pipelines[r / per_pipeline]), out))
            return 1;
    return 0;
}

tdm_status tdm_step_source_init(tdm_step_source *src, const tdm_distributed_dataset *dist)
{
    memset(src, 0, sizeof *src);
    src->mode = dist->mode;
    src->strategy = dist->strategy;
    src->replicas = tdm_strategy_num_local_replicas(dist->strategy);
    src->feature_count = tdm_dataset_feature_count(dist->pipelines[0]);
    src->label_dtype = tdm_dataset_label_dtype(dist->pipelines[0]);
    src->label_width = tdm_dataset_label_width(dist->pipelines[0]);
    /* Cached, no rows reach the host. */
    size_t rows = 0, feature_bytes = 0, label_bytes = 0;
    if (step_capacity_overflows(dist, src->replicas, &src->capacity) ||
        (!dist->cache && (rows = src->capacity) &&
         (tdm_mul3_overflows(rows, src->feature_count, sizeof(float), &feature_bytes) ||
          tdm_mul3_overflows(rows, src->label_width, 4, &label_bytes))))
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "tdm_distributed_iterator_create: a step of %zu replicas' batches of %zu "
                        "features each is larger than memory can address",
                        src->replicas, src->feature_count);
    src->iterators = calloc(dist->pipeline_count, sizeof *src->iterators);
    src->pipeline_count = dist->pipeline_count;
    src->step.rows = calloc(src->replicas, sizeof *src->step.rows);
    /* + 1: valid arrays even for a step of no rows */
    src->step.features = malloc(feature_bytes + 1);
    src->step.labels = malloc(label_bytes + 1);
    int ok = src->iterators && src->step.rows && src->step.features && src->step.labels;
    if (dist->cache) {
        src->cache = tdm_input_cache_retain(dist->cache);
        src->order = malloc(src->cache->examples * sizeof *src->order + 1);
        src->device_order = calloc(src->replicas, sizeof *src->device_order);
        src->device_epoch = calloc(src->replicas, sizeof *src->device_epoch);
        src->device_valid = calloc(src->replicas, sizeof *src->device_valid);
        ok = ok && src->order && src->device_order && src->device_epoch && src->device_valid;
    }
    if (!ok)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "tdm_distributed_iterator_create: no host memory for steps of %zu x %zu "
                        "features",
                        src->capacity, src->feature_count);
    for (size_t p = 0; p < dist->pipeline_count; p++) {
        tdm_status s = tdm_dataset_iterator_create(dist->pipelines[p], &src->iterators[p]);
        if (s != TDM_OK)
            return s;
    }
    return TDM_OK;
}

void tdm_step_source_free(tdm_step_source *src)
{
    for (size_t p = 0; src->iterators && p < src->pipeline_count; p++)
        tdm_dataset_iterator_destroy(src->iterators[p]);
    free(src->iterators);
    free(src->step.rows);
    free(src->step.features);
    free(src->step.labels);
    for (size_t i = 0; src->device_order && i < src->replicas; i++)
        tdm_tensor_destroy(src->device_order[i]);
    free(src->device_order);
    free(src->device_epoch);
    free(src->device_valid);
    free(src->order);
    tdm_input_cache_release(src->cache);
    memset(src, 0, sizeof *src);
}

tdm_dataset_position tdm_step_source_position(const tdm_step_source *src)
{
    tdm_dataset_position pos = {0, 0};
    tdm_dataset_iterator_position(src->iterators[0], &pos);
    return pos;
}

tdm_status tdm_step_source_seek(tdm_step_source *src, const tdm_dataset_position *pos)
{
    tdm_dataset_position back = tdm_step_source_position(src);
    for (size_t p = 0; p < src->pipeline_count; p++) {
        tdm_status s = tdm_dataset_iterator_seek(src->iterators[p], pos);
        if (s != TDM_OK) {
            while (p-- > 0) /* pipelines built alike accept the same positions */
                tdm_dataset_iterator_seek(src->iterators[p], &back);
            return s;
        }
    }
    return TDM_OK;
}

/* Appends a host batch to the step, for replica r. */
static void append(tdm_step_source *src, const tdm_batch *b, size_t r)
{
    tdm_host_step *st = &src->step;
    memcpy(st->features + st->total * src->feature_count, b->features,
           b->count * src->feature_count * sizeof(float));
    size_t lb = src->label_width * 4;
    const void *labels = b->targets ? (const void *)b->targets : (const void *)b->labels;
    memcpy((char *)st->labels + st->total * lb, labels, b->count * lb);
    st->rows[r] = b->count;
    st->total += b->count;
}

/* By the strategy's batch shares (even by default); the slices are consecutive, in
 * replica order. */
static void split_global(tdm_step_source *src, size_t count, uint64_t step)
{
    src->step.skip = tdm_strategy_split_batch(src->strategy, count, step, src->step.rows);
    src->step.total = count;
}

/* One global batch, gathered on the host. */
static tdm_status next_global(tdm_step_source *src)
{
    const tdm_batch *b;
    tdm_status s = tdm_dataset_iterator_next(src->iterators[0], &b);
    if (s != TDM_OK)
        return s;
    append(src, b, 0);
    split_global(src, b->count, b->index);
    src->step.epoch = b->epoch;
    src->step.index = b->index;
    return TDM_OK;
}

/* One global batch of a cached dataset: a run of its epoch's order of examples, which
 * are the cache's rows; the same batches as next_global, since both follow the same
 * iterator. The order is converted to uint32 once per epoch. */
static tdm_status next_cached(tdm_step_source *src)
{
    const size_t *order;
    tdm_dataset_position at;
    size_t first,
        count = tdm_dataset_iterator_next_examples(src->iterators[0], &order, &first, &at);
    if (count && (!src->order_valid || at.epoch != src->order_epoch)) {
        for (size_t i = 0; i < src->cache->examples; i++)
            src->order[i] = (uint32_t)order[i]; /* the cache checked the range */
        src->order_epoch = at.epoch;
        src->order_valid = 1;
    }
    split_global(src, count, at.batch);
    src->step.first = first;
    src->step.epoch = at.epoch;
    src->step.index = at.batch;
    return TDM_OK;
}

/* Each pipeline feeds its consecutive block of replicas one batch each; once it ends,
 * its remaining replicas get empty slices. */
static tdm_status next_per_replica(tdm_step_source *src)
{
    size_t per_pipeline = src->replicas / src->pipeline_count;
    for (size_t r = 0; r < src->replicas; r++) {
        const tdm_batch *b;
        tdm_status s = tdm_dataset_iterator_next(src->iterators[r / per_pipeline], &b);
        if (s != TDM_OK)
            return s;
        if (r == 0) {
            src->step.epoch = b->epoch;
            src->step.index = b->index;
        }
        append(src, b, r);
    }
    return TDM_OK;
}

tdm_status tdm_step_source_next(tdm_step_source *src)
{
    src->step.total = 0;
    memset(src->step.rows, 0, src->replicas * sizeof *src->step.rows);
    if (src->mode == TDM_INPUT_PER_REPLICA)
        return next_per_replica(src);
    return src->cache ? next_cached(src) : next_global(src);
}

static tdm_shape slice_shape(size_t rows, size_t width)
{
    return width ? TDM_SHAPE(rows, width) : TDM_SHAPE(rows);
}

/* Replica i's slice as a tensor of `width` columns (0: a vector) on dev, or into
 * *out where it already is one of this shape; written from data unless data is NULL. */
static tdm_status upload_slice(tdm_device *dev, tdm_dtype dtype, const void *data, size_t rows,
                               size_t width, tdm_tensor **out)
{
    tdm_shape shape = slice_shape(rows, width);
    tdm_status s = *out ? TDM_OK : tdm_tensor_create(dev, dtype, &shape, out);
    if (s == TDM_OK && rows && data)
        s = tdm_tensor_write(*out, data, tdm_tensor_bytes(*out));
    return s;
}

/* y[r] = x[idx[r]] for r < rows, rows of `cols` words (gather_rows). */
static tdm_status gather(tdm_device *dev, tdm_tensor *y, const tdm_tensor *x, tdm_buffer_view idx,
                         size_t rows, size_t cols, size_t src_rows)
{
    const tdm_gather_rows_args a = {.y = tdm_tensor_view(y),
                                    .x = tdm_tensor_view(x),
                                    .idx = idx,
                                    .rows = (uint32_t)rows,
                                    .cols = (uint32_t)cols,
                                    .src_rows = (uint32_t)src_rows};
    return tdm_gather_rows_run(dev, &a);
}

/* Replica i's slice of a cached step, `rows` examples from `first` in the epoch's
 * order: the order written to the device if it holds another epoch's (once per epoch;
 * a write is ordered after the gathers of earlier steps that read the old one), then
 * features and labels gathered from the cache by that run of it. */
static tdm_status gather_slice(tdm_step_source *src, size_t first, size_t rows, size_t i,
                               tdm_device *dev, tdm_tensor *f, tdm_tensor *l)
{
    const tdm_input_cache *c = src->cache;
    tdm_status s = TDM_OK;
    if (!src->device_order[i])
        s = tdm_tensor_create(dev, TDM_I32, &TDM_SHAPE(c->examples), &src->device_order[i]);
    if (s == TDM_OK && (!src->device_valid[i] || src->device_epoch[i] != src->order_epoch)) {
        src->device_valid[i] = 0;
        s = tdm_tensor_write(src->device_order[i], src->order, c->examples * sizeof *src->order);
        src->device_valid[i] = s == TDM_OK;
        src->device_epoch[i] = src->order_epoch;
    }
    if (s != TDM_OK)
        return s;
    tdm_buffer_view idx = tdm_tensor_view(src->device_order[i]);
    idx.offset += first * sizeof *src->order;
    idx.size = rows * sizeof *src->order;
    s = gather(dev, f, c->features[i], idx, rows, src->feature_count, c->examples);
    if (s == TDM_OK)
        s = gather(dev, l, c->labels[i], idx, rows, src->label_width, c->examples);
    return s;
}

static void destroy_all(tdm_tensor **t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tdm_tensor_destroy(t[i]);
}

static int same_shape(const tdm_tensor *t, tdm_shape want)
{
    tdm_shape has = tdm_tensor_shape(t);
    return has.rank == want.rank && !memcmp(has.dims, want.dims, want.rank * sizeof *want.dims);
}

/* A slice's labels: a vector of class indices, one per example; a matrix of a
 * sequence's class indices or of float targets. */
static size_t label_columns(const tdm_step_source *src)
{
    return src->label_dtype == TDM_I32 && src->label_width == 1 ? 0 : src->label_width;
}

/* 1 if the values hold, replica by replica, tensors of this step's shapes. */
static int fits_step(const tdm_value *features, const tdm_value *labels, size_t n,
                     const tdm_step_source *src)
{
    if (!features || !labels || tdm_value_count(features) != n || tdm_value_count(labels) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        size_t rows = src->step.rows[i];
        if (!same_shape(tdm_value_component(features, i), slice_shape(rows, src->feature_count)) ||
            !same_shape(tdm_value_component(labels, i), slice_shape(rows, label_columns(src))))
            return 0;
    }
    return 1;
}

/* Fills f and l: into the tensors they hold, or into new ones where they hold none. */
/* Replica i's rows, from row `first` of the step, into *f and *l (made when NULL). */
static tdm_status upload_replica(tdm_strategy *s, tdm_step_source *src, size_t i, size_t first,
                                 tdm_tensor **f, tdm_tensor **l)
{
    const tdm_host_step *step = &src->step;
    size_t fc = src->feature_count, rows = step->rows[i];
    tdm_device *dev = tdm_strategy_device(s, i);
    int cached = src->cache != NULL;
    tdm_status st =
        upload_slice(dev, TDM_F32, cached ? NULL : step->features + first * fc, rows, fc, f);
    size_t lb = src->label_width * 4;
    if (st == TDM_OK)
        st = upload_slice(dev, src->label_dtype,
                          cached ? NULL : (const char *)step->labels + first * lb, rows,
                          label_columns(src), l);
    if (st == TDM_OK && cached && rows)
        st = gather_slice(src, step->first + first, rows, i, dev, *f, *l);
    return st == TDM_OK ? st : tdm_fail_context(st, "replica %zu", i);
}

static tdm_status upload_into(tdm_strategy *s, tdm_step_source *src, tdm_tensor **f, tdm_tensor **l,
                              size_t n)
{
    tdm_status st = TDM_OK;
    for (size_t i = 0, first = src->step.skip; i < n && st == TDM_OK; first += src->step.rows[i++])
        st = upload_replica(s, src, i, first, &f[i], &l[i]);
    return st;
}

static tdm_status upload_new(tdm_strategy *s, tdm_step_source *src, tdm_value **features,
                             tdm_value **labels, size_t n)
{
    tdm_tensor **f = calloc(2 * n, sizeof *f), **l = f + n;
    if (!f)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_distributed_iterator_next: no host memory");
    tdm_status st = upload_into(s, src, f, l, n);
    if (st == TDM_OK && (st = tdm_value_create(TDM_VALUE_PER_REPLICA, f, n, features)) == TDM_OK) {
        st = tdm_value_create(TDM_VALUE_PER_REPLICA, l, n, labels);
        if (st != TDM_OK) {
            tdm_value_destroy(*features); /* takes f's tensors with it */
            *features = NULL;
            memset(f, 0, n * sizeof *f);
        }
    }
    if (st != TDM_OK)
        destroy_all(f, 2 * n);
    free(f);
    return st;
}

/* Reusing an earlier step's tensors keeps buffers from being allocated and freed at
 * every step. */
static tdm_status upload_reused(tdm_strategy *s, tdm_step_source *src, tdm_value *features,
                                tdm_value *labels, size_t n)
{
    tdm_status st = TDM_OK;
    for (size_t i = 0, first = src->step.skip; i < n && st == TDM_OK;
         first += src->step.rows[i++]) {
        tdm_tensor *f = tdm_value_component(features, i), *l = tdm_value_component(labels, i);
        st = upload_replica(s, src, i, first, &f, &l);
    }
    return st;
}

tdm_status tdm_step_upload(tdm_strategy *s, tdm_step_source *src, tdm_value **features,
                           tdm_value **labels)
{
    size_t n = tdm_strategy_num_local_replicas(s);
    tdm_status st;
    if (fits_step(*features, *labels, n, src)) {
        st = upload_reused(s, src, *features, *labels, n);
    } else {
        tdm_value_destroy(*features);
        tdm_value_destroy(*labels);
        *features = *labels = NULL;
        st = upload_new(s, src, features, labels, n);
    }
    if (st != TDM_OK) { /* half-written: no later step may take them for whole */
        tdm_value_destroy(*features);
        tdm_value_destroy(*labels);
        *features = *labels = NULL;
    }
    return st;
}
