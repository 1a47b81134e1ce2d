/* The input case's shared set-up and checks (the case: input.c). */
#include "input_fixture.h"

tdm_context *in_ctx;
tdm_device *in_devs[3];
size_t in_n_devs;

/* Examples i = 0..count-1: features (i, 100 + i), label i % 5. */
tdm_dataset *in_numbered(size_t count)
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

tdm_strategy *in_mirrored(size_t replicas)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(in_ctx, in_devs, replicas, NULL, &s));
    return s;
}

/* Checks one replica's slice (shape, device, label of each row) and records its ids. */
void in_read_slice(const tdm_distributed_batch *b, size_t r, tdm_device *dev, seen *out)
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

void in_collect(tdm_strategy *s, const tdm_distributed_dataset *dist, seen *out)
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
            in_read_slice(b, r, tdm_strategy_device(s, r), out);
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
void in_run_shared(tdm_dataset *ds, size_t replicas, const double *shares, int prefetch, seen *out)
{
    tdm_strategy *s = in_mirrored(replicas);
    if (shares)
        CHECK_OK(tdm_strategy_set_batch_shares(s, shares, replicas));
    tdm_distribute_options o = TDM_DISTRIBUTE_OPTIONS_INIT;
    o.prefetch = prefetch;
    tdm_distributed_dataset *dist = NULL;
    CHECK_OK(tdm_distribute_dataset(s, ds, &o, &dist));
    tdm_dataset_destroy(ds); /* the distributed dataset has its snapshot */
    if (dist)
        in_collect(s, dist, out);
    tdm_distributed_dataset_destroy(dist);
    tdm_strategy_destroy(s);
}

void in_run_global(tdm_dataset *ds, size_t replicas, int prefetch, seen *out)
{
    in_run_shared(ds, replicas, NULL, prefetch, out);
}

int in_rows_are(const seen *s, size_t step, size_t a, size_t b, size_t c)
{
    return s->rows[step][0] == a && s->rows[step][1] == b && s->rows[step][2] == c;
}

tdm_dataset *in_batched(size_t count, size_t batch, int drop)
{
    tdm_dataset *ds = in_numbered(count);
    CHECK_OK(tdm_dataset_batch(ds, batch, drop));
    return ds;
}
