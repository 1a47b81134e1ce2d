/* tandem train: loading the data, holding out the test split, and preparing both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "train_data.h"

/* The bundled digits: in the source tree when run from the build, else installed. */
static const char *default_data(void)
{
    static const char *const paths[] = {TDM_SOURCE_DATA "/digits.csv.gz",
                                        TDM_INSTALLED_DATA "/digits.csv.gz"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (access(paths[i], R_OK) == 0)
            return paths[i];
    return paths[0];
}

static tdm_status load(const train_options *o, const char *path, tdm_dataset **out)
{
    if (o->labels)
        return tdm_dataset_from_idx(path, o->labels, NULL, out);
    tdm_csv_options csv = TDM_CSV_OPTIONS_INIT;
    csv.header = o->header;
    if (o->label_column) {
        char *end;
        long column = strtol(o->label_column, &end, 10);
        if (*end)
            csv.label_name = o->label_column;
        else
            csv.label_column = (int)column;
    }
    return tdm_dataset_from_csv(path, &csv, out);
}

/* FNV-1a over every example's feature and label bytes, in file order, so that a
 * checkpoint can tell other data from the same data moved or renamed. */
static tdm_status fingerprint(const tdm_dataset *ds, uint64_t *out)
{
    tdm_dataset_iterator *it = NULL;
    tdm_status s = tdm_dataset_iterator_create(ds, &it);
    uint64_t h = 0xcbf29ce484222325ull;
    const tdm_batch *b = NULL;
    while (s == TDM_OK && (s = tdm_dataset_iterator_next(it, &b)) == TDM_OK && b->count) {
        const unsigned char *f = (const unsigned char *)b->features;
        const unsigned char *l = (const unsigned char *)b->labels;
        for (size_t i = 0; i < b->count * b->feature_count * sizeof(float); i++)
            h = (h ^ f[i]) * 0x100000001b3ull;
        for (size_t i = 0; i < b->count * sizeof(int32_t); i++)
            h = (h ^ l[i]) * 0x100000001b3ull;
    }
    tdm_dataset_iterator_destroy(it);
    *out = h;
    return s;
}

static tdm_status standardize(tdm_dataset *train, tdm_dataset *test, size_t features)
{
    float *mean = malloc(features * sizeof *mean), *std = malloc(features * sizeof *std);
    tdm_status s =
        mean && std ? tdm_dataset_feature_stats(train, mean, std) : TDM_ERR_OUT_OF_MEMORY;
    if (s == TDM_OK)
        s = tdm_dataset_standardize(train, mean, std);
    if (s == TDM_OK)
        s = tdm_dataset_standardize(test, mean, std);
    free(mean);
    free(std);
    return s;
}

static tdm_status prepare(const train_options *o, tdm_dataset *all, train_data *d)
{
    tdm_status s = tdm_dataset_shuffle_once(all, o->seed);
    if (s == TDM_OK)
        s = tdm_dataset_split(all, 1.0 - o->test_fraction, &d->train, &d->test);
    if (s == TDM_OK && o->standardize)
        s = standardize(d->train, d->test, tdm_dataset_feature_count(all));
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

int train_data_load(const train_options *o, train_data *d)
{
    memset(d, 0, sizeof *d);
    d->path = o->data ? o->data : default_data();
    tdm_dataset *all = NULL;
    tdm_status s = load(o, d->path, &all);
    if (s == TDM_OK)
        s = fingerprint(all, &d->fingerprint);
    if (s == TDM_OK)
        s = prepare(o, all, d);
    int empty = s == TDM_OK &&
                (!tdm_dataset_example_count(d->train) || !tdm_dataset_example_count(d->test));
    if (s != TDM_OK || empty) {
        fprintf(stderr, "tandem train: %s: %s\n", d->path,
                empty ? "too few examples for both a training and a test split" : tdm_last_error());
        tdm_dataset_destroy(all);
        train_data_free(d);
        return -1;
    }
    d->features = tdm_dataset_feature_count(all);
    d->classes = tdm_dataset_class_count(all);
    d->train_examples = tdm_dataset_example_count(d->train);
    d->test_examples = tdm_dataset_example_count(d->test);
    d->steps_per_epoch = tdm_dataset_batches_per_epoch(d->train);
    tdm_dataset_destroy(all);
    return 0;
}

void train_data_free(train_data *d)
{
    tdm_dataset_destroy(d->train);
    tdm_dataset_destroy(d->test);
    d->train = d->test = NULL;
}
