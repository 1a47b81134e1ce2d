/* The in-place transformations, checked against the pipeline's fixed shape:
 * select examples, shuffle, batch, repeat; maps anywhere. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/dataset_impl.h"
#include "base/error.h"
#include "input/shuffle.h"

static const char *const stage_names[] = {
    [TDM_STAGE_EXAMPLES] = "selecting examples",
    [TDM_STAGE_SHUFFLED] = "shuffled",
    [TDM_STAGE_BATCHED] = "batched",
    [TDM_STAGE_REPEATED] = "repeated",
};

/* Fails unless ds is no further along than `latest`; `rule` says what is allowed. */
static tdm_status require_stage(const tdm_dataset *ds, tdm_pipeline_stage latest, const char *func,
                                const char *rule)
{
    TDM_CHECK_ARG(ds, func);
    if (ds->stage <= latest)
        return TDM_OK;
    return tdm_fail(TDM_ERR_INVALID_STATE, "%s: %s, and the dataset is already %s", func, rule,
                    stage_names[ds->stage]);
}

static tdm_status require_selectable(const tdm_dataset *ds, const char *func)
{
    return require_stage(ds, TDM_STAGE_EXAMPLES, func,
                         "examples are selected before shuffle, batch and repeat");
}

tdm_status tdm_dataset_take(tdm_dataset *ds, size_t n)
{
    tdm_status s = require_selectable(ds, "tdm_dataset_take");
    if (s == TDM_OK && n < ds->row_count)
        ds->row_count = n;
    return s;
}

tdm_status tdm_dataset_skip(tdm_dataset *ds, size_t n)
{
    tdm_status s = require_selectable(ds, "tdm_dataset_skip");
    if (s != TDM_OK)
        return s;
    if (n > ds->row_count)
        n = ds->row_count;
    ds->row_count -= n;
    memmove(ds->rows, ds->rows + n, ds->row_count * sizeof *ds->rows);
    return TDM_OK;
}

tdm_status tdm_dataset_split(const tdm_dataset *ds, double fraction, tdm_dataset **first,
                             tdm_dataset **rest)
{
    const char *func = "tdm_dataset_split";
    TDM_CHECK_ARG(first, func);
    TDM_CHECK_ARG(rest, func);
    *first = *rest = NULL;
    tdm_status s = require_selectable(ds, func);
    if (s != TDM_OK)
        return s;
    if (!(fraction >= 0 && fraction <= 1))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: fraction %g is not in [0, 1]", func,
                        fraction);
    size_t k = (size_t)floor(fraction * (double)ds->row_count);
    s = tdm_dataset_clone(ds, ds->rows, k, first);
    if (s == TDM_OK)
        s = tdm_dataset_clone(ds, ds->rows + k, ds->row_count - k, rest);
    if (s != TDM_OK) {
        tdm_dataset_destroy(*first);
        *first = NULL;
    }
    return s;
}

tdm_status tdm_dataset_shuffle_once(tdm_dataset *ds, uint64_t seed)
{
    tdm_status s = require_selectable(ds, "tdm_dataset_shuffle_once");
    if (s == TDM_OK)
        tdm_shuffle(ds->rows, ds->row_count, seed, 0);
    return s;
}

tdm_status tdm_dataset_shuffle(tdm_dataset *ds, uint64_t seed)
{
    tdm_status s = require_stage(ds, TDM_STAGE_EXAMPLES, "tdm_dataset_shuffle",
                                 "shuffle comes once, before batch and repeat");
    if (s != TDM_OK)
        return s;
    ds->stage = TDM_STAGE_SHUFFLED;
    ds->shuffled = 1;
    ds->seed = seed;
    return TDM_OK;
}

tdm_status tdm_dataset_batch(tdm_dataset *ds, size_t global_batch, int drop_remainder)
{
    const char *func = "tdm_dataset_batch";
    tdm_status s = require_stage(ds, TDM_STAGE_SHUFFLED, func,
                                 "batch comes once, before repeat (batches never straddle epochs)");
    if (s != TDM_OK)
        return s;
    if (!global_batch)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: global_batch is 0", func);
    ds->stage = TDM_STAGE_BATCHED;
    ds->batch_size = global_batch;
    ds->drop_remainder = drop_remainder != 0;
    return TDM_OK;
}

tdm_status tdm_dataset_repeat(tdm_dataset *ds, int64_t count)
{
    const char *func = "tdm_dataset_repeat";
    TDM_CHECK_ARG(ds, func);
    if (count < TDM_REPEAT_FOREVER)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: count is %lld, expected >= 0 or TDM_REPEAT_FOREVER", func,
                        (long long)count);
    uint64_t times = count == TDM_REPEAT_FOREVER ? TDM_EPOCHS_FOREVER : (uint64_t)count;
    uint64_t epochs = ds->epochs;
    if (epochs == 0 || times == 0)
        epochs = 0;
    else if (epochs == TDM_EPOCHS_FOREVER || times == TDM_EPOCHS_FOREVER)
        epochs = TDM_EPOCHS_FOREVER;
    else if (epochs > (TDM_EPOCHS_FOREVER - 1) / times)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %llu epochs repeated %llu times overflow 64 bits", func,
                        (unsigned long long)epochs, (unsigned long long)times);
    else
        epochs *= times;
    ds->epochs = epochs;
    ds->stage = TDM_STAGE_REPEATED;
    return TDM_OK;
}

tdm_status tdm_dataset_push_map(tdm_dataset *ds, const tdm_map_stage *stage)
{
    tdm_map_stage *maps = realloc(ds->maps, (ds->map_count + 1) * sizeof *maps);
    if (!maps) {
        free(stage->owned);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "no host memory for a dataset's maps");
    }
    ds->maps = maps;
    ds->maps[ds->map_count++] = *stage;
    return TDM_OK;
}

tdm_status tdm_dataset_map(tdm_dataset *ds, tdm_dataset_map_fn fn, void *user)
{
    TDM_CHECK_ARG(ds, "tdm_dataset_map");
    TDM_CHECK_ARG(fn, "tdm_dataset_map");
    tdm_map_stage stage = {.fn = fn, .user = user};
    return tdm_dataset_push_map(ds, &stage);
}
