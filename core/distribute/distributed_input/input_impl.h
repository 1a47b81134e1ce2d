/* Internal: distributed datasets, the host side of a step (input_step.c) and the
 * iterator that uploads steps, in the background or not (input_iterator.c). */
#ifndef TDM_DISTRIBUTE_INPUT_IMPL_H
#define TDM_DISTRIBUTE_INPUT_IMPL_H

#include <stdatomic.h>

#include "tandem/input.h"

/* How the pipelines' batches map to replicas. */
typedef enum tdm_input_mode {
    TDM_INPUT_GLOBAL,     /* one pipeline of global batches, split across replicas */
    TDM_INPUT_PER_REPLICA /* pipelines of per-replica batches, one batch per replica */
} tdm_input_mode;

/* A dataset's examples on every replica's device (cache_on_devices): row j is the
 * dataset's example j (tdm_dataset_examples: after the maps), so that a step is only
 * its example indices and a gather_rows on each device. Shared by the distributed
 * dataset and its iterators; freed with the last reference. */
typedef struct tdm_input_cache {
    atomic_size_t refs;
    size_t replicas, examples, feature_count;
    tdm_dtype label_dtype;
    size_t label_width;
    tdm_tensor **features; /* [replicas]: f32 [examples, feature_count] on replica i */
    tdm_tensor **labels;   /* [replicas]: the labels, [examples, label width], on replica i */
} tdm_input_cache;

/* Builds ds's examples on the host once and uploads them to every replica's device;
 * checks that each device can gather from them. func names the caller. */
tdm_status tdm_input_cache_create(tdm_strategy *s, const tdm_dataset *ds, const char *func,
                                  tdm_input_cache **out);
tdm_input_cache *tdm_input_cache_retain(tdm_input_cache *cache);
void tdm_input_cache_release(tdm_input_cache *cache); /* NULL-safe */

struct tdm_distributed_dataset {
    tdm_strategy *strategy;
    tdm_input_mode mode;
    tdm_dataset **pipelines; /* [pipeline_count], owned */
    size_t pipeline_count;
    tdm_distribute_options opts;
    tdm_input_cache *cache; /* cache_on_devices: a reference; else NULL */
};

/* A step gathered on the host: rows[i] rows for replica i, contiguous in replica order.
 * Cached, a step is a run of its epoch's order (tdm_step_source) from `first`; else its
 * features and labels. */
typedef struct tdm_host_step {
    float *features; /* [total, feature_count] */
    void *labels;    /* [total, label width] */
    size_t *rows;    /* [replicas] */
    size_t total;
    size_t skip;  /* rows of other workers before this process's first replica */
    size_t first; /* cached: the step's first example in its epoch's order */
    uint64_t epoch, index;
} tdm_host_step;

/* The host iterators of a distributed iterator and the buffer its steps are gathered in.
 * Cached, each epoch's order of examples (the cache's rows) is written once to each
 * replica's device, and a step's indices are a run of it: a step writes nothing. Used
 * by one thread at a time (the producer, or the caller when it seeks). */
typedef struct tdm_step_source {
    tdm_input_mode mode;
    tdm_strategy *strategy; /* whose batch shares split global batches */
    size_t pipeline_count;
    tdm_dataset_iterator **iterators; /* [pipeline_count]: the iterator outlives dist */
    size_t replicas, feature_count, capacity;
    tdm_dtype label_dtype;
    size_t label_width;
    tdm_host_step step;
    tdm_input_cache *cache;      /* a reference, or NULL */
    uint32_t *order;             /* cached: [examples], epoch order_epoch's order */
    uint64_t order_epoch;        /* the epoch whose order `order` holds, */
    int order_valid;             /* once it holds one */
    tdm_tensor **device_order;   /* [replicas]: i32 [examples], created on first use */
    uint64_t *device_epoch;      /* [replicas]: the epoch whose order device_order holds */
    unsigned char *device_valid; /* [replicas]: whether it holds one */
} tdm_step_source;

tdm_status tdm_step_source_init(tdm_step_source *src, const tdm_distributed_dataset *dist);
void tdm_step_source_free(tdm_step_source *src);
/* Gathers the next step into src->step; total 0 at the end of the data. */
tdm_status tdm_step_source_next(tdm_step_source *src);
/* Where the pipelines stand: the first pipeline's iterator position. */
tdm_dataset_position tdm_step_source_position(const tdm_step_source *src);
/* Moves every pipeline's iterator to pos (tdm_dataset_iterator_seek's checks); on
 * failure nothing moved. */
tdm_status tdm_step_source_seek(tdm_step_source *src, const tdm_dataset_position *pos);

/* Puts src's step on the strategy's devices as two PER_REPLICA values: uploads its
 * rows, or, cached, gathers them there from the cache by the epoch's order (written
 * to a device the first time one of its steps needs it). *features and *labels are
 * an earlier step's values or NULL: written over where their tensors have this step's
 * shapes (each device runs the writes after its earlier work), replaced otherwise. On
 * failure both are NULL. */
tdm_status tdm_step_upload(tdm_strategy *s, tdm_step_source *src, tdm_value **features,
                           tdm_value **labels);

#endif
