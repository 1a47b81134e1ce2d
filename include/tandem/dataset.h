/* tandem: datasets over host data and the iterators that batch them.
 *
 * A dataset is a table of examples held in host memory, plus a pipeline that says in
 * which order and in which batches an iterator delivers them. An example is
 *
 *   features  float32[feature_count]
 *   labels    int32[label_width]: class indices in [0, class_count), one per example
 *             (label_width 1) or one per position of a sequence, where a negative
 *             label masks its position out; or
 *             float32[label_width]: float targets (regression, binary and multi-label
 *             outputs, one-hot or soft class rows)
 *
 * Class labels stay integers, because the sparse cross-entropy consumes them as they
 * are: a batch's labels upload with no conversion per step, and a label that is not a
 * valid class is caught once, when the data is loaded, with its file and line. A NaN
 * or infinite target is refused the same way.
 *
 * The pipeline has a fixed shape, so that an epoch and a position within it are
 * always well defined (which checkpoints and the split across replicas rely on):
 *
 *   examples --take/skip/shuffle_once/split--> shuffle(seed) --> batch --> repeat
 *                                  map and standardize: anywhere, applied in order
 *
 * Transformations change the dataset in place and are checked against that shape: a
 * call out of order (a shuffle after batch, a batch after repeat, ...) returns
 * TDM_ERR_INVALID_STATE and leaves the dataset as it was. Batches never straddle
 * epochs: each epoch ends with its partial batch unless drop_remainder is set.
 *
 * An iterator takes a snapshot of the dataset's pipeline when it is created; later
 * transformations of the dataset do not affect it. The table itself is shared, never
 * copied again. A dataset may be read by several threads at once (iterators, stats);
 * transforming it while another thread reads it is a race.
 */
#ifndef TANDEM_DATASET_H
#define TANDEM_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/status.h"
#include "tandem/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_dataset tdm_dataset;
typedef struct tdm_dataset_iterator tdm_dataset_iterator;

/* ---- sources ------------------------------------------------------------------
 * Each source reads everything into host memory at once. On failure *out is NULL:
 * no partial dataset is ever returned. Malformed data returns TDM_ERR_CORRUPT_DATA
 * with the file, line and column (IDX: byte offset) in tdm_last_error(); a path that
 * cannot be opened or read returns TDM_ERR_NOT_FOUND. Files may be gzip-compressed:
 * zlib recognises gzip by its magic bytes and reads other files as they are. */

/* Copies example_count (> 0) examples: features row-major [example_count,
 * feature_count], labels [example_count]. class_count 0 means the largest label + 1.
 * A negative label, one not below a non-zero class_count (TDM_ERR_INVALID_ARGUMENT)
 * or a feature that is NaN or infinite (TDM_ERR_NUMERIC) is rejected by index. */
TDM_API tdm_status tdm_dataset_from_arrays(const float *features, const int32_t *labels,
                                           size_t example_count, size_t feature_count,
                                           size_t class_count, tdm_dataset **out);

/* Copies example_count (> 0) examples of float targets: features row-major
 * [example_count, feature_count], targets [example_count, target_width]. The dataset
 * has no classes (class_count 0). A feature or a target that is NaN or infinite is
 * rejected by index (TDM_ERR_NUMERIC). */
TDM_API tdm_status tdm_dataset_from_targets(const float *features, const float *targets,
                                            size_t example_count, size_t feature_count,
                                            size_t target_width, tdm_dataset **out);

/* Copies example_count (> 0) sequences of class labels, one per position:
 * labels [example_count, label_width]. A negative label masks its position: it has
 * no loss and no gradient (the padding of a short sequence). class_count as in
 * tdm_dataset_from_arrays. A model trains on them with the sparse softmax
 * cross-entropy where its output is an image of label_width positions (height x
 * width), each position's channels its classes; an example's loss is the mean over
 * its positions, a masked one counting 0 (Keras' sum over the batch's elements). */
TDM_API tdm_status tdm_dataset_from_sequences(const float *features, const int32_t *labels,
                                              size_t example_count, size_t feature_count,
                                              size_t label_width, size_t class_count,
                                              tdm_dataset **out);

/* Where tdm_dataset_from_text cut its text. */
typedef struct tdm_text_layout {
    size_t bytes;       /* the text's, decompressed */
    size_t train_bytes; /* bytes [0, train_bytes) gave the training windows, the rest the
                           validation windows */
} tdm_text_layout;

/* A text as data for a language model over its bytes (256 tokens, any encoding):
 * reads path whole (gzip-compressed or not) and cuts windows of context + 1 bytes
 * every stride bytes; a window's first context bytes are an example's features (the
 * byte values as float ids), the context bytes after the first its labels, one per
 * position (the next byte), as tdm_dataset_from_sequences makes them, of 256 classes.
 * The last validation_fraction (in (0, 1)) of the bytes is held out: the training
 * part ends at the largest multiple of stride not past (1 - validation_fraction) *
 * bytes, so that no window crosses from one part into the other, and each part is
 * cut from its first byte. A file that cannot be read (TDM_ERR_NOT_FOUND), an empty
 * one, one with a NUL byte (binary, or UTF-16: not text of bytes) or a part too short
 * for one window (TDM_ERR_INVALID_ARGUMENT), context or stride 0
 * (TDM_ERR_INVALID_ARGUMENT) are refused, the message naming the file and why.
 * layout (may be NULL) receives where the text was cut. */
TDM_API tdm_status tdm_dataset_from_text(const char *path, size_t context, size_t stride,
                                         double validation_fraction, tdm_dataset **train,
                                         tdm_dataset **validation, tdm_text_layout *layout);

/* tdm_dataset_from_text of a text in memory, text[0, size) (its bytes as they are: no
 * decompression), the windows and refusals the same; `name` stands for the text in
 * messages where the path would. */
TDM_API tdm_status tdm_dataset_from_text_bytes(const void *text, size_t size, const char *name,
                                               size_t context, size_t stride,
                                               double validation_fraction, tdm_dataset **train,
                                               tdm_dataset **validation, tdm_text_layout *layout);

/* Where tdm_dataset_from_csv found the examples, for a caller to show its user. */
typedef struct tdm_csv_layout {
    size_t columns;     /* fields per line */
    int label_column;   /* 0-based, the first label column; TDM_CSV_NO_LABEL when every
                           column is a feature */
    size_t label_count; /* label columns: 1, several with label_columns, 0 without */
    size_t header_line; /* the header's line, counted from 1; 0 without a header */
    size_t first_line;  /* the first and the last data line, counted from 1 */
    size_t last_line;
    size_t blank_lines; /* blank lines skipped among the data */
} tdm_csv_layout;

/* label_column for a file of features only: every example gets label 0. */
#define TDM_CSV_NO_LABEL (-2)

typedef struct tdm_csv_options {
    size_t size;            /* sizeof(tdm_csv_options): set by the INIT macro */
    char delimiter;         /* field separator; default ',' */
    int header;             /* 1: the first non-blank line names the columns; default 0 */
    int label_column;       /* 0-based column of the label; -1 (default): the last one;
                               TDM_CSV_NO_LABEL: none */
    const char *label_name; /* if set, the label column is the header field of this name
                               (needs header = 1); overrides label_column */
    size_t class_count;     /* > 0: labels must lie in [0, class_count); 0 (default): no
                               upper bound, the class count is the largest label + 1 */
    size_t skip_rows;       /* lines skipped before the header or the first data line,
                               blank or not, unread: e.g. the line of counts that starts
                               scikit-learn's CSV exports; default 0 */
    tdm_csv_layout *layout; /* if set, filled in on success */
    size_t max_class_count; /* with class_count 0, > 0: a label of max_class_count or
                               more is refused, naming its line and value, where one
                               stray label would make a model of that many classes;
                               0 (default): no limit */
    int float_labels;          /* 0 (default): class indices; 1: float targets, read
                                  as they are (regression, binary and multi-label
                                  outputs) */
    const char *label_columns; /* if set, several label columns, in this order: a
                                  comma-separated list of 0-based indices or (with
                                  header = 1) names, e.g. "0,3" or "price,rooms";
                                  overrides label_column and label_name */
} tdm_csv_options;

#define TDM_CSV_OPTIONS_INIT                                                                       \
    {                                                                                              \
        .size = sizeof(tdm_csv_options), .delimiter = ',', .label_column = -1                      \
    }

/* Reads a CSV file of numbers: one example per line, every line with the same number
 * of fields (at least two, or one without a label), the label columns' values
 * integral class indices (or float targets), every other column a feature in column
 * order. Blank lines
 * are skipped; "\r\n" endings are accepted; spaces around a field are ignored;
 * fields are not quoted (a header's names may be). Numbers are read in the "C"
 * locale, whatever the program's locale. Errors name "path:line:column", both counted
 * from 1, the column as a field number ("path:line" for a fault of the whole line).
 * opts may be NULL for the defaults. */
TDM_API tdm_status tdm_dataset_from_csv(const char *path, const tdm_csv_options *opts,
                                        tdm_dataset **out);

typedef struct tdm_idx_options {
    size_t size;            /* sizeof(tdm_idx_options): set by the INIT macro */
    size_t class_count;     /* as in tdm_csv_options; default 0 */
    size_t max_class_count; /* as in tdm_csv_options; default 0 */
} tdm_idx_options;

#define TDM_IDX_OPTIONS_INIT                                                                       \
    {                                                                                              \
        .size = sizeof(tdm_idx_options)                                                            \
    }

/* Reads a pair of IDX files (the MNIST format, big-endian; element types u8, i8, i16,
 * i32, f32 and f64). The images file's first dimension counts the examples and the
 * others are flattened into the features, converted to float exactly as stored (u8
 * pixels stay 0..255: normalise with map or standardize). The labels file has one
 * dimension, the same count, and integral values. Errors name the file and the byte
 * offset of the fault. opts may be NULL for the defaults. */
TDM_API tdm_status tdm_dataset_from_idx(const char *images_path, const char *labels_path,
                                        const tdm_idx_options *opts, tdm_dataset **out);

/* Releases the dataset. Iterators made from it stay valid. NULL-safe. */
TDM_API void tdm_dataset_destroy(tdm_dataset *ds);

/* ---- transformations, in place ---------------------------------------------- */

/* Keep the first n examples (all if fewer), or drop them. Before shuffle and batch:
 * these select examples, the same ones every epoch. */
TDM_API tdm_status tdm_dataset_take(tdm_dataset *ds, size_t n);
TDM_API tdm_status tdm_dataset_skip(tdm_dataset *ds, size_t n);

/* Splits the examples into the first floor(fraction * count) and the rest, e.g. 0.8
 * for an 80/20 train/test hold-out; each part keeps ds's maps and class count, and ds
 * is unchanged. Before shuffle and batch, so that the parts are the same examples
 * every epoch; if the source is sorted (by class, say), shuffle_once first. On
 * failure both outputs are NULL. */
TDM_API tdm_status tdm_dataset_split(const tdm_dataset *ds, double fraction, tdm_dataset **first,
                                     tdm_dataset **rest);

/* Reorders the examples once, to the order that shuffle(seed) gives epoch 0; the new
 * order then holds for every epoch. Before shuffle and batch. */
TDM_API tdm_status tdm_dataset_shuffle_once(tdm_dataset *ds, uint64_t seed);

/* Reshuffles the examples every epoch: epoch e's order is a pure function of the seed,
 * e and the selected examples, whatever the batch size, the number of replicas or
 * where iteration resumed. It is a uniform shuffle of the whole epoch (TensorFlow's
 * shuffle with a buffer as large as the dataset, reshuffled each iteration), defined
 * exactly so that any implementation can reproduce it:
 *   - the generator is xoshiro256**, its four state words the first four outputs of
 *     splitmix64 started at state seed XOR splitmix64_mix(e) (mix maps 0 to 0, so
 *     epoch 0 starts at the seed itself);
 *   - Fisher-Yates: for i = n - 1 down to 1, swap positions i and j, where j is
 *     r mod (i + 1) for the first 64-bit draw r not below 2^64 mod (i + 1) (rejection
 *     removes the modulo bias).
 * At most once, before batch. */
TDM_API tdm_status tdm_dataset_shuffle(tdm_dataset *ds, uint64_t seed);

/* Groups each epoch's examples into batches of global_batch (> 0); the last batch of
 * an epoch holds the rest, or is dropped if drop_remainder is non-zero. A dataset
 * that is never batched is iterated one example at a time. At most once, before
 * repeat. */
TDM_API tdm_status tdm_dataset_batch(tdm_dataset *ds, size_t global_batch, int drop_remainder);

#define TDM_REPEAT_FOREVER (-1)

/* Makes the data count epochs long (count >= 0, or TDM_REPEAT_FOREVER); without it a
 * dataset is one epoch. Repeats multiply: repeat(2) then repeat(3) is 6 epochs. An
 * epoch with no batches (no examples, or fewer than a dropped remainder) ends
 * iteration at once, even repeated forever. */
TDM_API tdm_status tdm_dataset_repeat(tdm_dataset *ds, int64_t count);

/* A map function: rewrites the features of `count` examples, row-major [count,
 * feature_count], in place. It is called on every batch an iterator delivers, after
 * the batch is gathered, by the thread that calls tdm_dataset_iterator_next (several
 * at once if several iterators run), and by tdm_dataset_feature_stats. It must treat
 * rows independently and be deterministic. A status other than TDM_OK fails that
 * call. */
typedef tdm_status (*tdm_dataset_map_fn)(float *features, size_t count, size_t feature_count,
                                         void *user);

/* Appends fn to the maps, which run in the order they were added. `user` is passed
 * to fn and must outlive the dataset and its iterators. Allowed at any stage. */
TDM_API tdm_status tdm_dataset_map(tdm_dataset *ds, tdm_dataset_map_fn fn, void *user);

/* ---- feature standardisation -------------------------------------------------- */

/* Per-feature mean and population standard deviation (divided by the count) over the
 * dataset's examples, as its maps so far deliver them. mean and std have
 * feature_count elements each. A dataset with no examples: TDM_ERR_INVALID_STATE. */
TDM_API tdm_status tdm_dataset_feature_stats(const tdm_dataset *ds, float *mean, float *std);

/* Appends a map x -> (x - mean) / std, per feature; a feature whose std is 0 (a
 * constant one) is only centred. mean and std (finite, std >= 0) are copied. Use the
 * training split's stats for both splits, so that the test data stays unseen. */
TDM_API tdm_status tdm_dataset_standardize(tdm_dataset *ds, const float *mean, const float *std);

/* ---- properties (0 for a NULL dataset) ---------------------------------------- */

TDM_API size_t tdm_dataset_feature_count(const tdm_dataset *ds);
TDM_API size_t tdm_dataset_class_count(const tdm_dataset *ds);
/* TDM_I32 for class labels, TDM_F32 for float targets (TDM_I32 for NULL). */
TDM_API tdm_dtype tdm_dataset_label_dtype(const tdm_dataset *ds);
/* Labels per example: 1 for a class label, the target's width, a sequence's length. */
TDM_API size_t tdm_dataset_label_width(const tdm_dataset *ds);
/* Examples in one epoch. */
TDM_API size_t tdm_dataset_example_count(const tdm_dataset *ds);
/* The global batch size, 0 if the dataset is not batched. */
TDM_API size_t tdm_dataset_batch_size(const tdm_dataset *ds);
/* Batches in one epoch (examples, when not batched). */
TDM_API size_t tdm_dataset_batches_per_epoch(const tdm_dataset *ds);

/* ---- iteration ------------------------------------------------------------------ */

/* One batch, owned by the iterator: valid until its next call to next or seek, or
 * until it is destroyed. */
typedef struct tdm_batch {
    const float *features; /* [count, feature_count], row-major, contiguous */
    const int32_t *labels; /* [count, label_width] class indices; NULL for float targets */
    const float *targets;  /* [count, label_width] float targets; NULL for class labels */
    size_t label_width;
    size_t count;          /* examples in this batch: the batch size, fewer in the
                              last batch of an epoch, 0 only at the end of the data */
    size_t feature_count;
    uint64_t epoch; /* the epoch the batch belongs to, from 0 */
    uint64_t index; /* the batch's index within its epoch, from 0 */
} tdm_batch;

/* Where an iterator stands: the next batch it delivers is batch `batch` of epoch
 * `epoch`. Two integers that a checkpoint stores as they are. */
typedef struct tdm_dataset_position {
    uint64_t epoch;
    uint64_t batch; /* always below the epoch's batch count: after an epoch's
                       last batch the position is (epoch + 1, 0) */
} tdm_dataset_position;

/* An iterator at position (0, 0) over a snapshot of ds's pipeline. */
TDM_API tdm_status tdm_dataset_iterator_create(const tdm_dataset *ds, tdm_dataset_iterator **out);

/* NULL-safe. */
TDM_API void tdm_dataset_iterator_destroy(tdm_dataset_iterator *it);

/* Delivers the next batch in *batch. The end of the data is not an error: it returns
 * TDM_OK with (*batch)->count == 0, and again on every later call. If a map function
 * fails, the call returns its status and the position does not move. */
TDM_API tdm_status tdm_dataset_iterator_next(tdm_dataset_iterator *it, const tdm_batch **batch);

TDM_API tdm_status tdm_dataset_iterator_position(const tdm_dataset_iterator *it,
                                                 tdm_dataset_position *pos);

/* Moves to a position saved from an iterator over a dataset built the same way (same
 * data, transformations and seed): the batches that follow are exactly those that
 * followed there. A batch index past the epoch's last batch, or an epoch past the
 * end (the end itself, (epochs, 0), is allowed) is TDM_ERR_INVALID_ARGUMENT. */
TDM_API tdm_status tdm_dataset_iterator_seek(tdm_dataset_iterator *it,
                                             const tdm_dataset_position *pos);

#ifdef __cplusplus
}
#endif
#endif
