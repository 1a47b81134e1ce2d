/* Sharding for several input pipelines: by element, or by file. */
#include "input/dataset_impl.h"
#include "base/error.h"
#include "tandem/input.h"

static tdm_status check_shard(size_t num_shards, size_t index, const char *func)
{
    if (num_shards == 0 || index >= num_shards)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: shard index %zu is not in [0, %zu)", func,
                        index, num_shards);
    return TDM_OK;
}

tdm_status tdm_dataset_shard(tdm_dataset *ds, size_t num_shards, size_t index)
{
    const char *func = "tdm_dataset_shard";
    TDM_CHECK_ARG(ds, func);
    tdm_status s = check_shard(num_shards, index, func);
    if (s != TDM_OK)
        return s;
    if (ds->stage != TDM_STAGE_EXAMPLES)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: shard selects examples: before shuffle, batch and repeat", func);
    size_t kept = 0;
    for (size_t i = index; i < ds->row_count; i += num_shards)
        ds->rows[kept++] = ds->rows[i];
    ds->row_count = kept;
    return TDM_OK;
}

tdm_status tdm_shard_files(const char *const *paths, size_t count, size_t num_shards, size_t index,
                           const char **out, size_t *out_count)
{
    const char *func = "tdm_shard_files";
    TDM_CHECK_ARG(paths, func);
    TDM_CHECK_ARG(out, func);
    TDM_CHECK_ARG(out_count, func);
    *out_count = 0;
    tdm_status s = check_shard(num_shards, index, func);
    if (s != TDM_OK)
        return s;
    if (count < num_shards)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %zu files for %zu shards would leave a shard empty: shard by "
                        "element (tdm_dataset_shard)",
                        func, count, num_shards);
    for (size_t i = index; i < count; i += num_shards)
        out[(*out_count)++] = paths[i];
    return TDM_OK;
}
