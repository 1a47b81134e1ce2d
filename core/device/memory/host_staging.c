#include <stdlib.h>

#include "base/error.h"
#include "device/memory/host_staging.h"
#include "platform/tdm_host.h"

void *tdm_staging_acquire(tdm_context *ctx)
{
    void *chunk = NULL;
    tdm_mutex_lock(&ctx->staging_lock);
    if (ctx->staging_count)
        chunk = ctx->staging[--ctx->staging_count];
    tdm_mutex_unlock(&ctx->staging_lock);
    if (!chunk && !(chunk = tdm_host_aligned_alloc(TDM_STAGING_ALIGN, TDM_STAGING_CHUNK)))
        tdm_fail(TDM_ERR_OUT_OF_MEMORY, "no host memory for a %zu MiB staging chunk",
                 TDM_STAGING_CHUNK >> 20);
    return chunk;
}

void tdm_staging_release(tdm_context *ctx, void *chunk)
{
    if (!chunk)
        return;
    tdm_mutex_lock(&ctx->staging_lock);
    int kept = ctx->staging_count < TDM_STAGING_MAX_IDLE;
    if (kept)
        ctx->staging[ctx->staging_count++] = chunk;
    tdm_mutex_unlock(&ctx->staging_lock);
    if (!kept)
        tdm_host_aligned_free(chunk);
}

void tdm_staging_free_idle(tdm_context *ctx)
{
    tdm_mutex_lock(&ctx->staging_lock);
    for (size_t i = 0; i < ctx->staging_count; i++)
        tdm_host_aligned_free(ctx->staging[i]);
    ctx->staging_count = 0;
    tdm_mutex_unlock(&ctx->staging_lock);
}
