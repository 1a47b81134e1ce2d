/* The host side of a distributed step: gathering one step's rows from the pipelines,
 * split across the replicas by the rules of SEMANTICS.md, and its upload. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "input_impl.h"

static size_t step_capacity(const tdm_distributed_dataset *dist, size_t replicas)
{
    size_t batch = tdm_dataset_batch_size(dist->pipelines[0]);
    return dist->mode == TDM_INPUT_GLOBAL ? batch : batch * replicas;
}

tdm_status tdm_step_source_init(tdm_step_source *src, const tdm_distributed_dataset *dist)
{
    memset(src, 0, sizeof *src);
    src->mode = dist->mode;
    src->replicas = tdm_strategy_num_replicas(dist->strategy);
    src->feature_count = tdm_dataset_feature_count(dist->pipelines[0]);
    src->capacity = step_capacity(dist, src->replicas);
    src->iterators = calloc(dist->pipeline_count, sizeof *src->iterators);
    src->pipeline_count = dist->pipeline_count;
    src->step.rows = calloc(src->replicas, sizeof *src->step.rows);
    /* + 1: valid arrays even for a step of no rows */
    src->step.features = malloc(src->capacity * src->feature_count * sizeof(float) + 1);
    src->step.labels = malloc(src->capacity * sizeof(int32_t) + 1);
    if (!src->iterators || !src->step.rows || !src->step.features || !src->step.labels)
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
    memset(src, 0, sizeof *src);
}

/* Appends a host batch to the step, for replica r. */
static void append(tdm_step_source *src, const tdm_batch *b, size_t r)
{
    tdm_host_step *st = &src->step;
    memcpy(st->features + st->total * src->feature_count, b->features,
           b->count * src->feature_count * sizeof(float));
    memcpy(st->labels + st->total, b->labels, b->count * sizeof(int32_t));
    st->rows[r] = b->count;
    st->total += b->count;
}

/* One global batch: the first count % N replicas get ceil(count / N) rows, the rest
 * floor(count / N); the slices are consecutive, in replica order. */
static tdm_status next_global(tdm_step_source *src)
{
    const tdm_batch *b;
    tdm_status s = tdm_dataset_iterator_next(src->iterators[0], &b);
    if (s != TDM_OK)
        return s;
    append(src, b, 0);
    size_t n = src->replicas;
    for (size_t i = 0; i < n; i++)
        src->step.rows[i] = b->count / n + (i < b->count % n);
    src->step.epoch = b->epoch;
    src->step.index = b->index;
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
    return src->mode == TDM_INPUT_GLOBAL ? next_global(src) : next_per_replica(src);
}

/* Replica i's slice as a tensor of `width` columns (0: a vector) on dev. */
static tdm_status upload_slice(tdm_device *dev, tdm_dtype dtype, const void *data, size_t rows,
                               size_t width, tdm_tensor **out)
{
    tdm_shape shape = width ? TDM_SHAPE(rows, width) : TDM_SHAPE(rows);
    tdm_status s = tdm_tensor_create(dev, dtype, &shape, out);
    if (s == TDM_OK && rows)
        s = tdm_tensor_write(*out, data, tdm_tensor_bytes(*out));
    return s;
}

static void destroy_all(tdm_tensor **t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tdm_tensor_destroy(t[i]);
}

tdm_status tdm_step_upload(tdm_strategy *s, const tdm_host_step *step, size_t feature_count,
                           tdm_value **features, tdm_value **labels)
{
    size_t n = tdm_strategy_num_replicas(s), first = 0;
    tdm_tensor **f = calloc(2 * n, sizeof *f), **l = f + n;
    if (!f)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_distributed_iterator_next: no host memory");
    tdm_status st = TDM_OK;
    for (size_t i = 0; i < n && st == TDM_OK; first += step->rows[i++]) {
        tdm_device *dev = tdm_strategy_device(s, i);
        st = upload_slice(dev, TDM_F32, step->features + first * feature_count, step->rows[i],
                          feature_count, &f[i]);
        if (st == TDM_OK)
            st = upload_slice(dev, TDM_I32, step->labels + first, step->rows[i], 0, &l[i]);
        if (st != TDM_OK)
            st = tdm_fail_context(st, "replica %zu", i);
    }
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
