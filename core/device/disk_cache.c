/* The on-disk cache of compiled programs and pipeline caches (disk_cache.h). */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* mkstemp, fchmod */
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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
    if (size < HEADER_SIZE || read(fd, head, HEADER_SIZE) != HEADER_SIZE)
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
    size_t got = 0;
    while (got < size - HEADER_SIZE) {
        ssize_t r = read(fd, body + got, (size_t)(size - HEADER_SIZE) - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
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
    char path[PATH_MAX];
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
    close(fd);
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

/* mkdir -p of dir, 0700 for each folder it makes. 0 when it is a directory now. */
static int make_dirs(const char *dir)
{
    char buf[PATH_MAX];
    struct stat st;

    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0700) != 0 && errno != EEXIST)
        return -1;
    return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

static int write_all(int fd, const void *data, size_t size)
{
    const unsigned char *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        size -= (size_t)w;
    }
    return 0;
}

/* Writes the entry to path through a temporary file beside it; -1 with errno set. */
static int write_entry(const char *dir, const char *path, const char *key, const void *data,
                       size_t size)
{
    char tmp[PATH_MAX];
    size_t key_len = strlen(key);
    unsigned char head[HEADER_SIZE];

    if (make_dirs(dir) != 0)
        return -1;
    if (snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", dir) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0)
        return -1;
    memcpy(head, MAGIC, 8);
    put32(head + 8, FORMAT_VERSION);
    put32(head + 12, (uint32_t)key_len);
    put64(head + 16, size);
    put32(head + 24, crc(crc(0, key, key_len), data, size));
    int failed = write_all(fd, head, sizeof head) != 0 || write_all(fd, key, key_len) != 0 ||
                 write_all(fd, data, size) != 0;
    int saved = errno;
    if (close(fd) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (!failed && rename(tmp, path) == 0)
        return 0;
    saved = failed ? saved : errno;
    unlink(tmp);
    errno = saved;
    return -1;
}

void tdm_disk_cache_store(tdm_context *ctx, const char *kind, const char *key, const void *data,
                          size_t size)
{
    tdm_disk_cache *c = &ctx->disk_cache;
    char path[PATH_MAX];

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
