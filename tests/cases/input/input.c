/* Distributed input: global batches split across replicas, uneven and empty slices,
 * drop_remainder, example order independent of the replica count, input contexts,
 * datasets from a function, sharding, device prefetch and the loss helpers. */
#include "input_fixture.h"

static void check_split(void)
{
    seen s;
    for (int prefetch = 0; prefetch <= 1; prefetch++) {
        in_run_global(in_batched(14, 8, 0), 2, prefetch, &s);
        CHECK(s.steps == 2 && in_rows_are(&s, 0, 4, 4, 0) && in_rows_are(&s, 1, 3, 3, 0));
        CHECK(s.global[0] == 8 && s.global[1] == 6 && s.id_count == 14);
        for (size_t i = 0; i < s.id_count; i++)
            CHECK(s.ids[i] == (int)i);
    }
    if (in_n_devs < 3)
        return;
    in_run_global(in_batched(14, 8, 0), 3, 1, &s);
    CHECK(s.steps == 2 && in_rows_are(&s, 0, 3, 3, 2) && in_rows_are(&s, 1, 2, 2, 2));
    /* A global batch smaller than the replica count: trailing empty slices. */
    in_run_global(in_batched(14, 2, 0), 3, 1, &s);
    CHECK(s.steps == 7 && s.id_count == 14);
    for (size_t k = 0; k < s.steps; k++)
        CHECK(in_rows_are(&s, k, 1, 1, 0) && s.global[k] == 2);
    /* 5 examples, batch 4: the partial batch of 1 leaves two replicas empty. */
    in_run_global(in_batched(5, 4, 0), 3, 1, &s);
    CHECK(s.steps == 2 && in_rows_are(&s, 0, 2, 1, 1) && in_rows_are(&s, 1, 1, 0, 0));
}

/* Batch shares: rows in proportion, the rest to the largest remainders (the lower
 * replica on a tie), the examples in the same order; equal shares split evenly. */
static void check_batch_shares(void)
{
    seen s;
    in_run_shared(in_batched(14, 8, 0), 2, (const double[]){3, 1}, 1, &s);
    CHECK(s.steps == 2 && in_rows_are(&s, 0, 6, 2, 0) && in_rows_are(&s, 1, 5, 1, 0));
    CHECK(s.id_count == 14);
    for (size_t i = 0; i < s.id_count; i++)
        CHECK(s.ids[i] == (int)i);
    in_run_shared(in_batched(14, 8, 0), 2, (const double[]){0, 2}, 0, &s);
    CHECK(s.steps == 2 && in_rows_are(&s, 0, 0, 8, 0) && in_rows_are(&s, 1, 0, 6, 0));
    in_run_shared(in_batched(14, 8, 0), 2, (const double[]){0.5, 0.5}, 0, &s);
    CHECK(s.steps == 2 && in_rows_are(&s, 0, 4, 4, 0) && in_rows_are(&s, 1, 3, 3, 0));
    tdm_strategy *st = in_mirrored(2);
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
    if (in_n_devs < 3)
        return;
    in_run_shared(in_batched(14, 8, 0), 3, (const double[]){1, 1, 1}, 1, &s);
    CHECK(s.steps == 2 && in_rows_are(&s, 0, 3, 3, 2) && in_rows_are(&s, 1, 2, 2, 2));
    in_run_shared(in_batched(14, 8, 0), 3, (const double[]){2, 1, 1}, 1, &s);
    CHECK(s.steps == 2 && in_rows_are(&s, 0, 4, 2, 2) && in_rows_are(&s, 1, 3, 2, 1));
}

static void check_drop_remainder(void)
{
    seen s;
    in_run_global(in_batched(14, 8, 1), 2, 1, &s);
    CHECK(s.steps == 1 && in_rows_are(&s, 0, 4, 4, 0) && s.id_count == 8);
}

/* Shuffled, two epochs, batch 5: the same examples in the same order on 1, 2, 3
 * replicas when the slices are concatenated in replica order. */
static void check_order_independent_of_replicas(void)
{
    seen first, s;
    for (size_t n = 1; n <= in_n_devs; n++) {
        tdm_dataset *ds = in_numbered(14);
        CHECK_OK(tdm_dataset_shuffle(ds, 1234));
        CHECK_OK(tdm_dataset_batch(ds, 5, 0));
        CHECK_OK(tdm_dataset_repeat(ds, 2));
        in_run_global(ds, n, 1, n == 1 ? &first : &s);
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
    tdm_strategy *s = in_mirrored(2);
    tdm_dataset *ds = in_numbered(4);
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
    *out = in_batched(14, per, 0);
    return TDM_OK;
}

static void check_from_function(void)
{
    tdm_strategy *s = in_mirrored(2);
    fn_state st = {0};
    tdm_distributed_dataset *dist = NULL;
    CHECK_OK(tdm_distribute_datasets_from_function(s, make_pipeline, &st, &dist));
    CHECK(st.calls == 1 && st.ic.num_input_pipelines == 1 && st.ic.input_pipeline_id == 0 &&
          st.ic.num_replicas_in_sync == 2);
    seen got;
    if (dist)
        in_collect(s, dist, &got);
    /* Batches of 4 to replicas 0 and 1 in turn: 4+4, then 4 and the partial 2. */
    CHECK(got.steps == 2 && in_rows_are(&got, 0, 4, 4, 0) && in_rows_are(&got, 1, 4, 2, 0));
    CHECK(got.global[1] == 6 && got.id_count == 14);
    for (size_t i = 0; i < got.id_count; i++)
        CHECK(got.ids[i] == (int)i);
    tdm_distributed_dataset_destroy(dist);
    tdm_strategy_destroy(s);
    if (in_n_devs < 3)
        return;
    s = in_mirrored(3); /* 8 does not divide by 3: fn's failure is the call's */
    CHECK_FAILS(tdm_distribute_datasets_from_function(s, make_pipeline, &st, &dist),
                TDM_ERR_INVALID_ARGUMENT, "not divisible");
    CHECK(dist == NULL);
    tdm_strategy_destroy(s);
}

static void check_sharding(void)
{
    tdm_dataset *ds = in_numbered(14);
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
    tdm_strategy *s = in_mirrored(in_n_devs);
    tdm_distributed_dataset *dist = NULL;
    tdm_dataset *ds = in_batched(5, 4, 0); /* steps of 4 and 1: empty replicas on 2 and 3 */
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
            CHECK_OK(tdm_tensor_create(in_devs[r], TDM_F32, &shape, &losses));
            CHECK_OK(tdm_tensor_create(in_devs[r], TDM_F32, &TDM_SCALAR, &avg));
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
    CHECK_OK(tdm_tensor_create(in_devs[0], TDM_F32, &TDM_SHAPE(2), &losses));
    CHECK_OK(tdm_tensor_create(in_devs[0], TDM_F32, &TDM_SCALAR, &avg));
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
    tdm_strategy *s = in_mirrored(2);
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

void test_case_input(const test_run *run)
{
    in_n_devs = test_scenario_of(run, &in_ctx, in_devs);
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
    in_check_cache_matches();
    in_check_cache_errors();
    in_check_seek();
}
