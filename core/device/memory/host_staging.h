/* Internal: aligned host memory for staged transfers, in chunks the context keeps
 * and reuses, so that no transfer touches fresh pages. Chunks start on a 64 KiB
 * boundary, so that backends which import host memory (Vulkan's
 * VK_EXT_external_memory_host) can copy straight from and into them. */
#ifndef TDM_CORE_HOST_STAGING_H
#define TDM_CORE_HOST_STAGING_H

#include "device/context_impl.h"

#define TDM_STAGING_CHUNK ((size_t)8 << 20)
#define TDM_STAGING_ALIGN ((size_t)64 << 10)

/* A TDM_STAGING_CHUNK-byte chunk; NULL (with the last error set) when out of host
 * memory. */
void *tdm_staging_acquire(tdm_context *ctx);
void tdm_staging_release(tdm_context *ctx, void *chunk);

/* Frees the idle chunks (the context's destruction). */
void tdm_staging_free_idle(tdm_context *ctx);

#endif
