/* The dataset case, its second part (dataset.c runs it): arrays, batching, repeat,
 * take and skip, split, shuffle, map and standardisation, positions and snapshots. */
#include "dataset_fixture.h"

/* ---- arrays and transformations ------------------------------------------------ */

#define N14 14

/* 14 examples of 2 features: example i is (i, 100 + i) with label i. */
static tdm_dataset *fourteen(void)
{
    float f[N14 * 2];
    int32_t l[N14];
    for (int i = 0; i < N14; i++) {
        f[2 * i] = (float)i;
        f[2 * i + 1] = 100.0f + (float)i;
        l[i] = i;
    }
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_arrays(f, l, N14, 2, 0, &ds));
    return ds;
}

void ds_check_arrays(void)
{
    const float f[4] = {1, 2, 3, NAN};
    const int32_t l[2] = {0, -1}, ok[2] = {0, 3};
    tdm_dataset *ds = (tdm_dataset *)&ds;
    CHECK_FAILS(tdm_dataset_from_arrays(f, l, 2, 2, 0, &ds), TDM_ERR_INVALID_ARGUMENT,
                "labels[1] is -1");
    CHECK_FAILS(tdm_dataset_from_arrays(f, ok, 2, 2, 3, &ds), TDM_ERR_INVALID_ARGUMENT,
                "labels[1] is 3, not a class index in [0, 3)");
    CHECK_FAILS(tdm_dataset_from_arrays(f, ok, 2, 2, 0, &ds), TDM_ERR_NUMERIC,
                "feature 1 of example 1");
    CHECK_FAILS(tdm_dataset_from_arrays(f, ok, 0, 2, 0, &ds), TDM_ERR_INVALID_ARGUMENT, "> 0");
    CHECK_FAILS(tdm_dataset_from_arrays(NULL, ok, 1, 2, 0, &ds), TDM_ERR_INVALID_ARGUMENT,
                "'features'");
    CHECK(ds == NULL);
    CHECK_OK(tdm_dataset_from_arrays(f, ok, 1, 3, 0, &ds));
    CHECK(tdm_dataset_example_count(ds) == 1 && tdm_dataset_class_count(ds) == 1);
    tdm_dataset_destroy(ds);
    tdm_dataset_destroy(NULL);
    tdm_dataset_iterator_destroy(NULL);
    CHECK(tdm_dataset_feature_count(NULL) == 0 && tdm_dataset_batches_per_epoch(NULL) == 0);
}

#define RUN_MAX 48 /* batches recorded; a batch of these datasets has at most N14 examples */

typedef struct run_record {
    size_t batches;
    size_t sizes[RUN_MAX];
    int32_t labels[RUN_MAX * N14];
} run_record;

/* Iterates to the end or RUN_MAX batches, recording each batch's size and labels;
 * returns the number of batches. */
static size_t run(const tdm_dataset *ds, run_record *r)
{
    tdm_dataset_iterator *it = NULL;
    CHECK_OK(tdm_dataset_iterator_create(ds, &it));
    size_t examples = 0;
    const tdm_batch *b;
    r->batches = 0;
    while (it && r->batches < RUN_MAX && tdm_dataset_iterator_next(it, &b) == TDM_OK && b->count &&
           b->count <= N14) {
        r->sizes[r->batches++] = b->count;
        for (size_t i = 0; i < b->count; i++) {
            CHECK(b->features[2 * i] == (float)b->labels[i]);
            r->labels[examples++] = b->labels[i];
        }
    }
    tdm_dataset_iterator_destroy(it);
    return r->batches;
}

static int is_sequence(const int32_t *labels, int first, int count)
{
    for (int i = 0; i < count; i++)
        if (labels[i] != first + i)
            return 0;
    return 1;
}

/* Sequences of class labels: a negative label masks a position and names no class. */
void ds_check_sequences(void)
{
    const float features[4] = {1, 2, 3, 4};
    const int32_t labels[6] = {0, 4, -1, 2, -1, -1};
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_sequences(features, labels, 2, 2, 3, 0, &ds));
    CHECK(tdm_dataset_label_width(ds) == 3 && tdm_dataset_class_count(ds) == 5 &&
          tdm_dataset_label_dtype(ds) == TDM_I32);
    tdm_dataset_iterator *it = NULL;
    const tdm_batch *b = NULL;
    CHECK_OK(tdm_dataset_iterator_create(ds, &it));
    CHECK_OK(tdm_dataset_iterator_next(it, &b));
    CHECK_OK(tdm_dataset_iterator_next(it, &b));
    CHECK(b && b->count == 1 && b->label_width == 3 && b->labels && b->labels[0] == 2 &&
          b->labels[2] == -1 && !b->targets);
    tdm_dataset_iterator_destroy(it);
    tdm_dataset_destroy(ds);
    const int32_t wrong[6] = {0, 4, -1, 2, 5, -1};
    CHECK_FAILS(tdm_dataset_from_sequences(features, wrong, 2, 2, 3, 5, &ds),
                TDM_ERR_INVALID_ARGUMENT, "labels[4] is 5, not a class index in [0, 5)");
    CHECK_FAILS(tdm_dataset_from_targets(features, NULL, 2, 2, 1, &ds), TDM_ERR_INVALID_ARGUMENT,
                "argument 'targets' is NULL");
}

void ds_check_batch(void)
{
    run_record r;
    tdm_dataset *ds = fourteen();
    CHECK_OK(tdm_dataset_batch(ds, 8, 0));
    CHECK(tdm_dataset_batch_size(ds) == 8 && tdm_dataset_batches_per_epoch(ds) == 2);
    CHECK(run(ds, &r) == 2 && r.sizes[0] == 8 && r.sizes[1] == 6);
    CHECK(is_sequence(r.labels, 0, 14));
    tdm_dataset_destroy(ds);
    ds = fourteen();
    CHECK_OK(tdm_dataset_batch(ds, 8, 1));
    CHECK(run(ds, &r) == 1 && r.sizes[0] == 8 && is_sequence(r.labels, 0, 8));
    CHECK_FAILS(tdm_dataset_batch(ds, 4, 0), TDM_ERR_INVALID_STATE, "already batched");
    tdm_dataset_destroy(ds);
    ds = fourteen();
    CHECK_FAILS(tdm_dataset_batch(ds, 0, 0), TDM_ERR_INVALID_ARGUMENT, "global_batch is 0");
    CHECK(run(ds, &r) == 14 && r.sizes[13] == 1); /* unbatched: one at a time */
    tdm_dataset_destroy(ds);
}

void ds_check_end_and_batch_info(void)
{
    tdm_dataset *ds = fourteen();
    CHECK_OK(tdm_dataset_batch(ds, 14, 0));
    tdm_dataset_iterator *it = NULL;
    CHECK_OK(tdm_dataset_iterator_create(ds, &it));
    const tdm_batch *b = NULL;
    CHECK_OK(tdm_dataset_iterator_next(it, &b));
    CHECK(b && b->count == 14 && b->feature_count == 2 && b->epoch == 0 && b->index == 0);
    CHECK_OK(tdm_dataset_iterator_next(it, &b));
    CHECK(b && b->count == 0);
    CHECK_OK(tdm_dataset_iterator_next(it, &b)); /* the end stays the end */
    CHECK(b && b->count == 0);
    CHECK_FAILS(tdm_dataset_iterator_next(NULL, &b), TDM_ERR_INVALID_ARGUMENT, "'it'");
    tdm_dataset_iterator_destroy(it);
    tdm_dataset_destroy(ds);
}

void ds_check_repeat(void)
{
    run_record r;
    tdm_dataset *ds = fourteen();
    CHECK_OK(tdm_dataset_batch(ds, 8, 0));
    CHECK_OK(tdm_dataset_repeat(ds, 3));
    CHECK(run(ds, &r) == 6);
    CHECK(r.sizes[0] == 8 && r.sizes[1] == 6 && r.sizes[4] == 8 && r.sizes[5] == 6);
    CHECK(is_sequence(r.labels + 28, 0, 14));
    CHECK_FAILS(tdm_dataset_batch(ds, 2, 0), TDM_ERR_INVALID_STATE, "never straddle epochs");
    CHECK_OK(tdm_dataset_repeat(ds, 2)); /* repeats multiply: 6 epochs */
    CHECK(run(ds, &r) == 12);
    CHECK_OK(tdm_dataset_repeat(ds, TDM_REPEAT_FOREVER));
    CHECK(run(ds, &r) == RUN_MAX);
    CHECK_FAILS(tdm_dataset_repeat(ds, -2), TDM_ERR_INVALID_ARGUMENT, "count is -2");
    CHECK_OK(tdm_dataset_repeat(ds, 0));
    CHECK(run(ds, &r) == 0);
    tdm_dataset_destroy(ds);
    /* An empty epoch repeated forever ends at once rather than spinning. */
    ds = fourteen();
    CHECK_OK(tdm_dataset_batch(ds, 20, 1));
    CHECK_OK(tdm_dataset_repeat(ds, TDM_REPEAT_FOREVER));
    CHECK(run(ds, &r) == 0);
    tdm_dataset_destroy(ds);
}

void ds_check_take_skip(void)
{
    run_record r;
    tdm_dataset *ds = fourteen();
    CHECK_OK(tdm_dataset_skip(ds, 3));
    CHECK_OK(tdm_dataset_take(ds, 5));
    CHECK(tdm_dataset_example_count(ds) == 5);
    CHECK(run(ds, &r) == 5 && is_sequence(r.labels, 3, 5));
    CHECK_OK(tdm_dataset_take(ds, 100));
    CHECK(tdm_dataset_example_count(ds) == 5);
    CHECK_OK(tdm_dataset_skip(ds, 100));
    CHECK(tdm_dataset_example_count(ds) == 0 && run(ds, &r) == 0);
    CHECK_FAILS(tdm_dataset_feature_stats(ds, (float[2]){0}, (float[2]){0}), TDM_ERR_INVALID_STATE,
                "no examples");
    CHECK_OK(tdm_dataset_shuffle(ds, 1));
    CHECK_FAILS(tdm_dataset_take(ds, 1), TDM_ERR_INVALID_STATE, "already shuffled");
    CHECK_FAILS(tdm_dataset_shuffle(ds, 2), TDM_ERR_INVALID_STATE, "shuffle comes once");
    CHECK_FAILS(tdm_dataset_skip(NULL, 1), TDM_ERR_INVALID_ARGUMENT, "'ds'");
    tdm_dataset_destroy(ds);
}

void ds_check_split(void)
{
    run_record r;
    tdm_dataset *ds = fourteen(), *train = NULL, *test = NULL;
    CHECK_OK(tdm_dataset_split(ds, 0.8, &train, &test));
    CHECK(tdm_dataset_example_count(train) == 11 && tdm_dataset_example_count(test) == 3);
    CHECK(run(train, &r) == 11 && is_sequence(r.labels, 0, 11));
    CHECK(run(test, &r) == 3 && is_sequence(r.labels, 11, 3));
    CHECK(tdm_dataset_class_count(test) == 14);
    tdm_dataset_destroy(train);
    tdm_dataset_destroy(test);
    train = test = (tdm_dataset *)&ds;
    CHECK_FAILS(tdm_dataset_split(ds, 1.5, &train, &test), TDM_ERR_INVALID_ARGUMENT, "1.5");
    CHECK(train == NULL && test == NULL);
    CHECK_OK(tdm_dataset_batch(ds, 4, 0));
    CHECK_FAILS(tdm_dataset_split(ds, 0.5, &train, &test), TDM_ERR_INVALID_STATE,
                "already batched");
    CHECK(train == NULL && test == NULL);
    tdm_dataset_destroy(ds);
}

/* Epochs 0, 1 and 2 of shuffle(42) over 14 examples, computed independently from the
 * algorithm documented in tandem/dataset.h (splitmix64, xoshiro256**, Fisher-Yates). */
static const int32_t seed42[3][N14] = {
    {7, 10, 3, 1, 9, 4, 8, 13, 0, 12, 11, 5, 6, 2},
    {1, 8, 3, 9, 7, 13, 2, 12, 0, 5, 6, 10, 4, 11},
    {7, 1, 3, 0, 12, 4, 11, 5, 8, 6, 9, 13, 2, 10},
};

/* The labels of 3 epochs of shuffle(seed), in batches of `batch` (0: unbatched). */
static void shuffled_labels(uint64_t seed, size_t batch, int32_t *labels)
{
    run_record r;
    tdm_dataset *ds = fourteen();
    CHECK_OK(tdm_dataset_shuffle(ds, seed));
    if (batch)
        CHECK_OK(tdm_dataset_batch(ds, batch, 0));
    CHECK_OK(tdm_dataset_repeat(ds, 3));
    CHECK(run(ds, &r) == (batch ? 3 * ((N14 + batch - 1) / batch) : 3 * N14));
    memcpy(labels, r.labels, 3 * N14 * sizeof *labels);
    tdm_dataset_destroy(ds);
}

void ds_check_shuffle(void)
{
    int32_t a[3 * N14], b[3 * N14], c[3 * N14];
    shuffled_labels(42, 0, a);
    CHECK(memcmp(a, seed42, sizeof a) == 0);
    shuffled_labels(42, 4, b); /* the order does not depend on the batch size */
    shuffled_labels(42, 14, c);
    CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(a, c, sizeof a) == 0);
    shuffled_labels(43, 0, b);
    CHECK(memcmp(a, b, N14 * sizeof *a) != 0);
    for (int e = 0; e < 3; e++) { /* each epoch is a permutation */
        int seen[N14] = {0};
        for (int i = 0; i < N14; i++)
            seen[b[e * N14 + i]]++;
        for (int i = 0; i < N14; i++)
            CHECK(seen[i] == 1);
    }
}

void ds_check_shuffle_once_split(void)
{
    run_record r;
    tdm_dataset *ds = fourteen(), *train = NULL, *test = NULL;
    CHECK_OK(tdm_dataset_shuffle_once(ds, 42));
    CHECK_OK(tdm_dataset_split(ds, 0.5, &train, &test));
    CHECK_OK(tdm_dataset_repeat(train, 2)); /* the same order every epoch */
    CHECK(run(train, &r) == 14);
    CHECK(memcmp(r.labels, seed42[0], 7 * sizeof *r.labels) == 0);
    CHECK(memcmp(r.labels + 7, seed42[0], 7 * sizeof *r.labels) == 0);
    CHECK(run(test, &r) == 7);
    CHECK(memcmp(r.labels, seed42[0] + 7, 7 * sizeof *r.labels) == 0);
    tdm_dataset_destroy(train);
    tdm_dataset_destroy(test);
    tdm_dataset_destroy(ds);
}

/* After examples are selected, shuffle(seed) permutes the selected ones, as
 * shuffle_once(seed) reorders them for epoch 0: the same order, whether the iterator
 * shuffles table rows or its own positions among the selected examples (the indices a
 * dataset cached on the devices gathers by). */
void ds_check_shuffle_after_selection(void)
{
    run_record a, b;
    tdm_dataset *every = fourteen(), *once = fourteen();
    tdm_dataset *both[2] = {every, once};
    for (int i = 0; i < 2; i++) { /* 2, 4, 6, 8, 10, 12: skip 1, every other one */
        CHECK_OK(tdm_dataset_skip(both[i], 1));
        CHECK_OK(tdm_dataset_shard(both[i], 2, 1));
        CHECK(tdm_dataset_example_count(both[i]) == 6);
    }
    CHECK_OK(tdm_dataset_shuffle(every, 42));
    CHECK_OK(tdm_dataset_batch(every, 4, 0));
    CHECK_OK(tdm_dataset_repeat(every, 2));
    CHECK_OK(tdm_dataset_shuffle_once(once, 42));
    CHECK(run(every, &a) == 4 && a.sizes[0] == 4 && a.sizes[1] == 2);
    CHECK(run(once, &b) == 6);
    CHECK(memcmp(a.labels, b.labels, 6 * sizeof *a.labels) == 0);
    CHECK(memcmp(a.labels, a.labels + 6, 6 * sizeof *a.labels) != 0); /* epoch 1 differs */
    int seen[N14] = {0};
    for (int i = 0; i < 12; i++)
        seen[a.labels[i]]++;
    for (int i = 0; i < N14; i++)
        CHECK(seen[i] == (i % 2 == 0 && i >= 2 ? 2 : 0));
    tdm_dataset_destroy(every);
    tdm_dataset_destroy(once);
}

/* ---- map and standardisation ------------------------------------------------------ */

typedef struct scale_map {
    float factor;
    int calls;
    int fail;
} scale_map;

static tdm_status scale_rows(float *features, size_t count, size_t feature_count, void *user)
{
    scale_map *m = user;
    m->calls++;
    if (m->fail)
        return TDM_ERR_CANCELLED;
    for (size_t i = 0; i < count * feature_count; i++)
        features[i] *= m->factor;
    return TDM_OK;
}

void ds_check_map(void)
{
    scale_map m = {.factor = 2};
    tdm_dataset *ds = fourteen();
    CHECK_OK(tdm_dataset_batch(ds, 8, 0));
    CHECK_OK(tdm_dataset_map(ds, scale_rows, &m));
    CHECK_FAILS(tdm_dataset_map(ds, NULL, &m), TDM_ERR_INVALID_ARGUMENT, "'fn'");
    tdm_dataset_iterator *it = NULL;
    CHECK_OK(tdm_dataset_iterator_create(ds, &it));
    const tdm_batch *b = NULL;
    m.fail = 1;
    CHECK_FAILS(tdm_dataset_iterator_next(it, &b), TDM_ERR_CANCELLED,
                "map function 1 of 1 returned TDM_ERR_CANCELLED");
    m.fail = 0;
    CHECK_OK(tdm_dataset_iterator_next(it, &b)); /* the failed batch again */
    CHECK(b && b->count == 8 && b->index == 0 && b->features[2] == 2 && b->features[3] == 202);
    CHECK(b && b->labels[1] == 1 && m.calls == 2);
    tdm_dataset_iterator_destroy(it);
    tdm_dataset_destroy(ds);
}

static int near(float a, double b)
{
    return fabs(a - b) <= 1e-5 * (1 + fabs(b));
}

void ds_check_standardize(void)
{
    /* feature 0: 1, 2, 3, 4; feature 1: constant 5 */
    const float train_f[8] = {1, 5, 2, 5, 3, 5, 4, 5}, test_f[2] = {6, 7};
    const int32_t train_l[4] = {0, 1, 0, 1}, test_l[1] = {1};
    tdm_dataset *train = NULL, *test = NULL;
    CHECK_OK(tdm_dataset_from_arrays(train_f, train_l, 4, 2, 0, &train));
    CHECK_OK(tdm_dataset_from_arrays(test_f, test_l, 1, 2, 0, &test));
    float mean[2], std[2], f[8];
    int32_t l[4];
    CHECK_OK(tdm_dataset_feature_stats(train, mean, std));
    CHECK(near(mean[0], 2.5) && near(std[0], sqrt(1.25)) && mean[1] == 5 && std[1] == 0);
    CHECK_OK(tdm_dataset_standardize(train, mean, std));
    CHECK_OK(tdm_dataset_standardize(test, mean, std));
    CHECK(ds_read_all(test, f, l, 1) == 1 && near(f[0], 3.5 / sqrt(1.25)) && f[1] == 2);
    CHECK(ds_read_all(train, f, l, 4) == 4 && near(f[0], -1.5 / sqrt(1.25)) && f[7] == 0);
    float stats_mean[2], stats_std[2]; /* stats see the maps: now standard */
    CHECK_OK(tdm_dataset_feature_stats(train, stats_mean, stats_std));
    CHECK(near(stats_mean[0], 0) && near(stats_std[0], 1) && stats_std[1] == 0);
    std[0] = -1;
    CHECK_FAILS(tdm_dataset_standardize(train, mean, std), TDM_ERR_INVALID_ARGUMENT,
                "feature 0 has mean 2.5 and std -1");
    tdm_dataset_destroy(train);
    tdm_dataset_destroy(test);
}

/* ---- positions and snapshots ------------------------------------------------------ */

#define POS_BATCHES 12 /* shuffle(7), batch 4 of 14 (4 batches per epoch), 3 epochs */

static tdm_dataset *positioned_dataset(void)
{
    tdm_dataset *ds = fourteen();
    CHECK_OK(tdm_dataset_shuffle(ds, 7));
    CHECK_OK(tdm_dataset_batch(ds, 4, 0));
    CHECK_OK(tdm_dataset_repeat(ds, 3));
    return ds;
}

/* Batch k's labels in slot k (4 each, -1 past the batch's end), up to the end. */
static void record_from(tdm_dataset_iterator *it, size_t k, int32_t (*out)[4])
{
    const tdm_batch *b;
    for (; k <= POS_BATCHES && tdm_dataset_iterator_next(it, &b) == TDM_OK; k++) {
        for (size_t i = 0; i < 4; i++)
            out[k][i] = i < b->count ? b->labels[i] : -1;
        if (!b->count)
            break;
    }
}

void ds_check_position_resume(void)
{
    int32_t whole[POS_BATCHES + 1][4], resumed[POS_BATCHES + 1][4];
    tdm_dataset *ds = positioned_dataset(), *again = positioned_dataset();
    tdm_dataset_iterator *it = NULL;
    CHECK_OK(tdm_dataset_iterator_create(ds, &it));
    record_from(it, 0, whole);
    tdm_dataset_iterator_destroy(it);
    for (size_t k = 0; k <= POS_BATCHES; k += 3) {
        tdm_dataset_iterator *first = NULL, *second = NULL;
        const tdm_batch *b;
        tdm_dataset_position pos;
        CHECK_OK(tdm_dataset_iterator_create(ds, &first));
        for (size_t i = 0; i < k; i++)
            CHECK_OK(tdm_dataset_iterator_next(first, &b));
        CHECK_OK(tdm_dataset_iterator_position(first, &pos));
        CHECK(pos.epoch == k / 4 && pos.batch == k % 4);
        CHECK_OK(tdm_dataset_iterator_create(again, &second));
        CHECK_OK(tdm_dataset_iterator_seek(second, &pos));
        memset(resumed, 0x55, sizeof resumed);
        record_from(second, k, resumed);
        CHECK(memcmp(resumed + k, whole + k, (POS_BATCHES + 1 - k) * sizeof whole[0]) == 0);
        tdm_dataset_iterator_destroy(first);
        tdm_dataset_iterator_destroy(second);
    }
    tdm_dataset_destroy(ds);
    tdm_dataset_destroy(again);
}

void ds_check_position_errors(void)
{
    tdm_dataset *ds = positioned_dataset();
    tdm_dataset_iterator *it = NULL;
    CHECK_OK(tdm_dataset_iterator_create(ds, &it));
    tdm_dataset_position pos = {.epoch = 1, .batch = 4};
    CHECK_FAILS(tdm_dataset_iterator_seek(it, &pos), TDM_ERR_INVALID_ARGUMENT,
                "batch 4 is past the last batch of an epoch (4 batches)");
    pos = (tdm_dataset_position){.epoch = 3, .batch = 1};
    CHECK_FAILS(tdm_dataset_iterator_seek(it, &pos), TDM_ERR_INVALID_ARGUMENT,
                "past the end of the data (3 epochs)");
    pos.batch = 0;
    CHECK_OK(tdm_dataset_iterator_seek(it, &pos));
    const tdm_batch *b = NULL;
    CHECK_OK(tdm_dataset_iterator_next(it, &b));
    CHECK(b && b->count == 0 && b->epoch == 3);
    pos = (tdm_dataset_position){.epoch = 2, .batch = 3}; /* the last, partial batch */
    CHECK_OK(tdm_dataset_iterator_seek(it, &pos));
    CHECK_OK(tdm_dataset_iterator_next(it, &b));
    CHECK(b && b->count == 2 && b->epoch == 2 && b->index == 3);
    CHECK_OK(tdm_dataset_iterator_position(it, &pos));
    CHECK(pos.epoch == 3 && pos.batch == 0);
    tdm_dataset_iterator_destroy(it);
    tdm_dataset_destroy(ds);
}

/* An iterator keeps the pipeline it was made with, maps included, and outlives its
 * dataset. */
void ds_check_snapshot(void)
{
    const float mean[2] = {1, 100}, std[2] = {2, 1};
    tdm_dataset *ds = fourteen();
    CHECK_OK(tdm_dataset_standardize(ds, mean, std));
    tdm_dataset_iterator *it = NULL;
    CHECK_OK(tdm_dataset_iterator_create(ds, &it));
    CHECK_OK(tdm_dataset_batch(ds, 8, 0));
    tdm_dataset_destroy(ds);
    const tdm_batch *b = NULL;
    CHECK_OK(tdm_dataset_iterator_next(it, &b));
    CHECK(b && b->count == 1 && b->labels[0] == 0);
    CHECK(b && b->features[0] == -0.5f && b->features[1] == 0);
    tdm_dataset_iterator_destroy(it);
}
