/* Distributed input: global batches split across replicas, uneven and empty slices,
 * drop_remainder, example order independent of the replica count, input contexts,
 * datasets from a function, sharding, device prefetch and the loss helpers. */
#include <stdlib.h>
#include <time.h>

#include "harness.h"

#define MAX_STEPS 64
#define MAX_IDS 512

static tdm_context *ctx;
static tdm_device *devs[3];
static size_t n_devs;

/* What an iteration delivered: each step's rows per replica, and every example's id
 * (its first feature) in replica order. */
typedef struct seen {
    size_t steps;
    size_t rows[MAX_STEPS][3];
    size_t global[MAX_STEPS];
    int ids[MAX_IDS];
    size_t id_count;
} seen;

/* Examples i = 0..count-1: features (i, 100 + i), label i % 5. */
static tdm_dataset *numbered(size_t count)
{
    float f[2 * 64];
    int32_t l[64];
    for (size_t i = 0; i < count; i++) {
        f[2 * i] = (float)i;
        f[2 * i + 1] = 100.0f + (float)i;
        l[i] = (int32_t)(i % 5);
    }
    tdm_dataset *ds = NULL;
    CHECK_OK(tdm_dataset_from_arrays(f, l, count, 2, 5, &ds));
    return ds;
}

static tdm_strategy *mirrored(size_t replicas)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, devs, replicas, NULL, &s));
    return s;
}

/* Checks one replica's slice (shape, device, label of each row) and records its ids. */
static void read_slice(const tdm_distributed_batch *b, size_t r, tdm_device *dev, seen *out)
{
    tdm_tensor *f = tdm_value_component(b->features, r);
    tdm_tensor *l = tdm_value_component(b->labels, r);
    size_t rows = b->replica_rows[r];
    tdm_shape fs = tdm_tensor_shape(f), ls = tdm_tensor_shape(l);
    CHECK(fs.rank == 2 && fs.dims[0] == rows && fs.dims[1] == 2);
    CHECK(ls.rank == 1 && ls.dims[0] == rows);
    CHECK(tdm_tensor_device(f) == dev && tdm_tensor_dtype(l) == TDM_I32);
    float x[2 * 64];
    int32_t y[64];
    if (!rows || rows > 64)
        return;
    CHECK_OK(tdm_tensor_read(f, x, rows * 2 * sizeof(float)));
    CHECK_OK(tdm_tensor_read(l, y, rows * sizeof(int32_t)));
    for (size_t i = 0; i < rows && out->id_count < MAX_IDS; i++) {
        CHECK(x[2 * i + 1] == 100.0f + x[2 * i] && y[i] == (int32_t)x[2 * i] % 5);
        out->ids[out->id_count++] = (int)x[2 * i];
    }
}

static void collect(tdm_strategy *s, const tdm_distributed_dataset *dist, seen *out)
{
    memset(out, 0, sizeof *out);
    tdm_distributed_iterator *it = NULL;
    CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    for (const tdm_distributed_batch *b; it && out->steps < MAX_STEPS; out->steps++) {
        CHECK_OK(tdm_distributed_iterator_next(it, &b));
        if (b->global_batch_size == 0) {
            CHECK(!b->features && !b->labels);
            break;
        }
        size_t sum = 0;
        for (size_t r = 0; r < b->num_replicas; r++) {
            out->rows[out->steps][r] = b->replica_rows[r];
            sum += b->replica_rows[r];
            read_slice(b, r, tdm_strategy_device(s, r), out);
        }
        CHECK(sum == b->global_batch_size);
        out->global[out->steps] = b->global_batch_size;
    }
    const tdm_distributed_batch *b;
    CHECK_OK(tdm_distributed_iterator_next(it, &b)); /* the end again */
    CHECK(b->global_batch_size == 0);
    tdm_distributed_iterator_destroy(it);
}

/* Distributes ds (taken over) over `replicas` with batch shares (NULL: even) and
 * records what it delivers. */
static void run_shared(tdm_dataset *ds, size_t replicas, const double *shares, int prefetch,
                       seen *out)
{
    tdm_strategy *s = mirrored(replicas);
    if (shares)
        CHECK_OK(tdm_strategy_set_batch_shares(s, shares, replicas));
    tdm_distribute_options o = TDM_DISTRIBUTE_OPTIONS_INIT;
    o.prefetch = prefetch;
    tdm_distributed_dataset *dist = NULL;
    CHECK_OK(tdm_distribute_dataset(s, ds, &o, &dist));
    tdm_dataset_destroy(ds); /* the distributed dataset has its snapshot */
    if (dist)
        collect(s, dist, out);
    tdm_distributed_dataset_destroy(dist);
    tdm_strategy_destroy(s);
}

static void run_global(tdm_dataset *ds, size_t replicas, int prefetch, seen *out)
{
    run_shared(ds, replicas, NULL, prefetch, out);
}

static int rows_are(const seen *s, size_t step, size_t a, size_t b, size_t c)
{
    return s->rows[step][0] == a && s->rows[step][1] == b && s->rows[step][2] == c;
}

static tdm_dataset *batched(size_t count, size_t batch, int drop)
{
    tdm_dataset *ds = numbered(count);
    CHECK_OK(tdm_dataset_batch(ds, batch, drop));
    return ds;
}

static void check_split(void)
{
    seen s;
    for (int prefetch = 0; prefetch <= 1; prefetch++) {
        run_global(batched(14, 8, 0), 2, prefetch, &s);
        CHECK(s.steps == 2 && rows_are(&s, 0, 4, 4, 0) && rows_are(&s, 1, 3, 3, 0));
        CHECK(s.global[0] == 8 && s.global[1] == 6 && s.id_count == 14);
        for (size_t i = 0; i < s.id_count; i++)
            CHECK(s.ids[i] == (int)i);
    }
    if (n_devs < 3)
        return;
    run_global(batched(14, 8, 0), 3, 1, &s);
    CHECK(s.steps == 2 && rows_are(&s, 0, 3, 3, 2) && rows_are(&s, 1, 2, 2, 2));
    /* A global batch smaller than the replica count: trailing empty slices. */
    run_global(batched(14, 2, 0), 3, 1, &s);
    CHECK(s.steps == 7 && s.id_count == 14);
    for (size_t k = 0; k < s.steps; k++)
        CHECK(rows_are(&s, k, 1, 1, 0) && s.global[k] == 2);
    /* 5 examples, batch 4: the partial batch of 1 leaves two replicas empty. */
    run_global(batched(5, 4, 0), 3, 1, &s);
    CHECK(s.steps == 2 && rows_are(&s, 0, 2, 1, 1) && rows_are(&s, 1, 1, 0, 0));
}

/* Batch shares: rows in proportion, the rest to the largest remainders (the lower
 * replica on a tie), the examples in the same order; equal shares split evenly. */
static void check_batch_shares(void)
{
    seen s;
    run_shared(batched(14, 8, 0), 2, (const double[]){3, 1}, 1, &s);
    CHECK(s.steps == 2 && rows_are(&s, 0, 6, 2, 0) && rows_are(&s, 1, 5, 1, 0));
    CHECK(s.id_count == 14);
    for (size_t i = 0; i < s.id_count; i++)
        CHECK(s.ids[i] == (int)i);
    run_shared(batched(14, 8, 0), 2, (const double[]){0, 2}, 0, &s);
    CHECK(s.steps == 2 && rows_are(&s, 0, 0, 8, 0) && rows_are(&s, 1, 0, 6, 0));
    run_shared(batched(14, 8, 0), 2, (const double[]){0.5, 0.5}, 0, &s);
    CHECK(s.steps == 2 && rows_are(&s, 0, 4, 4, 0) && rows_are(&s, 1, 3, 3, 0));
    tdm_strategy *st = mirrored(2);
    double got[2];
    CHECK_FAILS(tdm_strategy_set_batch_shares(st, (const double[]){0, 0}, 2),
                TDM_ERR_INVALID_ARGUMENT, "every share is 0");
    CHECK_FAILS(tdm_strategy_set_batch_shares(st, (const double[]){-1, 2}, 2),
                TDM_ERR_INVALID_ARGUMENT, "shares[0]");
    CHECK_FAILS(tdm_strategy_set_batch_shares(st, (const double[]){1}, 1), TDM_ERR_INVALID_ARGUMENT,
                "1 shares for 2 replicas");
    CHECK_OK(tdm_strategy_batch_shares(st, got, 2));
    CHECK(got[0] == 0.5 && got[1] == 0.5);
    CHECK_OK(tdm_strategy_set_batch_shares(st, (const double[]){1, 3}, 2));
    CHECK_OK(tdm_strategy_batch_shares(st, got, 2));
    CHECK(got[0] == 0.25 && got[1] == 0.75);
    tdm_strategy_destroy(st);
    if (n_devs < 3)
        return;
    run_shared(batched(14, 8, 0), 3, (const double[]){1, 1, 1}, 1, &s);
    CHECK(s.steps == 2 && rows_are(&s, 0, 3, 3, 2) && rows_are(&s, 1, 2, 2, 2));
    run_shared(batched(14, 8, 0), 3, (const double[]){2, 1, 1}, 1, &s);
    CHECK(s.steps == 2 && rows_are(&s, 0, 4, 2, 2) && rows_are(&s, 1, 3, 2, 1));
}

static void check_drop_remainder(void)
{
    seen s;
    run_global(batched(14, 8, 1), 2, 1, &s);
    CHECK(s.steps == 1 && rows_are(&s, 0, 4, 4, 0) && s.id_count == 8);
}

/* Shuffled, two epochs, batch 5: the same examples in the same order on 1, 2, 3
 * replicas when the slices are concatenated in replica order. */
static void check_order_independent_of_replicas(void)
{
    seen first, s;
    for (size_t n = 1; n <= n_devs; n++) {
        tdm_dataset *ds = numbered(14);
        CHECK_OK(tdm_dataset_shuffle(ds, 1234));
        CHECK_OK(tdm_dataset_batch(ds, 5, 0));
        CHECK_OK(tdm_dataset_repeat(ds, 2));
        run_global(ds, n, 1, n == 1 ? &first : &s);
        if (n == 1) {
            CHECK(first.id_count == 28 && first.steps == 6);
            continue;
        }
        CHECK(s.id_count == first.id_count && s.steps == first.steps);
        CHECK(memcmp(s.ids, first.ids, first.id_count * sizeof *s.ids) == 0);
    }
    CHECK(memcmp(first.ids, (int[]){0, 1, 2, 3, 4}, 5 * sizeof(int)) != 0); /* shuffled */
}

static void check_bad_datasets(void)
{
    tdm_strategy *s = mirrored(2);
    tdm_dataset *ds = numbered(4);
    tdm_distributed_dataset *dist = NULL;
    CHECK_FAILS(tdm_distribute_dataset(s, ds, NULL, &dist), TDM_ERR_INVALID_ARGUMENT,
                "not batched");
    CHECK(dist == NULL);
    tdm_distribute_options o = TDM_DISTRIBUTE_OPTIONS_INIT;
    o.size = 3;
    CHECK_OK(tdm_dataset_batch(ds, 2, 0));
    CHECK(tdm_distribute_dataset(s, ds, &o, &dist) == TDM_ERR_INVALID_ARGUMENT);
    tdm_dataset_destroy(ds);
    tdm_strategy_destroy(s);
    tdm_distributed_iterator_destroy(NULL);
    tdm_distributed_dataset_destroy(NULL);
}

static void check_input_context(void)
{
    tdm_input_context ic = {.num_input_pipelines = 1, .num_replicas_in_sync = 3};
    size_t per = 0;
    CHECK_OK(tdm_input_context_per_replica_batch_size(&ic, 9, &per));
    CHECK(per == 3);
    CHECK_FAILS(tdm_input_context_per_replica_batch_size(&ic, 8, &per), TDM_ERR_INVALID_ARGUMENT,
                "8");
    CHECK(strstr(tdm_last_error(), "3 replicas") != NULL);
}

typedef struct fn_state {
    int calls;
    tdm_input_context ic;
} fn_state;

/* Per-replica batches of global 8 / N (4 on 2 replicas). */
static tdm_status make_pipeline(const tdm_input_context *ic, void *user, tdm_dataset **out)
{
    fn_state *st = user;
    st->calls++;
    st->ic = *ic;
    size_t per;
    tdm_status s = tdm_input_context_per_replica_batch_size(ic, 8, &per);
    if (s != TDM_OK)
        return s;
    *out = batched(14, per, 0);
    return TDM_OK;
}

static void check_from_function(void)
{
    tdm_strategy *s = mirrored(2);
    fn_state st = {0};
    tdm_distributed_dataset *dist = NULL;
    CHECK_OK(tdm_distribute_datasets_from_function(s, make_pipeline, &st, &dist));
    CHECK(st.calls == 1 && st.ic.num_input_pipelines == 1 && st.ic.input_pipeline_id == 0 &&
          st.ic.num_replicas_in_sync == 2);
    seen got;
    if (dist)
        collect(s, dist, &got);
    /* Batches of 4 to replicas 0 and 1 in turn: 4+4, then 4 and the partial 2. */
    CHECK(got.steps == 2 && rows_are(&got, 0, 4, 4, 0) && rows_are(&got, 1, 4, 2, 0));
    CHECK(got.global[1] == 6 && got.id_count == 14);
    for (size_t i = 0; i < got.id_count; i++)
        CHECK(got.ids[i] == (int)i);
    tdm_distributed_dataset_destroy(dist);
    tdm_strategy_destroy(s);
    if (n_devs < 3)
        return;
    s = mirrored(3); /* 8 does not divide by 3: fn's failure is the call's */
    CHECK_FAILS(tdm_distribute_datasets_from_function(s, make_pipeline, &st, &dist),
                TDM_ERR_INVALID_ARGUMENT, "not divisible");
    CHECK(dist == NULL);
    tdm_strategy_destroy(s);
}

static void check_sharding(void)
{
    tdm_dataset *ds = numbered(14);
    CHECK_OK(tdm_dataset_shard(ds, 3, 1));
    CHECK(tdm_dataset_example_count(ds) == 5); /* 1, 4, 7, 10, 13 */
    tdm_dataset_iterator *it = NULL;
    const tdm_batch *b;
    CHECK_OK(tdm_dataset_iterator_create(ds, &it));
    for (int i = 1; it && i < 14; i += 3) {
        CHECK_OK(tdm_dataset_iterator_next(it, &b));
        CHECK(b->count == 1 && b->features[0] == (float)i);
    }
    tdm_dataset_iterator_destroy(it);
    CHECK_FAILS(tdm_dataset_shard(ds, 3, 3), TDM_ERR_INVALID_ARGUMENT, "[0, 3)");
    CHECK_OK(tdm_dataset_batch(ds, 2, 0));
    CHECK(tdm_dataset_shard(ds, 2, 0) == TDM_ERR_INVALID_STATE);
    tdm_dataset_destroy(ds);

    const char *files[] = {"a", "b", "c", "d", "e"}, *mine[5];
    size_t n = 0;
    CHECK_OK(tdm_shard_files(files, 5, 2, 1, mine, &n));
    CHECK(n == 2 && strcmp(mine[0], "b") == 0 && strcmp(mine[1], "d") == 0);
    CHECK_FAILS(tdm_shard_files(files, 2, 3, 0, mine, &n), TDM_ERR_INVALID_ARGUMENT, "by element");
}

/* Per-example losses of 1 on every row: each step's replicas must sum to a mean of
 * exactly 1, whatever the split, the partial batch and the empty replicas. */
static void check_average_loss(void)
{
    tdm_strategy *s = mirrored(n_devs);
    tdm_distributed_dataset *dist = NULL;
    tdm_dataset *ds = batched(5, 4, 0); /* steps of 4 and 1: empty replicas on 2 and 3 */
    CHECK_OK(tdm_distribute_dataset(s, ds, NULL, &dist));
    tdm_dataset_destroy(ds);
    tdm_distributed_iterator *it = NULL;
    CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    const tdm_distributed_batch *b = NULL;
    int empty_seen = 0;
    while (it && tdm_distributed_iterator_next(it, &b) == TDM_OK && b->global_batch_size) {
        float total = 0, ones[4] = {1, 1, 1, 1};
        for (size_t r = 0; r < b->num_replicas; r++) {
            tdm_tensor *losses = NULL, *avg = NULL;
            tdm_shape shape = TDM_SHAPE(b->replica_rows[r]);
            CHECK_OK(tdm_tensor_create(devs[r], TDM_F32, &shape, &losses));
            CHECK_OK(tdm_tensor_create(devs[r], TDM_F32, &TDM_SCALAR, &avg));
            if (b->replica_rows[r])
                CHECK_OK(tdm_tensor_write(losses, ones, b->replica_rows[r] * sizeof(float)));
            empty_seen += b->replica_rows[r] == 0;
            CHECK_OK(tdm_compute_average_loss(losses, b->global_batch_size, avg));
            float v = -1;
            CHECK_OK(tdm_tensor_read(avg, &v, sizeof v));
            CHECK(v == (float)b->replica_rows[r] * tdm_loss_scale(b->global_batch_size));
            total += v;
            tdm_tensor_destroy(losses);
            tdm_tensor_destroy(avg);
        }
        CHECK(total > 0.999f && total < 1.001f);
    }
    CHECK(empty_seen > 0 && tdm_loss_scale(0) == 0.0f && tdm_loss_scale(4) == 0.25f);
    tdm_tensor *losses = NULL, *avg = NULL;
    CHECK_OK(tdm_tensor_create(devs[0], TDM_F32, &TDM_SHAPE(2), &losses));
    CHECK_OK(tdm_tensor_create(devs[0], TDM_F32, &TDM_SCALAR, &avg));
    CHECK_FAILS(tdm_compute_average_loss(losses, 0, avg), TDM_ERR_INVALID_ARGUMENT,
                "global batch size");
    tdm_tensor_destroy(losses);
    tdm_tensor_destroy(avg);
    tdm_distributed_iterator_destroy(it);
    tdm_distributed_dataset_destroy(dist);
    tdm_strategy_destroy(s);
}

#define BIG_FEATURES 8192
#define BIG_ROWS 96

static void sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits (up to a minute: never a speed assertion) for the prefetch thread to have
 * uploaded `want` steps while the caller holds its current step. */
static int wait_uploaded(tdm_distributed_iterator *it, uint64_t want)
{
    tdm_input_stats st = {0};
    for (int i = 0; i < 60000; i++, sleep_ms(1))
        if (tdm_distributed_iterator_stats(it, &st) == TDM_OK && st.steps_uploaded >= want)
            return 1;
    return 0;
}

static tdm_distributed_iterator *big_iterator(tdm_strategy *s, int prefetch)
{
    float *f = malloc(sizeof(float) * BIG_ROWS * BIG_FEATURES);
    int32_t l[BIG_ROWS] = {0};
    for (size_t i = 0; f && i < (size_t)BIG_ROWS * BIG_FEATURES; i++)
        f[i] = (float)(i / BIG_FEATURES);
    tdm_dataset *ds = NULL;
    tdm_distributed_dataset *dist = NULL;
    tdm_distributed_iterator *it = NULL;
    tdm_distribute_options o = TDM_DISTRIBUTE_OPTIONS_INIT;
    o.prefetch = prefetch;
    CHECK_OK(tdm_dataset_from_arrays(f, l, BIG_ROWS, BIG_FEATURES, 1, &ds));
    CHECK_OK(tdm_dataset_batch(ds, 16, 0));
    CHECK_OK(tdm_distribute_dataset(s, ds, &o, &dist));
    CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    tdm_distributed_dataset_destroy(dist); /* the iterator outlives it */
    tdm_dataset_destroy(ds);
    free(f);
    return it;
}

/* Step k + 1 is uploaded while the caller still holds step k, whose tensors stay
 * intact; every step is then ready when next asks for it. */
static void check_prefetch(void)
{
    tdm_strategy *s = mirrored(2);
    tdm_distributed_iterator *it = big_iterator(s, 1);
    const tdm_distributed_batch *b = NULL;
    uint64_t steps = 0;
    for (; it && steps < BIG_ROWS / 16; steps++) {
        CHECK(wait_uploaded(it, steps + 1));
        CHECK_OK(tdm_distributed_iterator_next(it, &b));
        float first = -1;
        tdm_buffer_view v = tdm_tensor_view(tdm_value_component(b->features, 1));
        CHECK(steps + 1 == BIG_ROWS / 16 || wait_uploaded(it, steps + 2));
        CHECK_OK(tdm_buffer_read(v.buffer, v.offset, &first, sizeof first)); /* batch row 8 */
        CHECK(first == (float)(steps * 16 + 8));
    }
    CHECK_OK(tdm_distributed_iterator_next(it, &b));
    CHECK(b->global_batch_size == 0);
    tdm_input_stats st = {0};
    CHECK_OK(tdm_distributed_iterator_stats(it, &st));
    CHECK(st.steps == steps && st.steps_uploaded == steps);
    CHECK(st.steps_ready == steps); /* the end of the data is not counted */
    fprintf(stderr, "prefetch: %llu steps, upload %.4f s, wait %.4f s\n",
            (unsigned long long)st.steps, st.upload_seconds, st.wait_seconds);
    tdm_distributed_iterator_destroy(it);
    it = big_iterator(s, 0); /* without prefetch, next waits for every upload */
    while (it && tdm_distributed_iterator_next(it, &b) == TDM_OK && b->global_batch_size)
        ;
    CHECK_OK(tdm_distributed_iterator_stats(it, &st));
    CHECK(st.steps == BIG_ROWS / 16 && st.steps_ready == 0 && st.wait_seconds == st.upload_seconds);
    tdm_distributed_iterator_destroy(it);
    tdm_strategy_destroy(s);
}

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
    tdm_strategy *s = mirrored(n_devs);
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
static void check_cache_matches(void)
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
    if (n_devs < 3)
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

static void check_cache_errors(void)
{
    tdm_strategy *s = mirrored(2);
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
    ds = numbered(4);
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
    tdm_strategy *s = mirrored(n_devs);
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
        CHECK(position_is(first, expected_position(kind, k, n_devs)));
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
    tdm_strategy *s = mirrored(n_devs);
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
    CHECK(position_is(it, expected_position(kind, 1, n_devs)));
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

static void check_seek(void)
{
    for (int cache = 0; cache <= 1; cache++)
        for (int prefetch = 0; prefetch <= 1; prefetch++) {
            check_seek_kind((seek_kind){0, cache, prefetch});
            check_seek_errors((seek_kind){0, cache, prefetch});
        }
    check_seek_kind((seek_kind){1, 0, 1}); /* from a function: always prefetched */
    check_seek_errors((seek_kind){1, 0, 1});
}

void test_case_input(const test_run *run)
{
    n_devs = test_scenario_of(run, &ctx, devs);
    check_split();
    check_batch_shares();
    check_drop_remainder();
    check_order_independent_of_replicas();
    check_bad_datasets();
    check_input_context();
    check_from_function();
    check_sharding();
    check_average_loss();
    check_prefetch();
    check_cache_matches();
    check_cache_errors();
    check_seek();
}
