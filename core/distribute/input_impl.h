/* Internal: distributed datasets, the host side of a step (input_step.c) and the
 * iterator that uploads steps, in the background or not (input_iterator.c). */
#ifndef TDM_DISTRIBUTE_INPUT_IMPL_H
#define TDM_DISTRIBUTE_INPUT_IMPL_H

#include "tandem/input.h"

/* How the pipelines' batches map to replicas. */
typedef enum tdm_input_mode {
    TDM_INPUT_GLOBAL,     /* one pipeline of global batches, split across replicas */
    TDM_INPUT_PER_REPLICA /* pipelines of per-replica batches, one batch per replica */
} tdm_input_mode;

struct tdm_distributed_dataset {
    tdm_strategy *strategy;
    tdm_input_mode mode;
    tdm_dataset **pipelines; /* [pipeline_count], owned */
    size_t pipeline_count;
    tdm_distribute_options opts;
};

/* A step gathered on the host: rows[i] rows for replica i, contiguous in replica order. */
typedef struct tdm_host_step {
    float *features; /* [total, feature_count] */
    int32_t *labels; /* [total] */
    size_t *rows;    /* [replicas] */
    size_t total;
    uint64_t epoch, index;
} tdm_host_step;

/* The host iterators of a distributed iterator and the buffer its steps are gathered in. */
typedef struct tdm_step_source {
    tdm_input_mode mode;
    size_t pipeline_count;
    tdm_dataset_iterator **iterators; /* [pipeline_count]: the iterator outlives dist */
    size_t replicas, feature_count, capacity;
    tdm_host_step step;
} tdm_step_source;

tdm_status tdm_step_source_init(tdm_step_source *src, const tdm_distributed_dataset *dist);
void tdm_step_source_free(tdm_step_source *src);
/* Gathers the next step into src->step; total 0 at the end of the data. */
tdm_status tdm_step_source_next(tdm_step_source *src);

/* Uploads a host step as two PER_REPLICA values on the strategy's devices. */
tdm_status tdm_step_upload(tdm_strategy *s, const tdm_host_step *step, size_t feature_count,
                           tdm_value **features, tdm_value **labels);

#endif
