/* Distributed datasets: a global pipeline to split, or pipelines built per input
 * context; and the input context's per-replica batch size. */
#include <stdlib.h>

#include "input/dataset_impl.h"
#include "base/error.h"
#include "distribute/distributed_input/input_impl.h"
#include "distribute/strategy_impl.h"
#include "base/options.h"

tdm_status tdm_input_context_per_replica_batch_size(const tdm_input_context *ic, size_t global,
                                                    size_t *out)
{
    const char *func = "tdm_input_context_per_replica_batch_size";
    TDM_CHECK_ARG(ic, func);
    TDM_CHECK_ARG(out, func);
    size_t n = ic->num_replicas_in_sync;
    if (n == 0 || global % n != 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the global batch size %zu is not divisible by the %zu replicas in "
                        "sync",
                        func, global, n);
    *out = global / n;
    return TDM_OK;
}

void tdm_distributed_dataset_destroy(tdm_distributed_dataset *dist)
{
    if (!dist)
        return;
    for (size_t p = 0; p < dist->pipeline_count; p++)
        tdm_dataset_destroy(dist->pipelines[p]);
    tdm_input_cache_release(dist->cache);
    free(dist->pipelines);
    free(dist);
}

static tdm_status create(tdm_strategy *s, tdm_input_mode mode, size_t pipelines,
                         const tdm_distribute_options *opts, const char *func,
                         tdm_distributed_dataset **out)
{
    TDM_CHECK_ARG(s, func);
    tdm_distributed_dataset *dist = calloc(1, sizeof *dist);
    if (!dist || !(dist->pipelines = calloc(pipelines, sizeof *dist->pipelines))) {
        free(dist);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: no host memory", func);
    }
    dist->strategy = s;
    dist->mode = mode;
    dist->opts = (tdm_distribute_options)TDM_DISTRIBUTE_OPTIONS_INIT;
    tdm_status st = tdm_options_read(&dist->opts, sizeof dist->opts, opts, func);
    if (st != TDM_OK) {
        tdm_distributed_dataset_destroy(dist);
        return st;
    }
    *out = dist;
    return TDM_OK;
}

/* Every pipeline must be batched (by its mode's batch size) and give the same rows. */
static tdm_status check_pipeline(const tdm_distributed_dataset *dist, const tdm_dataset *ds,
                                 const char *func, const char *batched_by)
{
    if (!tdm_dataset_batch_size(ds))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the dataset is not batched: batch it by the %s batch size", func,
                        batched_by);
    const tdm_dataset *first = dist->pipelines[0];
    if (first && (tdm_dataset_feature_count(ds) != tdm_dataset_feature_count(first) ||
                  tdm_dataset_batch_size(ds) != tdm_dataset_batch_size(first)))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the pipelines differ in feature count or batch size", func);
    return TDM_OK;
}

tdm_status tdm_distribute_dataset(tdm_strategy *s, const tdm_dataset *ds,
                                  const tdm_distribute_options *opts, tdm_distributed_dataset **out)
{
    const char *func = "tdm_distribute_dataset";
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(ds, func);
    tdm_distributed_dataset *dist = NULL;
    tdm_status st = s && s->uneven_workers
                        ? tdm_fail(TDM_ERR_UNSUPPORTED,
                                   "%s: the workers of this job have different numbers of "
                                   "replicas; a global batch is split over workers of equal "
                                   "replica counts (or use tdm_distribute_datasets_from_function)",
                                   func)
                        : create(s, TDM_INPUT_GLOBAL, 1, opts, func, &dist);
    if (st == TDM_OK)
        st = check_pipeline(dist, ds, func, "global");
    if (st == TDM_OK) /* a snapshot: later transformations of ds do not reach it */
        st = tdm_dataset_clone(ds, NULL, ds->row_count, &dist->pipelines[0]);
    if (st == TDM_OK)
        dist->pipeline_count = 1;
    if (st == TDM_OK && dist->opts.cache_on_devices)
        st = tdm_input_cache_create(s, dist->pipelines[0], func, &dist->cache);
    if (st != TDM_OK) {
        tdm_distributed_dataset_destroy(dist);
        return st;
    }
    *out = dist;
    return TDM_OK;
}

/* One process is one input pipeline: worker w of a multi-worker job calls fn for
 * pipeline w of num_workers, which feeds its own replicas. */
tdm_status tdm_distribute_datasets_from_function(tdm_strategy *s, tdm_dataset_fn fn, void *user,
                                                 tdm_distributed_dataset **out)
{
    const char *func = "tdm_distribute_datasets_from_function";
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(fn, func);
    const size_t pipelines = 1; /* this process's */
    tdm_distributed_dataset *dist = NULL;
    tdm_status st = create(s, TDM_INPUT_PER_REPLICA, pipelines, NULL, func, &dist);
    if (st != TDM_OK)
        return st;
    size_t worker = tdm_strategy_worker_index(s);
    tdm_input_context ic = {.num_input_pipelines = tdm_strategy_num_workers(s),
                            .input_pipeline_id = worker,
                            .num_replicas_in_sync = tdm_strategy_num_replicas(s)};
    for (; st == TDM_OK && ic.input_pipeline_id < worker + pipelines; ic.input_pipeline_id++) {
        tdm_dataset *ds = NULL;
        st = fn(&ic, user, &ds);
        if (st != TDM_OK)
            st = tdm_fail_context(st, "%s: input pipeline %zu", func, ic.input_pipeline_id);
        else if (!ds)
            st = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: fn returned no dataset", func);
        else if ((st = check_pipeline(dist, ds, func, "per-replica")) != TDM_OK)
            tdm_dataset_destroy(ds);
        else
            dist->pipelines[dist->pipeline_count++] = ds;
    }
    if (st != TDM_OK) {
        tdm_distributed_dataset_destroy(dist);
        return st;
    }
    *out = dist;
    return TDM_OK;
}
