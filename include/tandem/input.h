/* tandem: datasets distributed over a strategy's replicas (TensorFlow's
 * distribute_dataset and distribute_datasets_from_function), input contexts, sharding
 * for several input pipelines, and the loss-scaling helpers that go with them.
 *
 * Each step of a distributed iterator delivers a PER_REPLICA value of features
 * (replica i: float32 [rows_i, feature_count] on its device) and one of labels (int32
 * [rows_i]), with the step's global batch size: the rows of all replicas together,
 * which is what a loss is divided by (tdm_compute_average_loss). A replica may get
 * rows_i = 0 (an empty slice) on a last partial batch: every replica still runs the
 * step, so synchronising calls never hang. */
#ifndef TANDEM_INPUT_H
#define TANDEM_INPUT_H

#include "tandem/dataset.h"
#include "tandem/strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_distributed_dataset tdm_distributed_dataset;
typedef struct tdm_distributed_iterator tdm_distributed_iterator;

/* ---- input contexts and sharding ---------------------------------------------- */

/* What an input pipeline needs to know to build its part of the input (TensorFlow's
 * InputContext). One process has one pipeline; with several workers each worker's
 * pipeline has its own id and feeds its own replicas. */
typedef struct tdm_input_context {
    size_t num_input_pipelines;
    size_t input_pipeline_id;    /* in [0, num_input_pipelines) */
    size_t num_replicas_in_sync; /* over all pipelines */
} tdm_input_context;

/* global / num_replicas_in_sync; TDM_ERR_INVALID_ARGUMENT (naming both numbers) when
 * global is not a multiple of it: a step would then not be global examples. */
TDM_API tdm_status tdm_input_context_per_replica_batch_size(const tdm_input_context *ic,
                                                            size_t global, size_t *out);

/* Shards by element: keeps the examples whose index i (in the dataset's current order)
 * has i % num_shards == index. Before shuffle and batch, like take and skip, so that
 * the shards are disjoint and the same every epoch. */
TDM_API tdm_status tdm_dataset_shard(tdm_dataset *ds, size_t num_shards, size_t index);

/* Shards by file: stores in out (capacity `count`) the paths i with
 * i % num_shards == index, in order, and their number in *out_count. Fewer files than
 * shards is TDM_ERR_INVALID_ARGUMENT (a shard would be empty: shard by element). */
TDM_API tdm_status tdm_shard_files(const char *const *paths, size_t count, size_t num_shards,
                                   size_t index, const char **out, size_t *out_count);

/* ---- distributed datasets ------------------------------------------------------ */

typedef struct tdm_distribute_options {
    size_t size;          /* sizeof(tdm_distribute_options): set by the INIT macro */
    int prefetch;         /* 1 (default): a thread per iterator uploads step k + 1 while the
                             caller uses step k; 0: next uploads itself */
    int cache_on_devices; /* 1: tdm_distribute_dataset copies the dataset's examples (after
                             its maps, which then run once, there) to every replica's
                             device, and each step gathers its rows on the devices by
                             row indices (an epoch's order is written once per epoch);
                             the batches are bitwise those of 0, the default, where each
                             step's rows are gathered on the host and uploaded. Only
                             tdm_distribute_dataset reads it (docs/DISTRIBUTION.md) */
} tdm_distribute_options;

#define TDM_DISTRIBUTE_OPTIONS_INIT                                                                \
    {                                                                                              \
        .size = sizeof(tdm_distribute_options), .prefetch = 1                                      \
    }

/* Distributes a dataset batched by the global batch size: each global batch of
 * `count` rows is split in replica order, the first count % N replicas getting
 * ceil(count / N) rows and the others floor(count / N) (possibly 0). Concatenating
 * the slices in replica order gives the global batch, so the examples the job sees do
 * not depend on the replica count. drop_remainder is the dataset's own (batch).
 * The dataset is snapshotted as by tdm_dataset_iterator_create; the strategy must
 * outlive the distributed dataset and its iterators. opts may be NULL. */
TDM_API tdm_status tdm_distribute_dataset(tdm_strategy *s, const tdm_dataset *ds,
                                          const tdm_distribute_options *opts,
                                          tdm_distributed_dataset **out);

/* Builds a pipeline's dataset; it must be batched by the per-replica batch size
 * (tdm_input_context_per_replica_batch_size). *out is taken over. */
typedef tdm_status (*tdm_dataset_fn)(const tdm_input_context *ic, void *user, tdm_dataset **out);

/* Calls fn once per input pipeline (once in one process). Each step hands the
 * pipeline's next batches to its replicas in replica order, one batch each; when the
 * data ends mid-step the remaining replicas get empty slices. */
TDM_API tdm_status tdm_distribute_datasets_from_function(tdm_strategy *s, tdm_dataset_fn fn,
                                                         void *user, tdm_distributed_dataset **out);

/* Releases it; iterators made from it stay valid. NULL-safe. */
TDM_API void tdm_distributed_dataset_destroy(tdm_distributed_dataset *dist);

/* ---- iteration ------------------------------------------------------------------ */

/* One step, owned by the iterator: valid (tensors included) until the next call to
 * next or the iterator's destruction. Pass features and labels to tdm_strategy_run. */
typedef struct tdm_distributed_batch {
    tdm_value *features;        /* PER_REPLICA f32 [rows_i, feature_count]; NULL at end */
    tdm_value *labels;          /* PER_REPLICA i32 [rows_i]; NULL at end */
    size_t global_batch_size;   /* sum of the rows_i over every process of the job; 0
                                   only at the end of the data */
    const size_t *replica_rows; /* [num_replicas]: rows_i of this process's replicas */
    size_t num_replicas;        /* this process's replicas */
    uint64_t epoch;             /* of the step's first batch */
    uint64_t index;             /* of that batch within its epoch */
    size_t first_row;           /* in the global batch, of this process's first replica: the rows
                                   of the workers before it (0 in a job of one process) */
} tdm_distributed_batch;

TDM_API tdm_status tdm_distributed_iterator_create(const tdm_distributed_dataset *dist,
                                                   tdm_distributed_iterator **out);

/* Stops its prefetch thread and releases everything, the current step included.
 * NULL-safe. */
TDM_API void tdm_distributed_iterator_destroy(tdm_distributed_iterator *it);

/* Releases the previous step and delivers the next. The previous step's tensors are
 * the iterator's again: a later step of the same shapes is written into them. The end of the data
 * is TDM_OK with global_batch_size 0, again on every later call. A failure (a map function, a
 * device) is returned by this call and every later one, until a seek. */
TDM_API tdm_status tdm_distributed_iterator_next(tdm_distributed_iterator *it,
                                                 const tdm_distributed_batch **out);

/* Where the iterator stands: the position of the next step it delivers, a step
 * prefetched on the devices not counted. With tdm_distribute_dataset, a step is one
 * global batch, and this is that batch's position in the dataset's pipeline
 * (tdm_dataset_position); with tdm_distribute_datasets_from_function, it is the
 * pipeline's position before the step's first batch (each step takes one batch per
 * replica from there). After the last step it is the end of the data. */
TDM_API tdm_status tdm_distributed_iterator_position(const tdm_distributed_iterator *it,
                                                     tdm_dataset_position *pos);

/* Moves so that the next step delivered is the one that followed pos in an iterator
 * over the same distributed dataset built the same way (same data, transformations,
 * seed and replica count); a prefetched step is dropped, and the step the caller holds
 * stays valid until next. Resumes an iterator that reached the end or failed. Errors
 * as tdm_dataset_iterator_seek (TDM_ERR_INVALID_ARGUMENT past the end of the data),
 * and the iterator then stays where it was. Not concurrently with next. */
TDM_API tdm_status tdm_distributed_iterator_seek(tdm_distributed_iterator *it,
                                                 const tdm_dataset_position *pos);

/* Where the time goes. upload: gathering a step on the host and writing it to the
 * devices (on the prefetch thread, overlapping the caller); wait: how long next
 * blocked for a step. With prefetch working, wait stays far below upload. */
typedef struct tdm_input_stats {
    uint64_t steps;          /* steps next has delivered (the end not counted) */
    uint64_t steps_uploaded; /* steps on the devices: delivered or prefetched */
    uint64_t steps_ready;    /* delivered steps that were uploaded before next asked */
    double upload_seconds;
    double wait_seconds;
} tdm_input_stats;

TDM_API tdm_status tdm_distributed_iterator_stats(tdm_distributed_iterator *it,
                                                  tdm_input_stats *out);

/* ---- loss scaling ------------------------------------------------------------------ */

/* 1 / global_batch_size (0 for 0): the factor that turns a replica's sum of
 * per-example losses into its share of the global mean. */
TDM_API float tdm_loss_scale(size_t global_batch_size);

/* TensorFlow's compute_average_loss: out (f32, one element, on the losses' device) =
 * sum(per_example_losses) / global_batch_size. Pass the step's global batch size
 * (tdm_distributed_batch), not the replica's rows: summing every replica's result
 * then gives the mean over the step, partial batches included. An empty replica's
 * losses give 0 (global_batch_size may then be 0). */
TDM_API tdm_status tdm_compute_average_loss(const tdm_tensor *per_example_losses,
                                            size_t global_batch_size, tdm_tensor *out);

#ifdef __cplusplus
}
#endif
#endif
