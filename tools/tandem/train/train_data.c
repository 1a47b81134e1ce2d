/* tandem train: loading the data, holding out or loading the test split, and
 * preparing both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundled_data.h"
#include "data_source.h"
#include "base/error.h"
#include "train_data.h"

static tdm_status load(const train_options *o, const char *path, const char *labels,
                       tdm_dataset **out, char *used, size_t used_size)
{
    data_source src = {.path = path,
                       .labels = labels,
                       .label_column = o->label_column,
                       .label_columns = o->label_columns,
                       .float_labels = train_loss_takes_floats(o->loss),
                       .header = o->header,
                       .skip_rows = o->skip_rows,
                       .max_classes = o->max_classes};
    return data_source_load(&src, out, used, used_size);
}

/* Folds every example's feature and label bytes, in file order, into the FNV-1a hash
 * *h, so that a checkpoint can tell other data from the same data moved or renamed. */
static tdm_status fingerprint(const tdm_dataset *ds, uint64_t *h)
{
    tdm_dataset_iterator *it = NULL;
    tdm_status s = tdm_dataset_iterator_create(ds, &it);
    const tdm_batch *b = NULL;
    while (s == TDM_OK && (s = tdm_dataset_iterator_next(it, &b)) == TDM_OK && b->count) {
        const unsigned char *f = (const unsigned char *)b->features;
        const unsigned char *l =
            b->targets ? (const unsigned char *)b->targets : (const unsigned char *)b->labels;
        for (size_t i = 0; i < b->count * b->feature_count * sizeof(float); i++)
            *h = (*h ^ f[i]) * 0x100000001b3ull;
        for (size_t i = 0; i < b->count * b->label_width * 4; i++)
            *h = (*h ^ l[i]) * 0x100000001b3ull;
    }
    tdm_dataset_iterator_destroy(it);
    return s;
}

static tdm_status standardize(train_data *d)
{
    size_t features = tdm_dataset_feature_count(d->train);
    d->mean = malloc(features * sizeof *d->mean);
    d->std = malloc(features * sizeof *d->std);
    tdm_status s = d->mean && d->std ? tdm_dataset_feature_stats(d->train, d->mean, d->std)
                                     : TDM_ERR_OUT_OF_MEMORY;
    if (s == TDM_OK)
        s = tdm_dataset_standardize(d->train, d->mean, d->std);
    if (s == TDM_OK)
        s = tdm_dataset_standardize(d->test, d->mean, d->std);
    return s;
}

static tdm_status prepare(const train_options *o, size_t shards, size_t shard, train_data *d)
{
    tdm_status s = o->standardize ? standardize(d) : TDM_OK;
    if (s == TDM_OK && shards > 1)
        s = tdm_dataset_shard(d->train, shards, shard);
    if (s == TDM_OK)
        s = tdm_dataset_shuffle(d->train, o->seed);
    if (s == TDM_OK)
        s = tdm_dataset_batch(d->train, o->batch, 0);
    if (s == TDM_OK)
        s = tdm_dataset_repeat(d->train, o->epochs);
    if (s == TDM_OK)
        s = tdm_dataset_batch(d->test, 512, 0);
    return s;
}

static int fail(const char *path, const char *why, train_data *d)
{
    char shown[256]; /* the library's message names it whole enough */
    tdm_text_fit(shown, sizeof shown, path);
    fprintf(stderr, "tandem train: %s: %s\n", shown, why);
    train_data_free(d);
    return -1;
}

/* The test split: its own file (same format and options as the data), or held out
 * of the data after one shuffle. all is taken over. */
static int split(const train_options *o, tdm_dataset *all, train_data *d)
{
    if (!o->test_data) {
        tdm_status s = tdm_dataset_shuffle_once(all, o->seed);
        if (s == TDM_OK)
            s = tdm_dataset_split(all, 1.0 - o->test_fraction, &d->train, &d->test);
        tdm_dataset_destroy(all);
        return s == TDM_OK ? 0 : fail(d->path, tdm_last_error(), d);
    }
    d->train = all;
    d->test_path = o->test_data;
    if (load(o, o->test_data, o->test_labels, &d->test, d->test_used, sizeof d->test_used) ||
        fingerprint(d->test, &d->fingerprint))
        return fail(o->test_data, tdm_last_error(), d);
    if (tdm_dataset_feature_count(d->test) == tdm_dataset_feature_count(all))
        return 0;
    char why[128];
    snprintf(why, sizeof why, "%zu features, but the data has %zu",
             tdm_dataset_feature_count(d->test), tdm_dataset_feature_count(all));
    return fail(o->test_data, why, d);
}

/* The library's reason, past its function's name and the path it names. */
static const char *reason(const char *path)
{
    const char *why = tdm_last_error(), *at = strstr(why, path);
    size_t n = strlen(path);
    return at && !strncmp(at + n, ": ", 2) ? at + n + 2 : why;
}

/* --text: the text's windows, the last tenth held out (as the test split). */
static int load_text(const train_options *o, train_data *d)
{
    d->path = strcmp(o->text, "-") ? o->text : bundled_text();
    d->text = 1;
    tdm_text_layout t;
    if (tdm_dataset_from_text(d->path, o->context, o->stride, TRAIN_TEXT_HELD_OUT, &d->train,
                              &d->test, &t) != TDM_OK ||
        fingerprint(d->train, &d->fingerprint) != TDM_OK ||
        fingerprint(d->test, &d->fingerprint) != TDM_OK)
        return fail(d->path, reason(d->path), d);
    snprintf(d->used, sizeof d->used,
             "%zu bytes, windows of %zu every %zu: bytes 1-%zu for training, %zu-%zu (the last "
             "tenth) held out",
             t.bytes, o->context + 1, o->stride, t.train_bytes, t.train_bytes + 1, t.bytes);
    return 0;
}

/* The data file, its test split held out or its own file. */
static int load_data(const train_options *o, train_data *d)
{
    d->path = o->data ? o->data : bundled_digits();
    tdm_dataset *all = NULL;
    if (load(o, d->path, o->labels, &all, d->used, sizeof d->used) != TDM_OK ||
        fingerprint(all, &d->fingerprint) != TDM_OK) {
        tdm_dataset_destroy(all);
        return fail(d->path, tdm_last_error(), d);
    }
    return split(o, all, d);
}

int train_data_load(const train_options *o, size_t shards, size_t shard, train_data *d)
{
    memset(d, 0, sizeof *d);
    d->fingerprint = 0xcbf29ce484222325ull;
    if (o->text ? load_text(o, d) : load_data(o, d))
        return -1;
    d->features = tdm_dataset_feature_count(d->train);
    d->classes = tdm_dataset_class_count(d->train) > tdm_dataset_class_count(d->test)
                     ? tdm_dataset_class_count(d->train)
                     : tdm_dataset_class_count(d->test);
    d->targets = tdm_dataset_label_dtype(d->train) == TDM_F32;
    if (d->targets && tdm_dataset_label_width(d->test) != tdm_dataset_label_width(d->train)) {
        char why[128];
        snprintf(why, sizeof why, "%zu label columns, but the data has %zu",
                 tdm_dataset_label_width(d->test), tdm_dataset_label_width(d->train));
        return fail(o->test_data, why, d);
    }
    d->outputs = d->targets ? tdm_dataset_label_width(d->train) : d->classes;
    d->examples = tdm_dataset_example_count(d->train) + tdm_dataset_example_count(d->test);
    if (prepare(o, shards, shard, d) != TDM_OK)
        return fail(d->path, tdm_last_error(), d);
    if (!tdm_dataset_example_count(d->train) || !tdm_dataset_example_count(d->test))
        return fail(d->path, "too few examples for both a training and a test split", d);
    d->train_examples = tdm_dataset_example_count(d->train);
    d->test_examples = tdm_dataset_example_count(d->test);
    d->steps_per_epoch = tdm_dataset_batches_per_epoch(d->train);
    return 0;
}

int train_is_regression(const train_options *o, const train_data *d)
{
    return d->targets && o->loss != TDM_LOSS_SIGMOID_CROSS_ENTROPY &&
           o->loss != TDM_LOSS_CATEGORICAL_CROSS_ENTROPY;
}

void train_data_free(train_data *d)
{
    tdm_dataset_destroy(d->train);
    tdm_dataset_destroy(d->test);
    free(d->mean);
    free(d->std);
    d->train = d->test = NULL;
    d->mean = d->std = NULL;
}
