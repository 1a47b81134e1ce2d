/* A dataset cached on the devices (cache_on_devices): its examples, after the maps,
 * uploaded once to every replica's device, so that a step only gathers its rows there
 * (gather_rows) by row indices, its epoch's order (input_step.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/dataset_impl.h"
#include "base/error.h"
#include "distribute/distributed_input/input_impl.h"
#include "kernel/kernel_args.h"

tdm_input_cache *tdm_input_cache_retain(tdm_input_cache *cache)
{
    atomic_fetch_add(&cache->refs, 1);
    return cache;
}

void tdm_input_cache_release(tdm_input_cache *cache)
{
    if (!cache || atomic_fetch_sub(&cache->refs, 1) != 1)
        return;
    for (size_t i = 0; i < cache->replicas; i++) {
        tdm_tensor_destroy(cache->features[i]);
        tdm_tensor_destroy(cache->labels[i]);
    }
    free(cache->features);
    free(cache);
}

/* A launch of no rows: tdm_kernel_run checks that dev runs gather_rows and binds the
 * whole of x at once (Vulkan's maxStorageBufferRange), and launches nothing. */
static tdm_status probe(tdm_device *dev, tdm_tensor *x, size_t src_rows, size_t cols)
{
    const tdm_buffer_view whole = tdm_tensor_view(x);
    const tdm_gather_rows_args a = {.y = whole,
                                    .x = whole,
                                    .idx = whole,
                                    .rows = 0,
                                    .cols = (uint32_t)cols,
                                    .src_rows = (uint32_t)src_rows};
    return tdm_gather_rows_run(dev, &a);
}

/* Replica i's copy: the host arrays written to its device. */
static tdm_status upload(tdm_input_cache *c, tdm_device *dev, size_t i, const float *features,
                         const void *labels)
{
    size_t rows = c->examples, fc = c->feature_count, lw = c->label_width;
    tdm_status s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(rows, fc), &c->features[i]);
    if (s == TDM_OK)
        s = tdm_tensor_create(dev, c->label_dtype, &TDM_SHAPE(rows, lw), &c->labels[i]);
    if (s == TDM_OK && rows) {
        s = tdm_tensor_write(c->features[i], features, rows * fc * sizeof(float));
        if (s == TDM_OK)
            s = tdm_tensor_write(c->labels[i], labels, rows * lw * 4);
    }
    if (s == TDM_OK)
        s = probe(dev, c->features[i], rows, fc);
    if (s == TDM_OK)
        s = probe(dev, c->labels[i], rows, lw);
    return s;
}

tdm_status tdm_input_cache_create(tdm_strategy *s, const tdm_dataset *ds, const char *func,
                                  tdm_input_cache **out)
{
    *out = NULL;
    size_t rows = tdm_dataset_example_count(ds), fc = tdm_dataset_feature_count(ds);
    size_t lw = tdm_dataset_label_width(ds);
    if (rows > UINT32_MAX / fc || rows > UINT32_MAX / lw)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: cache_on_devices: %zu examples of %zu features are more than 2^32 "
                        "elements, which a kernel cannot index",
                        func, rows, fc);
    size_t n = tdm_strategy_num_local_replicas(s);
    tdm_input_cache *c = calloc(1, sizeof *c);
    float *features = malloc(rows * fc * sizeof(float) + 1);
    void *labels = malloc(rows * lw * 4 + 1);
    if (c)
        c->features = calloc(2 * n, sizeof *c->features);
    if (!c || !c->features || !features || !labels) {
        free(c ? c->features : NULL);
        free(c);
        free(features);
        free(labels);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "%s: cache_on_devices: no host memory for %zu examples of %zu features",
                        func, rows, fc);
    }
    atomic_init(&c->refs, 1);
    c->labels = c->features + n;
    c->replicas = n;
    c->examples = rows;
    c->feature_count = fc;
    c->label_dtype = tdm_dataset_label_dtype(ds);
    c->label_width = lw;
    /* The maps run here, once per example, and never per step. */
    tdm_status st = tdm_dataset_examples(ds, features, labels, func);
    for (size_t i = 0; i < n && st == TDM_OK; i++) {
        st = upload(c, tdm_strategy_device(s, i), i, features, labels);
        if (st != TDM_OK)
            st = tdm_fail_context(st, "%s: cache_on_devices: replica %zu", func, i);
    }
    free(features);
    free(labels);
    if (st != TDM_OK) {
        tdm_input_cache_release(c);
        return st;
    }
    *out = c;
    return TDM_OK;
}
