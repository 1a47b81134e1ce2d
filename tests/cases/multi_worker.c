/* The multi-worker strategy under mpirun: multi_worker SCENARIO MODE
 *   SCENARIO  reference | opencl: rank r takes 1 + r % 2 local devices of it
 *   MODE      collectives  ids, sums, means, NaN-winning MAX, bitwise agreement of a
 *                          large non-exact sum across ranks, in float32 and in float16,
 *                          all-gather and reduce-scatter across the ranks (in place
 *                          and not; each shard the bits of the all-reduce's slice;
 *                          cross-replica too),
 *                          and the chief's variables;
 *             roots        reduce to the root (float32 SUM, float16 MEAN) and broadcast
 *                          from it with the root on every replica of every rank, in
 *                          place and not: the root's reduction the bits of the
 *                          all-reduce (its exact elements the host's sum in replica
 *                          order), every other output untouched, the broadcast the
 *                          root's bytes; ranks naming different roots fail alike;
 *             input        2 local replicas per rank: global batches of 7 split by
 *                          TensorFlow's batch_sizes_for_worker (2 workers x 2 replicas:
 *                          worker 0 [2,2 | 2,1], worker 1 [2,1 | 2,2]), every row once;
 *             mismatch     rank 1 all-reduces another size: both sides fail naming both;
 *             kill         rank 1 dies before the third all-reduce (run with mpirun
 *                          --enable-recovery): every other rank fails with
 *                          TDM_ERR_TIMEOUT naming rank 1 within the 2 s bound, and
 *                          the ranks' roles (rank 0 the chief, the others workers);
 *             stall        rank 1 sleeps past the bound: the others name it likewise.
 * Each rank prints "rank R: PASS" or its failures; the ctest wrapper counts passes. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

#define TIMEOUT_S 2.0
#define ROOTS_TIMEOUT_S 60.0 /* a rank may compile its kernels first (a cold cache) */
#define BIG (3 * 262144 + 5) /* floats: several MiB, not a multiple of anything */

typedef struct job {
    const char *mode;
    size_t rank;
    tdm_tensor *small[3], *big[3];
    tdm_status fault; /* kill, stall, mismatch: what replica 0's collective returned */
    char fault_message[1024];
    double fault_after;
} job;

/* Exact in float: sums of small integers. */
static float value_at(size_t replica, size_t i)
{
    return (float)((replica + 1) * (i % 7 + 1));
}

static tdm_status collectives_fn(tdm_replica_context *rc, void *user)
{
    job *j = user;
    size_t local = tdm_replica_local_id(rc), id = tdm_replica_id(rc);
    float small[64], *big = malloc(BIG * sizeof *big);
    if (!big)
        return TDM_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < 64; i++)
        small[i] = i == 0 ? (float)(id + 1) : value_at(id, i);
    if (id == 1)
        small[5] = NAN;
    for (size_t i = 0; i < BIG; i++) /* sums that round: their bits depend on the order */
        big[i] = sinf((float)(i + 1) * 0.001f * (float)(id + 1)) / 3.0f;
    tdm_status s = tdm_tensor_write(j->small[local], small, sizeof small);
    if (s == TDM_OK)
        s = tdm_tensor_write(j->big[local], big, BIG * sizeof *big);
    free(big);
    if (s == TDM_OK)
        s = tdm_replica_all_reduce(rc, TDM_REDUCE_SUM, j->small[local]);
    if (s == TDM_OK)
        s = tdm_replica_all_reduce(rc, TDM_REDUCE_SUM, j->big[local]);
    return s;
}

/* The values of collectives_fn's big sum but the last (an odd count) as float16,
 * summed in float16, back in float32; the last element 0 on every rank. */
static tdm_status f16_fn(tdm_replica_context *rc, void *user)
{
    job *j = user;
    size_t local = tdm_replica_local_id(rc), id = tdm_replica_id(rc);
    float *big = malloc(BIG * sizeof *big);
    if (!big)
        return TDM_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < BIG; i++)
        big[i] = i + 1 < BIG ? sinf((float)(i + 1) * 0.001f * (float)(id + 1)) / 3.0f : 0.0f;
    tdm_status s = tdm_tensor_write(j->big[local], big, BIG * sizeof *big);
    free(big);
    tdm_tensor *part = NULL, *halves = NULL;
    tdm_device *dev = tdm_replica_device(rc);
    if (s == TDM_OK)
        s = tdm_tensor_slice(j->big[local], 0, &TDM_SHAPE(BIG - 1), &part);
    if (s == TDM_OK)
        s = tdm_tensor_create(dev, TDM_F16, &TDM_SHAPE(BIG - 1), &halves);
    if (s == TDM_OK)
        s = tdm_op_cast(halves, part);
    if (s == TDM_OK)
        s = tdm_replica_all_reduce(rc, TDM_REDUCE_SUM, halves);
    if (s == TDM_OK)
        s = tdm_op_cast(part, halves);
    tdm_tensor_destroy(halves);
    tdm_tensor_destroy(part);
    return s;
}

/* Every replica's float16 sums lie within the roundings of the float sums: each
 * value and each partial sum off by half a unit of 2^-10 at most (|sums| < 2). */
static void check_f16_sums(tdm_strategy *s, job *j, size_t local)
{
    size_t n = tdm_strategy_num_replicas(s);
    float *got = malloc(BIG * sizeof *got);
    CHECK(got != NULL);
    for (size_t r = 0; got && r < local; r++) {
        CHECK_OK(tdm_tensor_read(j->big[r], got, BIG * sizeof *got));
        double worst = 0.0;
        for (size_t i = 0; i + 1 < BIG; i++) {
            double want = 0.0;
            for (size_t g = 0; g < n; g++)
                want += sinf((float)(i + 1) * 0.001f * (float)(g + 1)) / 3.0f;
            worst = fmax(worst, fabs(got[i] - want));
        }
        CHECK(worst > 0.0 && worst <= (double)(2 * n) * 0x1p-11);
        CHECK(got[BIG - 1] == 0.0f);
    }
    free(got);
}

static void check_collectives(tdm_strategy *s, job *j, size_t local)
{
    size_t n = tdm_strategy_num_replicas(s);
    float small[64];
    for (size_t r = 0; r < local; r++) {
        CHECK_OK(tdm_tensor_read(j->small[r], small, sizeof small));
        CHECK(small[0] == (float)(n * (n + 1) / 2)); /* ids are global and distinct */
        CHECK(n < 2 || isnan(small[5]));
        float want = 0;
        for (size_t g = 0; g < n; g++)
            want += value_at(g, 9);
        CHECK(small[9] == want);
    }
    /* This rank's replicas hold the same bits of the big sum (agree_fn compares
     * across ranks). */
    float *a = malloc(BIG * sizeof *a), *b = malloc(BIG * sizeof *b);
    CHECK(a && b);
    for (size_t r = 0; a && b && r < local; r++) {
        CHECK_OK(tdm_tensor_read(j->big[r], a, BIG * sizeof *a));
        if (r > 0)
            CHECK(!memcmp(a, b, BIG * sizeof *a));
        memcpy(b, a, BIG * sizeof *a);
    }
    free(a);
    free(b);
}

/* A whole of n parts of `size` floats and replica id's part: its slice of the whole
 * (in place) or a tensor of its own. */
static tdm_status whole_and_part(tdm_device *dev, size_t n, size_t id, size_t size, int in_place,
                                 tdm_tensor **whole, tdm_tensor **part)
{
    tdm_status s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(n * size), whole);
    if (s == TDM_OK)
        s = in_place ? tdm_tensor_slice(*whole, id * size, &TDM_SHAPE(size), part)
                     : tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(size), part);
    return s;
}

/* Every replica gathers 3 exact values of its global id; then reduce-scatters 2 R
 * order-dependent values, in place where in_place, and compares its shard with
 * the same slice of an all-reduce of the same values, bit for bit. */
static tdm_status shards_fn(tdm_replica_context *rc, void *user)
{
    const int *in_place = user;
    size_t id = tdm_replica_id(rc), n = tdm_replica_num_replicas(rc);
    tdm_device *dev = tdm_replica_device(rc);
    float mine[3], *all = malloc(6 * n * sizeof *all);
    tdm_tensor *gathered = NULL, *value = NULL, *whole = NULL, *shard = NULL, *reduced = NULL;
    tdm_status s = all ? TDM_OK : TDM_ERR_OUT_OF_MEMORY;
    for (size_t j = 0; j < 3; j++)
        mine[j] = (float)(10 * id + j);
    if (s == TDM_OK)
        s = whole_and_part(dev, n, id, 3, *in_place, &gathered, &value);
    if (s == TDM_OK)
        s = tdm_tensor_write(value, mine, sizeof mine);
    if (s == TDM_OK)
        s = tdm_replica_all_gather(rc, value, gathered);
    if (s == TDM_OK)
        s = tdm_tensor_read(gathered, all, 3 * n * sizeof *all);
    for (size_t e = 0; s == TDM_OK && e < 3 * n; e++)
        CHECK(all[e] == (float)(10 * (e / 3) + e % 3));
    for (size_t e = 0; all && e < 2 * n; e++) /* sums that round: the order shows */
        all[e] = sinf((float)(e + 1) * 0.37f * (float)(id + 1)) / 3.0f;
    if (s == TDM_OK)
        s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(2 * n), &reduced);
    if (s == TDM_OK)
        s = whole_and_part(dev, n, id, 2, *in_place, &whole, &shard);
    if (s == TDM_OK)
        s = tdm_tensor_write(whole, all, 2 * n * sizeof *all);
    if (s == TDM_OK)
        s = tdm_tensor_write(reduced, all, 2 * n * sizeof *all);
    if (s == TDM_OK)
        s = tdm_replica_reduce_scatter(rc, TDM_REDUCE_MEAN, whole, shard);
    if (s == TDM_OK)
        s = tdm_replica_all_reduce(rc, TDM_REDUCE_MEAN, reduced);
    float got[2], want[2 * 64];
    if (s == TDM_OK)
        s = tdm_tensor_read(shard, got, sizeof got);
    if (s == TDM_OK && n <= 64)
        s = tdm_tensor_read(reduced, want, 2 * n * sizeof *want);
    if (s == TDM_OK)
        CHECK(!memcmp(got, want + 2 * id, sizeof got));
    tdm_tensor_destroy(shard);
    tdm_tensor_destroy(reduced);
    tdm_tensor_destroy(whole);
    tdm_tensor_destroy(value);
    tdm_tensor_destroy(gathered);
    free(all);
    return s;
}

/* roots: reduce to the root (float32 SUM or float16 MEAN) or broadcast from it
 * (float32), in place or into an output preset to a byte pattern. */
typedef struct root_case {
    int broadcast, half, in_place;
    size_t root;
} root_case;

#define ROOT_N 64

/* 8 exact values, then sums that round. */
static float root_value(size_t id, size_t e)
{
    return e < 8 ? value_at(id, e) : sinf((float)(e + 1) * 0.37f * (float)(id + 1)) / 3.0f;
}

/* Replica id's values on dev, cast to float16 where half. */
static tdm_status root_tensor(tdm_device *dev, int half, size_t id, tdm_tensor **out)
{
    float v[ROOT_N];
    for (size_t e = 0; e < ROOT_N; e++)
        v[e] = root_value(id, e);
    tdm_tensor *f = NULL;
    tdm_status s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(ROOT_N), &f);
    if (s == TDM_OK)
        s = tdm_tensor_write(f, v, sizeof v);
    if (s != TDM_OK || !half) {
        *out = f;
        return s;
    }
    s = tdm_tensor_create(dev, TDM_F16, &TDM_SHAPE(ROOT_N), out);
    if (s == TDM_OK)
        s = tdm_op_cast(*out, f);
    tdm_tensor_destroy(f);
    return s;
}

static tdm_status roots_fn(tdm_replica_context *rc, void *user)
{
    const root_case *c = user;
    size_t id = tdm_replica_id(rc), n = tdm_replica_num_replicas(rc);
    size_t bytes = ROOT_N * (c->half ? 2 : 4);
    tdm_device *dev = tdm_replica_device(rc);
    tdm_reduce_op op = c->half ? TDM_REDUCE_MEAN : TDM_REDUCE_SUM;
    float before[ROOT_N], preset[ROOT_N], want[ROOT_N], got[ROOT_N];
    memset(preset, 0x5a, sizeof preset);
    tdm_tensor *value = NULL, *all = NULL, *out = NULL;
    tdm_status s = root_tensor(dev, c->half, id, &value);
    if (s == TDM_OK)
        s = root_tensor(dev, c->half, id, &all); /* the all-reduce's copy */
    if (s == TDM_OK)
        s = tdm_tensor_read(value, before, bytes);
    if (s == TDM_OK && !c->in_place)
        s = tdm_tensor_create(dev, c->half ? TDM_F16 : TDM_F32, &TDM_SHAPE(ROOT_N), &out);
    if (s == TDM_OK && out)
        s = tdm_tensor_write(out, preset, bytes);
    if (s == TDM_OK)
        s = c->broadcast ? tdm_replica_broadcast(rc, value, out, c->root)
                         : tdm_replica_reduce(rc, op, value, out, c->root);
    if (s == TDM_OK && !c->broadcast)
        s = tdm_replica_all_reduce(rc, op, all);
    if (s == TDM_OK)
        s = tdm_tensor_read(out ? out : value, got, bytes);
    for (size_t e = 0; c->broadcast && e < ROOT_N; e++)
        want[e] = root_value(c->root, e);
    if (s == TDM_OK && !c->broadcast && id == c->root)
        s = tdm_tensor_read(all, want, bytes);
    else if (!c->broadcast)
        memcpy(want, out ? preset : before, bytes);
    if (s == TDM_OK)
        CHECK(!memcmp(got, want, bytes));
    for (size_t e = 0; s == TDM_OK && !c->broadcast && !c->half && id == c->root && e < 8; e++) {
        float sum = value_at(0, e);
        for (size_t g = 1; g < n; g++)
            sum += value_at(g, e);
        CHECK(got[e] == sum);
    }
    tdm_tensor_destroy(out);
    tdm_tensor_destroy(all);
    tdm_tensor_destroy(value);
    return s;
}

/* Every kind of call with the root on every replica of the job; then rank 0 naming
 * root 0 and the others root 1: every rank's run fails naming both. */
static void check_root_collectives(tdm_strategy *s, size_t rank)
{
    size_t n = tdm_strategy_num_replicas(s);
    for (size_t root = 0; root < n; root++)
        for (int k = 0; k < 6; k++) {
            root_case c = {
                .broadcast = k >= 4, .half = k / 2 == 1, .in_place = k % 2, .root = root};
            CHECK_OK(tdm_strategy_run(s, roots_fn, &c, NULL, 0, NULL));
        }
    for (int broadcast = 0; broadcast < 2; broadcast++) {
        root_case split = {.broadcast = broadcast, .root = rank ? 1 : 0};
        CHECK_FAILS(tdm_strategy_run(s, roots_fn, &split, NULL, 0, NULL), TDM_ERR_INVALID_STATE,
                    "rank 0 named root 0, rank 1 root 1");
    }
}

/* MAX and MIN over every process of replica 0's big result: equal where all agree. */
static tdm_status agree_fn(tdm_replica_context *rc, void *user)
{
    job *j = user;
    tdm_tensor *t = j->big[tdm_replica_local_id(rc)];
    float *mine = malloc(BIG * sizeof *mine), *other = malloc(BIG * sizeof *other);
    tdm_status st =
        mine && other ? tdm_tensor_read(t, mine, BIG * sizeof *mine) : TDM_ERR_OUT_OF_MEMORY;
    if (st == TDM_OK)
        st = tdm_replica_all_reduce(rc, TDM_REDUCE_MAX, t);
    if (st == TDM_OK)
        st = tdm_tensor_read(t, other, BIG * sizeof *other);
    if (st == TDM_OK && memcmp(mine, other, BIG * sizeof *mine))
        st = TDM_ERR_NUMERIC; /* some rank's bits were larger */
    if (st == TDM_OK)
        st = tdm_tensor_write(t, mine, BIG * sizeof *mine);
    if (st == TDM_OK)
        st = tdm_replica_all_reduce(rc, TDM_REDUCE_MIN, t);
    if (st == TDM_OK)
        st = tdm_tensor_read(t, other, BIG * sizeof *other);
    if (st == TDM_OK && memcmp(mine, other, BIG * sizeof *mine))
        st = TDM_ERR_NUMERIC;
    free(mine);
    free(other);
    return st;
}

static tdm_status mean_fn(tdm_replica_context *rc, void *user)
{
    job *j = user;
    size_t local = tdm_replica_local_id(rc);
    float v[64];
    for (size_t i = 0; i < 64; i++)
        v[i] = (float)(tdm_replica_id(rc) + i);
    tdm_status s = tdm_tensor_write(j->small[local], v, sizeof v);
    return s == TDM_OK ? tdm_replica_all_reduce(rc, TDM_REDUCE_MEAN, j->small[local]) : s;
}

/* v[i] = the replica's id, with a NaN from the last replica at 7: NaN wins. */
static tdm_status max_fn(tdm_replica_context *rc, void *user)
{
    job *j = user;
    size_t local = tdm_replica_local_id(rc), id = tdm_replica_id(rc);
    float v[64];
    for (size_t i = 0; i < 64; i++)
        v[i] = i == 7 && id + 1 == tdm_replica_num_replicas(rc) ? NAN : (float)id;
    tdm_status s = tdm_tensor_write(j->small[local], v, sizeof v);
    return s == TDM_OK ? tdm_replica_all_reduce(rc, TDM_REDUCE_MAX, j->small[local]) : s;
}

/* Replica 0 of every rank runs collectives until one fails; rank 1 misbehaves. */
static tdm_status fault_fn(tdm_replica_context *rc, void *user)
{
    job *j = user;
    size_t local = tdm_replica_local_id(rc);
    tdm_status s = TDM_OK;
    for (int k = 0; k < 5 && s == TDM_OK; k++) {
        if (j->rank == 1 && k == 2 && !strcmp(j->mode, "kill"))
            raise(SIGKILL);
        if (j->rank == 1 && k == 2 && !strcmp(j->mode, "stall"))
            sleep((unsigned)(3 * TIMEOUT_S));
        tdm_tensor *t = j->small[local];
        if (j->rank == 1 && k == 2 && !strcmp(j->mode, "mismatch"))
            t = j->big[local];
        double start = test_seconds();
        s = tdm_replica_all_reduce(rc, TDM_REDUCE_SUM, t);
        if (s != TDM_OK && local == 0) {
            j->fault = s;
            j->fault_after = test_seconds() - start;
            snprintf(j->fault_message, sizeof j->fault_message, "%s", tdm_last_error());
        }
    }
    return s;
}

static void check_variable(tdm_strategy *s, size_t rank)
{
    float init[10], got[10];
    for (int i = 0; i < 10; i++)
        init[i] = (float)(100 * rank + (size_t)i);
    tdm_variable_options o = TDM_VARIABLE_OPTIONS_INIT;
    o.name = "w";
    o.shape = TDM_SHAPE(10);
    o.initial_value = init;
    tdm_variable *v = NULL;
    CHECK_OK(tdm_strategy_scope_enter(s));
    CHECK_OK(tdm_variable_create(s, &o, &v));
    CHECK_OK(tdm_strategy_scope_exit(s));
    for (size_t c = 0; v && c < tdm_variable_copy_count(v); c++) {
        CHECK_OK(tdm_tensor_read(tdm_variable_copy(v, c), got, sizeof got));
        for (int i = 0; i < 10; i++)
            CHECK(got[i] == (float)i); /* the chief's */
    }
    /* Every process sees a copy that drifted on rank 1, named with its element. */
    CHECK_OK(tdm_strategy_scope_enter(s));
    CHECK_OK(tdm_strategy_check_mirrored(s));
    if (rank == 1 && v) {
        got[3] = -1.0f;
        CHECK_OK(tdm_tensor_write(tdm_variable_copy(v, 0), got, sizeof got));
        CHECK_OK(tdm_tensor_write(tdm_variable_copy(v, tdm_variable_copy_count(v) - 1), got,
                                  sizeof got));
    }
    CHECK_FAILS(tdm_strategy_check_mirrored(s), TDM_ERR_INVALID_STATE,
                "rank 1's copy differs from the chief's first at element 3");
    CHECK_OK(tdm_strategy_scope_exit(s));
    tdm_variable_destroy(v);
}

/* 28 rows whose feature is their index, in global batches of 7. */
static void check_input(tdm_strategy *s, size_t rank)
{
    enum { ROWS = 28, BATCH = 7 };
    float features[ROWS];
    int32_t labels[ROWS];
    for (int i = 0; i < ROWS; i++) {
        features[i] = (float)i;
        labels[i] = i % 2;
    }
    size_t workers = tdm_strategy_num_workers(s), n = tdm_strategy_num_replicas(s);
    tdm_dataset *ds = NULL;
    tdm_distributed_dataset *dist = NULL;
    tdm_distributed_iterator *it = NULL;
    CHECK_OK(tdm_dataset_from_arrays(features, labels, ROWS, 1, 2, &ds));
    CHECK_OK(tdm_dataset_batch(ds, BATCH, 0));
    CHECK_OK(tdm_distribute_dataset(s, ds, NULL, &dist));
    CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    for (size_t step = 0; it && step < ROWS / BATCH; step++) {
        const tdm_distributed_batch *b = NULL;
        CHECK_OK(tdm_distributed_iterator_next(it, &b));
        if (!b)
            break;
        CHECK(b->global_batch_size == BATCH && b->num_replicas == 2);
        /* The base list (ceil sizes first), rolled by 2 per worker; step s takes
         * entries 2s, 2s+1 of it. Rows before this worker: the others' of this step. */
        size_t skip = 0, rows[2];
        for (size_t w = 0; w <= rank; w++)
            for (size_t r = 0; r < 2; r++) {
                size_t k = (2 * step + r + n - 2 * w % n) % n;
                size_t size = BATCH / n + (k < BATCH % n);
                if (w < rank)
                    skip += size;
                else
                    rows[r] = size;
            }
        CHECK(b->first_row == skip);
        size_t at = step * BATCH + skip;
        for (size_t r = 0; r < 2; r++) {
            CHECK(b->replica_rows[r] == rows[r]);
            float got[BATCH];
            tdm_tensor *f = tdm_value_component(b->features, r);
            if (rows[r])
                CHECK_OK(tdm_tensor_read(f, got, rows[r] * sizeof *got));
            for (size_t i = 0; i < rows[r]; i++)
                CHECK(got[i] == (float)(at + i));
            at += rows[r];
        }
        if (workers == 2 && step == 0) /* the example */
            CHECK(rank == 0 ? rows[0] == 2 && rows[1] == 2 : rows[0] == 2 && rows[1] == 1);
        if (workers == 2 && step == 1)
            CHECK(rank == 0 ? rows[0] == 2 && rows[1] == 1 : rows[0] == 2 && rows[1] == 2);
    }
    tdm_distributed_iterator_destroy(it);
    tdm_distributed_dataset_destroy(dist);
    tdm_dataset_destroy(ds);
}

static void run_faults(tdm_strategy *s, job *j)
{
    tdm_status st = tdm_strategy_run(s, fault_fn, j, NULL, 0, NULL);
    if (j->rank == 1 && strcmp(j->mode, "mismatch"))
        return; /* the misbehaving rank: nothing to check (or dead) */
    CHECK(st != TDM_OK);
    fprintf(stderr, "rank %zu: %s after %.2f s: %s\n", j->rank, tdm_status_str(j->fault),
            j->fault_after, j->fault_message);
    if (!strcmp(j->mode, "mismatch")) {
        CHECK(j->fault == TDM_ERR_INVALID_STATE);
        CHECK(strstr(j->fault_message, "rank 0 called") ||
              strstr(j->fault_message, "rank 1 called"));
        /* Both sides' calls: the small tensor's 256 bytes and the big one's. */
        char big[64];
        snprintf(big, sizeof big, "%zu bytes", (size_t)BIG * sizeof(float));
        CHECK(strstr(j->fault_message, "256 bytes") && strstr(j->fault_message, big));
        return;
    }
    CHECK(j->fault == TDM_ERR_TIMEOUT);
    CHECK(strstr(j->fault_message, "ranks 1 did not reach") != NULL);
    CHECK(strstr(j->fault_message, "; rank 0 is the chief, rank") != NULL);
    CHECK(j->fault_after < TIMEOUT_S + 1.5);
}

/* Cross-replica all-gather and reduce-scatter over every rank's replicas: replica g
 * holds 2 n exact values 100 g + e. Rank p holds 1 + p % 2 replicas, so this rank's
 * first is the sum of the counts before it. */
static void check_cross_replica_shards(tdm_strategy *s, tdm_device *const *devs, size_t local,
                                       size_t rank)
{
    size_t n = tdm_strategy_num_replicas(s), first = 0, m = 2 * n;
    for (size_t p = 0; p < rank; p++)
        first += 1 + p % 2;
    tdm_tensor *t[3] = {NULL};
    float *v = malloc(m * n * sizeof *v);
    CHECK(v != NULL);
    for (size_t r = 0; v && r < local; r++) {
        for (size_t e = 0; e < m; e++)
            v[e] = (float)(100 * (first + r) + e);
        CHECK_OK(tdm_tensor_create(devs[r], TDM_F32, &TDM_SHAPE(m), &t[r]));
        CHECK_OK(tdm_tensor_write(t[r], v, m * sizeof *v));
    }
    tdm_value *value = NULL, *gathered = NULL, *scattered = NULL;
    CHECK_OK(tdm_value_create(TDM_VALUE_PER_REPLICA, t, local, &value));
    CHECK_OK(tdm_strategy_all_gather(s, value, &gathered));
    CHECK_OK(tdm_strategy_reduce_scatter(s, TDM_REDUCE_SUM, value, &scattered));
    for (size_t r = 0; v && gathered && scattered && r < local; r++) {
        CHECK_OK(tdm_tensor_read(tdm_value_component(gathered, r), v, m * n * sizeof *v));
        for (size_t e = 0; e < m * n; e++)
            CHECK(v[e] == (float)(100 * (e / m) + e % m));
        CHECK_OK(tdm_tensor_read(tdm_value_component(scattered, r), v, 2 * sizeof *v));
        for (size_t k = 0; k < 2; k++) {
            float want = 0;
            for (size_t g = 0; g < n; g++)
                want += (float)(100 * g + 2 * (first + r) + k);
            CHECK(v[k] == want);
        }
    }
    tdm_value_destroy(gathered);
    tdm_value_destroy(scattered);
    tdm_value_destroy(value);
    free(v);
}

void test_case_multi_worker(const test_run *run)
{
    size_t rank = test_mpi_rank();
    tdm_context *ctx = test_context(test_scenario_backends(run->argv[0]));
    tdm_device *devs[3];
    tdm_strategy_options o;
    int roots = !strcmp(run->argv[1], "roots");
    size_t have =
        test_mpi_start(ctx, run->argv[0], rank, roots ? ROOTS_TIMEOUT_S : TIMEOUT_S, devs, &o);
    size_t local = !strcmp(run->argv[1], "input") ? 2 : 1 + rank % 2;
    local = local < have ? local : have;
    if (!have) {
        tdm_context_destroy(ctx);
        return;
    }
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_multi_worker(ctx, devs, local, &o, &s));
    if (!s)
        return;
    job j = {.mode = run->argv[1], .rank = rank};
    CHECK(tdm_strategy_worker_index(s) == rank);
    CHECK(tdm_strategy_is_chief(s) == (rank == 0));
    CHECK(tdm_strategy_num_local_replicas(s) == local);
    for (size_t r = 0; r < local; r++) {
        CHECK_OK(tdm_tensor_create(devs[r], TDM_F32, &TDM_SHAPE(64), &j.small[r]));
        CHECK_OK(tdm_tensor_create(devs[r], TDM_F32, &TDM_SHAPE(BIG), &j.big[r]));
    }
    if (!strcmp(run->argv[1], "collectives")) {
        CHECK_OK(tdm_strategy_run(s, collectives_fn, &j, NULL, 0, NULL));
        check_collectives(s, &j, local);
        CHECK_OK(tdm_strategy_run(s, agree_fn, &j, NULL, 0, NULL));
        CHECK_OK(tdm_strategy_run(s, mean_fn, &j, NULL, 0, NULL));
        size_t n = tdm_strategy_num_replicas(s);
        float v[64], alpha = (float)(1.0 / (double)n);
        CHECK_OK(tdm_tensor_read(j.small[0], v, sizeof v));
        CHECK(v[3] == alpha * (float)(n * 3 + n * (n - 1) / 2));
        CHECK_OK(tdm_strategy_run(s, max_fn, &j, NULL, 0, NULL));
        for (size_t r = 0; r < local; r++) {
            CHECK_OK(tdm_tensor_read(j.small[r], v, sizeof v));
            CHECK(v[0] == (float)(n - 1) && isnan(v[7]));
        }
        CHECK_OK(tdm_strategy_run(s, f16_fn, &j, NULL, 0, NULL));
        check_f16_sums(s, &j, local);
        CHECK_OK(tdm_strategy_run(s, agree_fn, &j, NULL, 0, NULL)); /* the same bits */
        for (int in_place = 0; in_place < 2; in_place++)
            CHECK_OK(tdm_strategy_run(s, shards_fn, &in_place, NULL, 0, NULL));
        check_cross_replica_shards(s, devs, local, rank);
        check_variable(s, rank);
    } else if (roots) {
        check_root_collectives(s, rank);
    } else if (!strcmp(run->argv[1], "input")) {
        check_input(s, rank);
    } else {
        run_faults(s, &j);
    }
    for (size_t r = 0; r < local; r++) {
        tdm_tensor_destroy(j.small[r]);
        tdm_tensor_destroy(j.big[r]);
    }
    tdm_strategy_destroy(s);
    tdm_context_destroy(ctx);
    if (test_failures == 0)
        printf("rank %zu: PASS\n", rank);
}
