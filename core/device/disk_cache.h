/* Internal: compiled programs and pipeline caches kept on disk between runs, so that
 * a second run skips the driver's compiler. Shared by the backends; each entry is
 * one file named by a hash of its key, which the file also holds in full:
 *   "TDMCACHE", format version, key length, payload length, CRC-32 of key and
 *   payload (little-endian), then the key, then the payload.
 * A missing, damaged, truncated or foreign file is ignored and the caller builds
 * anew; a failed write only costs the speed-up. Nothing here returns an error. */
#ifndef TDM_CORE_DISK_CACHE_H
#define TDM_CORE_DISK_CACHE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tandem/context.h"
#include "platform/tdm_files.h"

/* The context's cache: its folder and what happened to its entries. */
typedef struct tdm_disk_cache {
    char dir[TDM_PATH_MAX];     /* "" when off */
    atomic_size_t loaded;       /* entries used: they passed every check */
    atomic_size_t missed;       /* no file under the key */
    atomic_size_t rejected;     /* damaged, truncated, foreign, or refused by the driver */
    atomic_size_t stored;       /* files written */
    atomic_size_t store_failed; /* writes that failed: read-only or full disk, ... */
} tdm_disk_cache;

/* The folder from TDM_CACHE_DIR (a path, or "off"), else $XDG_CACHE_HOME/tandem,
 * else $HOME/.cache/tandem, else none; read when the context is created. */
void tdm_disk_cache_init(tdm_context *ctx);

/* Logs at INFO what happened to the entries, when any was asked for: "program cache
 * DIR: L loaded, M missing, R rejected, W written, F writes failed". Tests read it. */
void tdm_disk_cache_report(const tdm_context *ctx);

/* FNV-1a over data, continuing from h: start with TDM_DISK_CACHE_HASH_START. For
 * the sources a key names by their hash. */
#define TDM_DISK_CACHE_HASH_START 14695981039346656037ull
uint64_t tdm_disk_cache_hash(uint64_t h, const void *data, size_t size);

/* 1 with the payload stored under key in *data (malloc'd, the caller frees it) and
 * *size; 0 when the cache is off, holds nothing under key, or its file fails a
 * check (logged). `kind` ("opencl", "vulkan") starts the file's name. */
int tdm_disk_cache_load(tdm_context *ctx, const char *kind, const char *key, void **data,
                        size_t *size);

/* A loaded payload that the driver would not take: counted as rejected instead of
 * loaded and logged; the caller's rebuild then replaces it. */
void tdm_disk_cache_refused(tdm_context *ctx, const char *key, const char *why);

/* Writes the payload under key: to a temporary file in the folder, then renamed
 * over the entry, so a reader sees the old file or the new one, never half. */
void tdm_disk_cache_store(tdm_context *ctx, const char *kind, const char *key, const void *data,
                          size_t size);

#endif
