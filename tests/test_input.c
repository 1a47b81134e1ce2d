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

/* Distributes ds (taken over) over `replicas` and records what it delivers. */
static void run_global(tdm_dataset *ds, size_t replicas, int prefetch, seen *out)
{
    tdm_strategy *s = mirrored(replicas);
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

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_input SCENARIO\n");
        return 2;
    }
    ctx = test_context(TDM_BACKENDS_ALL);
    n_devs = test_scenario_devices(ctx, argv[1], devs);
    CHECK(n_devs >= 2);
    if (n_devs >= 2) {
        check_split();
        check_drop_remainder();
        check_order_independent_of_replicas();
        check_bad_datasets();
        check_input_context();
        check_from_function();
        check_sharding();
        check_average_loss();
        check_prefetch();
    }
    CHECK(tdm_context_validation_messages(ctx) == 0);
    tdm_context_destroy(ctx);
    return test_finish(argv[1]);
}
