/* Internal: the dataset's table, pipeline and iterator, shared by the input files
 * and by the code that distributes a dataset across replicas. */
#ifndef TDM_INPUT_DATASET_IMPL_H
#define TDM_INPUT_DATASET_IMPL_H

#include <stdatomic.h>

#include "tandem/dataset.h"
#include "tandem/tensor.h"

/* The examples as loaded: immutable once built, shared by every dataset and iterator
 * made from them, freed with the last reference. */
typedef struct tdm_table {
    atomic_size_t refs;
    size_t rows;
    size_t feature_count;
    float *features; /* [rows, feature_count] */
    void *labels;    /* [rows, label_width] of label_dtype: int32 class indices or
                        float targets, both 4 bytes */
    tdm_dtype label_dtype;
    size_t label_width;
} tdm_table;

/* Bytes of one example's labels. */
size_t tdm_table_label_bytes(const tdm_table *t);

typedef struct tdm_map_stage {
    tdm_dataset_map_fn fn;
    void *user;
    float *owned; /* non-NULL: user points here, 2 * feature_count floats of the
                     dataset's own (standardize), copied along with the dataset */
} tdm_map_stage;

/* How far along the pipeline's fixed shape a dataset is (tandem/dataset.h). */
typedef enum tdm_pipeline_stage {
    TDM_STAGE_EXAMPLES,
    TDM_STAGE_SHUFFLED,
    TDM_STAGE_BATCHED,
    TDM_STAGE_REPEATED
} tdm_pipeline_stage;

#define TDM_EPOCHS_FOREVER UINT64_MAX

struct tdm_dataset {
    tdm_table *table;
    size_t *rows; /* one epoch's examples as table rows, before shuffling */
    size_t row_count;
    size_t class_count;
    tdm_pipeline_stage stage;
    int shuffled;
    uint64_t seed;
    size_t batch_size; /* 0: not batched, iterated one example at a time */
    int drop_remainder;
    uint64_t epochs; /* TDM_EPOCHS_FOREVER or a count */
    tdm_map_stage *maps;
    size_t map_count;
};

/* A table of `rows` (> 0) examples of feature_count (> 0) features and label_width
 * (> 0) labels of label_dtype (TDM_I32 or TDM_F32) each, contents uninitialised, with
 * one reference. */
tdm_status tdm_table_create(size_t rows, size_t feature_count, tdm_dtype label_dtype,
                            size_t label_width, tdm_table **out);
/* Gives back the memory of rows past `rows` (> 0): a parser's over-estimate. */
void tdm_table_shrink(tdm_table *t, size_t rows);
void tdm_table_release(tdm_table *t);

/* A one-epoch dataset over every row of t, taking over the caller's reference (released
 * on failure too). Class labels: class_count 0 is the largest label + 1; float
 * targets have no classes (class_count 0). Labels are already valid. */
tdm_status tdm_dataset_wrap(tdm_table *t, size_t class_count, tdm_dataset **out);

/* A copy of ds's pipeline (sharing its table) over `row_count` of `rows` (ds's own
 * rows when rows is NULL). */
tdm_status tdm_dataset_clone(const tdm_dataset *ds, const size_t *rows, size_t row_count,
                             tdm_dataset **out);

/* Appends a map stage; the dataset owns stage->owned from then on, even on failure. */
tdm_status tdm_dataset_push_map(tdm_dataset *ds, const tdm_map_stage *stage);

/* The number of examples in a full batch: the batch size, 1 when not batched. */
size_t tdm_dataset_full_batch(const tdm_dataset *ds);

/* Runs ds's maps over `count` feature rows; on failure names the map that failed. */
tdm_status tdm_dataset_apply_maps(const tdm_dataset *ds, float *features, size_t count,
                                  const char *func);

/* The dataset's examples in their own order (example j is table row rows[j], the
 * numbering tdm_dataset_iterator_next_examples uses), as batches deliver them: features
 * [row_count, feature_count] after the maps, which run over runs of at most one full
 * batch (a map sees no more rows at once than iteration gives it), and labels
 * [row_count, label_width]. A map's failure is returned, naming func. */
tdm_status tdm_dataset_examples(const tdm_dataset *ds, float *features, void *labels,
                                const char *func);

/* Advances like tdm_dataset_iterator_next, but neither gathers nor maps: returns the
 * number of examples in the next batch (0 at the end of the data). *order points at
 * the batch's whole epoch in delivery order (example_count indices, see
 * tdm_dataset_examples; valid until the iterator's next call), of which the batch is
 * the run from *first; *at is the batch's position (epoch, index in the epoch). */
size_t tdm_dataset_iterator_next_examples(tdm_dataset_iterator *it, const size_t **order,
                                          size_t *first, tdm_dataset_position *at);

/* Converts a label read from a file to a class index, below class_count where that
 * is not 0, else below max_class_count where that is not 0. Returns 0 and sets *out,
 * or returns -1 and writes why the value is not one to `why`. */
int tdm_label_from_value(double value, size_t class_count, size_t max_class_count, int32_t *out,
                         char *why, size_t why_size);

#endif
