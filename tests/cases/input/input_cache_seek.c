/* The input case, its second part (input.c runs it): datasets cached on the devices
 * against the host's, compared step by step, and positions and seek. */
#include "input_fixture.h"

/* ---- step traces: every step's bytes, to compare iterators bitwise ------------------ */

#define MAX_TRACE 64

/* Step k's record is bytes[start[k], start[k + 1]): its epoch, index, global batch size
 * and rows per replica, then each replica's features and labels as read back. The end
 * of the data is recorded as a step of no rows. */
typedef struct trace {
    size_t steps;
    size_t start[MAX_TRACE + 1];
    unsigned char *bytes;
    size_t size, cap;
} trace;

static void put(trace *t, const void *p, size_t n)
{
    if (t->size + n > t->cap) {
        size_t cap = 2 * (t->size + n);
        unsigned char *bigger = realloc(t->bytes, cap);
        CHECK(bigger != NULL);
        if (!bigger)
            return;
        t->bytes = bigger;
        t->cap = cap;
    }
    memcpy(t->bytes + t->size, p, n);
    t->size += n;
}

static void put_tensor(trace *t, tdm_tensor *x)
{
    size_t bytes = tdm_tensor_bytes(x);
    void *host = malloc(bytes + 1);
    CHECK_OK(tdm_tensor_read(x, host, bytes));
    put(t, host, bytes);
    free(host);
}

static void trace_step(trace *t, const tdm_distributed_batch *b)
{
    CHECK(t->steps < MAX_TRACE);
    if (t->steps >= MAX_TRACE)
        return;
    uint64_t head[4] = {b->epoch, b->index, b->global_batch_size, b->num_replicas};
    put(t, head, sizeof head);
    for (size_t r = 0; r < b->num_replicas && b->global_batch_size; r++) {
        uint64_t rows = b->replica_rows[r];
        put(t, &rows, sizeof rows);
        put_tensor(t, tdm_value_component(b->features, r));
        put_tensor(t, tdm_value_component(b->labels, r));
    }
    t->start[++t->steps] = t->size;
}

/* Records up to `max` steps of it, stopping after the end of the data. */
static void follow(tdm_distributed_iterator *it, size_t max, trace *t)
{
    const tdm_distributed_batch *b = NULL;
    for (size_t k = 0; it && k < max; k++) {
        tdm_status s = tdm_distributed_iterator_next(it, &b);
        CHECK_OK(s);
        if (s != TDM_OK)
            return;
        trace_step(t, b);
        if (!b->global_batch_size)
            return;
    }
}

static void trace_free(trace *t)
{
    free(t->bytes);
    memset(t, 0, sizeof *t);
}

/* Whether a's steps from i on are b's steps from j on, all of b's recorded. */
static int same_steps(const trace *a, size_t i, const trace *b, size_t j)
{
    if (a->steps - i != b->steps - j)
        return 0;
    size_t n = b->start[b->steps] - b->start[j];
    return a->start[a->steps] - a->start[i] == n &&
           memcmp(a->bytes + a->start[i], b->bytes + b->start[j], n) == 0;
}

/* ---- datasets cached on the devices ---------------------------------------------- */

#define CACHE_ROWS 21
#define CACHE_FEATURES 3

typedef struct affine_map {
    int calls;
    int fail;
} affine_map;

static tdm_status affine(float *features, size_t count, size_t feature_count, void *user)
{
    affine_map *m = user;
    m->calls++;
    if (m->fail)
        return TDM_ERR_CANCELLED;
    for (size_t i = 0; i < count * feature_count; i++)
        features[i] = features[i] * 0.75f - (float)(i % feature_count);
    return TDM_OK;
}

/* 21 examples of 3 features with every kind of finite float (signed zeros, denormals,
 * huge values), labels i % 7; shuffled (seed 5), in batches of `batch` (global batches
 * of 5: the last of each epoch is 1 example, leaving two of three replicas empty), two
 * epochs. */
static tdm_dataset *cache_dataset(affine_map *map, int select, size_t batch)
{
    float f[CACHE_ROWS * CACHE_FEATURES];
    int32_t l[CACHE_ROWS];
    static const float odd[] = {-0.0f, 0.0f, 1e-40f, -3e-39f, 3e38f, -1.5f};
    test_random_bytes(f, sizeof f, 11);
    for (size_t i = 0; i < CACHE_ROWS * CACHE_FEATURES; i++) {
        uint32_t bits;
        memcpy(&bits, &f[i], sizeof bits);
        if ((bits & 0x7f800000u) == 0x7f800000u) /* no NaN or infinity: arrays refuse them */
            f[i] = (float)i;
        if (i % 5 == 0)
            f[i] = odd[i / 5 % 6];
    }
    for (size_t i = 0; i < CACHE_ROWS; i++)
        l[i] = (int32_t)(i % 7);
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_arrays(f, l, CACHE_ROWS, CACHE_FEATURES, 7, &ds));
    if (select) { /* 18 of the 21: the cache holds only the selected examples */
        CHECK_OK(tdm_dataset_skip(ds, 1));
        CHECK_OK(tdm_dataset_take(ds, 18));
    }
    if (map)
        CHECK_OK(tdm_dataset_map(ds, affine, map));
    CHECK_OK(tdm_dataset_shuffle(ds, 5));
    CHECK_OK(tdm_dataset_batch(ds, batch, 0));
    CHECK_OK(tdm_dataset_repeat(ds, 2));
    return ds;
}

/* Every step of ds (taken over) distributed with these options; stats in *st. */
static void trace_distributed(tdm_dataset *ds, int cache, int prefetch, trace *t,
                              tdm_input_stats *st)
{
    tdm_strategy *s = in_mirrored(in_n_devs);
    tdm_distribute_options o = TDM_DISTRIBUTE_OPTIONS_INIT;
    o.cache_on_devices = cache;
    o.prefetch = prefetch;
    tdm_distributed_dataset *dist = NULL;
    tdm_distributed_iterator *it = NULL;
    CHECK_OK(tdm_distribute_dataset(s, ds, &o, &dist));
    tdm_dataset_destroy(ds);
    if (dist)
        CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    tdm_distributed_dataset_destroy(dist); /* the iterator keeps the cache */
    memset(t, 0, sizeof *t);
    follow(it, MAX_TRACE, t);
    if (it)
        CHECK_OK(tdm_distributed_iterator_stats(it, st));
    tdm_distributed_iterator_destroy(it);
    tdm_strategy_destroy(s);
}

/* The cache gives every step bitwise as the host path does: features and labels of
 * every replica, rows, epochs and indices, empty slices and the end included. */
void in_check_cache_matches(void)
{
    for (int variant = 0; variant < 3; variant++) {
        affine_map host_map = {0}, cache_map = {0};
        int mapped = variant >= 1, select = variant == 2;
        trace want, got;
        tdm_input_stats st_want, st_got;
        trace_distributed(cache_dataset(mapped ? &host_map : NULL, select, 5), 0, 1, &want,
                          &st_want);
        size_t epoch_steps = select ? 4 : 5;
        CHECK(want.steps == 2 * epoch_steps + 1);
        for (int prefetch = 0; prefetch <= 1; prefetch++) {
            cache_map.calls = 0;
            trace_distributed(cache_dataset(mapped ? &cache_map : NULL, select, 5), 1, prefetch,
                              &got, &st_got);
            CHECK(same_steps(&got, 0, &want, 0));
            /* the uploads still count: a step is its indices and gathers */
            CHECK(st_got.steps == 2 * epoch_steps && st_got.steps_uploaded == st_got.steps);
            CHECK(st_got.upload_seconds >= 0 && (prefetch || st_got.steps_ready == 0));
            /* the maps ran once per batch of examples, when the data was cached */
            CHECK(!mapped || cache_map.calls == (int)epoch_steps);
            trace_free(&got);
        }
        CHECK(!mapped || host_map.calls == (int)(2 * epoch_steps)); /* per step */
        trace_free(&want);
    }
    if (in_n_devs < 3)
        return;
    /* The trailing empty slices really are there: 21 = 4 x 5 + 1. */
    trace t;
    tdm_input_stats st;
    trace_distributed(cache_dataset(NULL, 0, 5), 1, 1, &t, &st);
    uint64_t head[4], rows[3]; /* then rows 1 (8 bytes), 3 features, 1 label, rows 0, rows 0 */
    memcpy(head, t.bytes + t.start[4], sizeof head);
    memcpy(&rows[0], t.bytes + t.start[4] + 32, 8);
    memcpy(&rows[1], t.bytes + t.start[4] + 56, 8);
    memcpy(&rows[2], t.bytes + t.start[4] + 64, 8);
    CHECK(t.steps == 11 && head[2] == 1 && rows[0] == 1 && rows[1] == 0 && rows[2] == 0);
    trace_free(&t);
}

void in_check_cache_errors(void)
{
    tdm_strategy *s = in_mirrored(2);
    affine_map m = {.fail = 1};
    tdm_dataset *ds = cache_dataset(&m, 0, 5);
    tdm_distribute_options o = TDM_DISTRIBUTE_OPTIONS_INIT;
    o.cache_on_devices = 1;
    tdm_distributed_dataset *dist = NULL;
    /* The maps run when the data is cached: their failure is distribute's. */
    CHECK_FAILS(tdm_distribute_dataset(s, ds, &o, &dist), TDM_ERR_CANCELLED, "map function 1 of 1");
    CHECK(dist == NULL && m.calls == 1);
    tdm_dataset_destroy(ds);
    /* No examples at all: an empty cache, and an iterator that ends at once. */
    ds = in_numbered(4);
    CHECK_OK(tdm_dataset_skip(ds, 4));
    CHECK_OK(tdm_dataset_batch(ds, 2, 0));
    CHECK_OK(tdm_distribute_dataset(s, ds, &o, &dist));
    tdm_dataset_destroy(ds);
    tdm_distributed_iterator *it = NULL;
    const tdm_distributed_batch *b = NULL;
    if (dist)
        CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    if (it)
        CHECK_OK(tdm_distributed_iterator_next(it, &b));
    CHECK(b && b->global_batch_size == 0 && !b->features);
    tdm_distributed_iterator_destroy(it);
    tdm_distributed_dataset_destroy(dist);
    tdm_strategy_destroy(s);
}

/* ---- positions and seek ------------------------------------------------------------ */

/* Per-replica batches of 2 of cache_dataset's examples: 11 batches per epoch (the last
 * of one example), two epochs; a step takes one batch per replica. */
static tdm_status seek_pipeline(const tdm_input_context *ic, void *user, tdm_dataset **out)
{
    (void)ic;
    (void)user;
    *out = cache_dataset(NULL, 0, 2);
    return TDM_OK;
}

typedef struct seek_kind {
    int from_function, cache, prefetch;
} seek_kind;

static tdm_distributed_dataset *seek_dataset(tdm_strategy *s, seek_kind k)
{
    tdm_distributed_dataset *dist = NULL;
    if (k.from_function) {
        CHECK_OK(tdm_distribute_datasets_from_function(s, seek_pipeline, NULL, &dist));
        return dist;
    }
    tdm_distribute_options o = TDM_DISTRIBUTE_OPTIONS_INIT;
    o.cache_on_devices = k.cache;
    o.prefetch = k.prefetch;
    tdm_dataset *ds = cache_dataset(NULL, 0, 5);
    CHECK_OK(tdm_distribute_dataset(s, ds, &o, &dist));
    tdm_dataset_destroy(ds);
    return dist;
}

/* The position after `steps` steps: a global batch per step, or one pipeline batch per
 * replica (11 per epoch), up to the end of two epochs. */
static tdm_dataset_position expected_position(seek_kind k, size_t steps, size_t replicas)
{
    size_t per_epoch = k.from_function ? 11 : 5, batches = steps * (k.from_function ? replicas : 1);
    if (batches >= 2 * per_epoch)
        return (tdm_dataset_position){2, 0};
    return (tdm_dataset_position){batches / per_epoch, batches % per_epoch};
}

static int position_is(const tdm_distributed_iterator *it, tdm_dataset_position want)
{
    tdm_dataset_position pos = {99, 99};
    CHECK_OK(tdm_distributed_iterator_position(it, &pos));
    return pos.epoch == want.epoch && pos.batch == want.batch;
}

/* For every k: an iterator that delivered k steps says where it stands; a fresh
 * iterator over a distributed dataset built the same way, moved there, delivers
 * exactly the steps that followed, bit for bit; the first iterator, moved back to the
 * start and forward again with a step prefetched, does too. */
static void check_seek_kind(seek_kind kind)
{
    tdm_strategy *s = in_mirrored(in_n_devs);
    tdm_distributed_dataset *dist = seek_dataset(s, kind), *again = seek_dataset(s, kind);
    tdm_distributed_iterator *it = NULL;
    trace whole = {0};
    CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    follow(it, MAX_TRACE, &whole);
    CHECK(position_is(it, (tdm_dataset_position){2, 0})); /* the end */
    tdm_distributed_iterator_destroy(it);
    const tdm_dataset_position start = {0, 0};
    for (size_t k = 0; dist && again && k < whole.steps; k++) {
        tdm_distributed_iterator *first = NULL, *second = NULL;
        const tdm_distributed_batch *b;
        tdm_dataset_position pos;
        trace resumed = {0}, restarted = {0}, back = {0};
        CHECK_OK(tdm_distributed_iterator_create(dist, &first));
        CHECK_OK(tdm_distributed_iterator_create(again, &second));
        CHECK(position_is(first, start));
        for (size_t i = 0; i < k; i++)
            CHECK_OK(tdm_distributed_iterator_next(first, &b));
        CHECK(position_is(first, expected_position(kind, k, in_n_devs)));
        CHECK_OK(tdm_distributed_iterator_position(first, &pos));
        CHECK_OK(tdm_distributed_iterator_seek(second, &pos));
        CHECK(position_is(second, pos));
        follow(second, MAX_TRACE, &resumed);
        CHECK(same_steps(&whole, k, &resumed, 0));
        CHECK_OK(tdm_distributed_iterator_seek(first, &start)); /* drops a prefetched step */
        follow(first, MAX_TRACE, &restarted);
        CHECK(same_steps(&whole, 0, &restarted, 0));
        CHECK_OK(tdm_distributed_iterator_seek(first, &pos)); /* after the end */
        follow(first, MAX_TRACE, &back);
        CHECK(same_steps(&whole, k, &back, 0));
        trace_free(&resumed);
        trace_free(&restarted);
        trace_free(&back);
        tdm_distributed_iterator_destroy(first);
        tdm_distributed_iterator_destroy(second);
    }
    trace_free(&whole);
    tdm_distributed_dataset_destroy(dist);
    tdm_distributed_dataset_destroy(again);
    tdm_strategy_destroy(s);
}

/* Positions no iterator over the data can stand at: refused, and the iterator goes on
 * where it was. */
static void check_seek_errors(seek_kind kind)
{
    tdm_strategy *s = in_mirrored(in_n_devs);
    tdm_distributed_dataset *dist = seek_dataset(s, kind);
    tdm_distributed_iterator *it = NULL, *ref = NULL;
    trace want = {0}, got = {0};
    const tdm_distributed_batch *b;
    CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    CHECK_OK(tdm_distributed_iterator_create(dist, &ref));
    CHECK_OK(tdm_distributed_iterator_next(it, &b)); /* one step in, one prefetched */
    CHECK_OK(tdm_distributed_iterator_next(ref, &b));
    unsigned long long per_epoch = kind.from_function ? 11 : 5;
    char needle[64];
    snprintf(needle, sizeof needle, "batch %llu is past the last batch", per_epoch);
    tdm_dataset_position pos = {0, per_epoch};
    CHECK_FAILS(tdm_distributed_iterator_seek(it, &pos), TDM_ERR_INVALID_ARGUMENT, needle);
    CHECK(strstr(tdm_last_error(), "tdm_distributed_iterator_seek") != NULL);
    pos = (tdm_dataset_position){3, 0};
    CHECK_FAILS(tdm_distributed_iterator_seek(it, &pos), TDM_ERR_INVALID_ARGUMENT,
                "past the end of the data (2 epochs)");
    pos = (tdm_dataset_position){2, 1};
    CHECK_FAILS(tdm_distributed_iterator_seek(it, &pos), TDM_ERR_INVALID_ARGUMENT, "past the end");
    CHECK_FAILS(tdm_distributed_iterator_seek(it, NULL), TDM_ERR_INVALID_ARGUMENT, "'pos'");
    CHECK_FAILS(tdm_distributed_iterator_seek(NULL, &pos), TDM_ERR_INVALID_ARGUMENT, "'it'");
    CHECK_FAILS(tdm_distributed_iterator_position(it, NULL), TDM_ERR_INVALID_ARGUMENT, "'pos'");
    CHECK(position_is(it, expected_position(kind, 1, in_n_devs)));
    follow(it, MAX_TRACE, &got);
    follow(ref, MAX_TRACE, &want);
    CHECK(want.steps > 1 && same_steps(&got, 0, &want, 0));
    trace_free(&want);
    trace_free(&got);
    tdm_distributed_iterator_destroy(it);
    tdm_distributed_iterator_destroy(ref);
    tdm_distributed_dataset_destroy(dist);
    tdm_strategy_destroy(s);
}

void in_check_seek(void)
{
    for (int cache = 0; cache <= 1; cache++)
        for (int prefetch = 0; prefetch <= 1; prefetch++) {
            check_seek_kind((seek_kind){0, cache, prefetch});
            check_seek_errors((seek_kind){0, cache, prefetch});
        }
    check_seek_kind((seek_kind){1, 0, 1}); /* from a function: always prefetched */
    check_seek_errors((seek_kind){1, 0, 1});
}
