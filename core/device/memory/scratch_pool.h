/* Internal: scratch buffers the engine reuses across calls instead of allocating
 * them per call (fresh memory costs a page fault per page on first touch).
 *
 * Why a buffer may go back to the pool as soon as the work using it is issued
 * (docs/modules/collective.md, "Plans"): scratch on device D is written only by D's
 * queue, and every reader runs on D's queue, or makes D's queue wait for it (a peer
 * copy), or blocks until it is done (a staged read). So whatever the next user
 * issues on D runs after every earlier use. */
#ifndef TDM_CORE_SCRATCH_POOL_H
#define TDM_CORE_SCRATCH_POOL_H

#include "tandem/buffer.h"

/* A buffer of at least `size` bytes on dev: an idle pooled one of a close size, or
 * a new one (after freeing idle ones if memory runs short). */
tdm_status tdm_scratch_acquire(tdm_device *dev, size_t size, tdm_buffer **out);

/* Returns a buffer from tdm_scratch_acquire to dev's pool (NULL-safe). */
void tdm_scratch_release(tdm_buffer *buf);

/* A new buffer of size bytes on dev; where memory runs short, the idle scratch
 * buffers are freed first and the allocation tried once more. */
tdm_status tdm_scratch_allocate(tdm_device *dev, size_t size, tdm_buffer **out);

/* Frees the device's idle scratch buffers; returns how many bytes it freed. */
size_t tdm_scratch_trim(tdm_device *dev);

#endif
