/* The on-disk cache of compiled programs and pipeline caches (disk_cache.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "device/context_impl.h"
#include "device/disk_cache.h"
#include "device/log.h"
#include "platform/tdm_files.h"

#define MAGIC "TDMCACHE"
#define FORMAT_VERSION 1u
#define HEADER_SIZE 28
/* No key is this long; a length past it is damage, not a reason to allocate. */
#define KEY_MAX 65536

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

uint64_t tdm_disk_cache_hash(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* zlib's crc32 takes at most UINT_MAX bytes at a time. */
static uint32_t crc(uint32_t c, const void *data, size_t size)
{
    const unsigned char *p = data;
    while (size > 0) {
        uInt n = size > UINT_MAX ? UINT_MAX : (uInt)size;
        c = (uint32_t)crc32(c, p, n);
        p += n;
        size -= n;
    }
    return c;
}

void tdm_disk_cache_init(tdm_context *ctx)
{
    tdm_disk_cache *c = &ctx->disk_cache;
    const char *set = getenv("TDM_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n = 0;

    if (set && strcmp(set, "off") == 0)
        c->dir[0] = '\0';
    else if (set && *set)
        n = snprintf(c->dir, sizeof c->dir, "%s", set);
    else if (xdg && xdg[0] == '/') /* the XDG rule: a relative path is ignored */
        n = snprintf(c->dir, sizeof c->dir, "%s/tandem", xdg);
    else if (home && *home)
        n = snprintf(c->dir, sizeof c->dir, "%s/.cache/tandem", home);
    if (n < 0 || (size_t)n >= sizeof c->dir)
        c->dir[0] = '\0';
    tdm_log(ctx, TDM_LOG_DEBUG, "program cache: %s", c->dir[0] ? c->dir : "off");
}

void tdm_disk_cache_report(const tdm_context *ctx)
{
    const tdm_disk_cache *c = &ctx->disk_cache;
    size_t loaded = atomic_load(&c->loaded), missed = atomic_load(&c->missed),
           rejected = atomic_load(&c->rejected);

    if (loaded + missed + rejected > 0)
        tdm_log(ctx, TDM_LOG_INFO,
                "program cache %s: %zu loaded, %zu missing, %zu rejected, %zu written, %zu "
                "writes failed",
                c->dir, loaded, missed, rejected, atomic_load(&c->stored),
                atomic_load(&c->store_failed));
}

/* <dir>/<kind>-<hash of key>.bin; 0 when the cache is off or the path too long. */
static int entry_path(const tdm_context *ctx, const char *kind, const char *key, char *out,
                      size_t cap)
{
    const char *dir = ctx->disk_cache.dir;
    uint64_t h = tdm_disk_cache_hash(TDM_DISK_CACHE_HASH_START, key, strlen(key));
    int n = snprintf(out, cap, "%s/%s-%016llx.bin", dir, kind, (unsigned long long)h);
    return dir[0] && n > 0 && (size_t)n < cap;
}

/* Reads fd (size bytes) and checks it against key: NULL and *why set unless the
 * whole file is sound, else the malloc'd file with the payload at HEADER_SIZE +
 * key length. */
static unsigned char *read_entry(int fd, uint64_t size, const char *key, size_t *payload_size,
                                 const char **why)
{
    size_t key_len = strlen(key);
    unsigned char head[HEADER_SIZE];

    *why = "truncated";
    if (size < HEADER_SIZE || tdm_file_read(fd, head, HEADER_SIZE) != HEADER_SIZE)
        return NULL;
    *why = "not a tandem cache file";
    if (memcmp(head, MAGIC, 8) != 0)
        return NULL;
    *why = "another format version";
    if (get32(head + 8) != FORMAT_VERSION)
        return NULL;
    uint32_t stored_key_len = get32(head + 12);
    uint64_t payload = get64(head + 16);
    *why = "another key's entry";
    if (stored_key_len != key_len || stored_key_len > KEY_MAX)
        return NULL;
    *why = "truncated or overlong";
    if (size - HEADER_SIZE < key_len || size - HEADER_SIZE - key_len != payload)
        return NULL;
    unsigned char *body = malloc((size_t)(size - HEADER_SIZE));
    *why = "out of host memory";
    if (!body)
        return NULL;
    int64_t got_or_error = tdm_file_read(fd, body, (size_t)(size - HEADER_SIZE));
    size_t got = got_or_error > 0 ? (size_t)got_or_error : 0;
    *why = got < size - HEADER_SIZE                ? "truncated"
           : crc(0, body, got) != get32(head + 24) ? "checksum mismatch"
           : memcmp(body, key, key_len) != 0       ? "another key's entry"
                                                   : NULL;
    if (*why) {
        free(body);
        return NULL;
    }
    *payload_size = (size_t)payload;
    return body;
}

int tdm_disk_cache_load(tdm_context *ctx, const char *kind, const char *key, void **data,
                        size_t *size)
{
    tdm_disk_cache *c = &ctx->disk_cache;
    char path[TDM_PATH_MAX];
    const char *what, *why;
    uint64_t file_size;
    int fd;

    if (!entry_path(ctx, kind, key, path, sizeof path))
        return 0;
    if (tdm_open_regular(path, &fd, &file_size, &what) != 0) {
        /* Not there, or the folder is not there: built as on a first run. */
        if (what)
            tdm_log(ctx, TDM_LOG_INFO, "program cache: ignoring %s: it is %s", path, what);
        atomic_fetch_add(what ? &c->rejected : &c->missed, 1);
        return 0;
    }
    size_t payload;
    size_t key_len = strlen(key);
    unsigned char *body = read_entry(fd, file_size, key, &payload, &why);
    tdm_file_close(fd);
    if (!body) {
        tdm_log(ctx, TDM_LOG_INFO, "program cache: ignoring %s: %s; building anew", path, why);
        atomic_fetch_add(&c->rejected, 1);
        return 0;
    }
    /* The payload moves to the front, so the caller frees what it is given. */
    memmove(body, body + key_len, payload);
    *data = body;
    *size = payload;
    atomic_fetch_add(&c->loaded, 1);
    tdm_log(ctx, TDM_LOG_DEBUG, "program cache: loaded %s (%zu bytes)", path, payload);
    return 1;
}

void tdm_disk_cache_refused(tdm_context *ctx, const char *key, const char *why)
{
    char first_line[128];
    size_t n = strcspn(key, "\n");

    snprintf(first_line, sizeof first_line, "%.*s", (int)n, key);
    /* Counted as loaded when it passed the file's checks; the driver had the last word. */
    atomic_fetch_sub(&ctx->disk_cache.loaded, 1);
    atomic_fetch_add(&ctx->disk_cache.rejected, 1);
    tdm_log(ctx, TDM_LOG_INFO,
            "program cache: the driver refused the entry for %s: %s; building anew", first_line,
            why);
}

/* Writes the entry to path (in dir) through a temporary file beside it; -1 with errno
 * set. */
static int write_entry(const char *dir, const char *path, const char *key, const void *data,
                       size_t size)
{
    size_t key_len = strlen(key);
    unsigned char head[HEADER_SIZE];

    if (tdm_make_dirs(dir, 1) != 0)
        return -1;
    memcpy(head, MAGIC, 8);
    put32(head + 8, FORMAT_VERSION);
    put32(head + 12, (uint32_t)key_len);
    put64(head + 16, size);
    put32(head + 24, crc(crc(0, key, key_len), data, size));
    const void *const parts[] = {head, key, data};
    const size_t sizes[] = {sizeof head, key_len, size};
    return tdm_file_replace(path, parts, sizes, 3);
}

void tdm_disk_cache_store(tdm_context *ctx, const char *kind, const char *key, const void *data,
                          size_t size)
{
    tdm_disk_cache *c = &ctx->disk_cache;
    char path[TDM_PATH_MAX];

    if (!entry_path(ctx, kind, key, path, sizeof path))
        return;
    if (strlen(key) > KEY_MAX || write_entry(c->dir, path, key, data, size) != 0) {
        /* Once per context: a read-only folder would otherwise log every program. */
        if (atomic_fetch_add(&c->store_failed, 1) == 0)
            tdm_log(ctx, TDM_LOG_INFO,
                    "program cache: cannot write %s: %s; programs will be built on every run", path,
                    strlen(key) > KEY_MAX ? "key too long" : strerror(errno));
        return;
    }
    atomic_fetch_add(&c->stored, 1);
}
