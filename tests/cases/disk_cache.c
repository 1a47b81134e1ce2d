/* The on-disk program cache (core/device/disk_cache.c) on one backend's first device:
 * a first run builds and writes its entries, a second loads them all; a truncated
 * entry, a flipped byte, an entry of another key and an unwritable folder each fall
 * back to a build with the same results, and the damaged entries are rewritten
 * sound. argv[0] names the backend, argv[1] the folder the case may fill (in the
 * build tree). What happened is read from the context's report line at destroy. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* setenv, truncate */
#endif

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "harness.h"
#include "platform/tdm_host.h"

#define N 1000
#define MAX_ENTRIES 64
#define HEADER_SIZE 28 /* magic, version, key length, payload length, CRC-32 */

typedef struct counts {
    int reported;
    size_t loaded, missing, rejected, written, failed;
} counts;

static void capture(tdm_log_level level, const char *message, void *user_data)
{
    counts *c = user_data;
    const char *numbers = strrchr(message, ':');

    (void)level;
    if (strncmp(message, "program cache ", 14) == 0 && numbers &&
        sscanf(numbers + 1,
               " %zu loaded, %zu missing, %zu rejected, %zu written, %zu writes failed", &c->loaded,
               &c->missing, &c->rejected, &c->written, &c->failed) == 5)
        c->reported = 1;
    else
        fprintf(stderr, "log: %s\n", message);
}

/* One context on the backend with the cache at `dir`: three kernels whose results
 * are exact in float32, checked; returns what the cache reported. */
static counts run(tdm_backend_kind backend, const char *dir)
{
    counts c = {0};
    tdm_context_options opts = TDM_CONTEXT_OPTIONS_INIT;
    opts.backends = TDM_BACKEND_BIT(backend);
    opts.log = capture;
    opts.log_user_data = &c;
    opts.log_level = TDM_LOG_INFO;
    tdm_host_setenv("TDM_CACHE_DIR", dir, 1);
    tdm_context *ctx;
    CHECK_OK(tdm_context_create(&opts, &ctx));
    tdm_device *dev = test_first_device(ctx, backend);
    static float x[N], y[N], z[N];
    for (size_t i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 3.0f;
    }
    tdm_tensor *tx, *ty, *ts, *tz;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(N), &tx));
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(N), &ty));
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(N), &ts));
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(N), &tz));
    CHECK_OK(tdm_tensor_write(tx, x, sizeof x));
    CHECK_OK(tdm_tensor_write(ty, y, sizeof y));
    CHECK_OK(tdm_op_axpy(ty, 2.0f, tx));  /* 3 + 2i */
    CHECK_OK(tdm_op_scale(ts, ty, 0.5f)); /* 1.5 + i */
    CHECK_OK(tdm_op_add(tz, ts, tx));     /* 1.5 + 2i */
    CHECK_OK(tdm_tensor_read(tz, z, sizeof z));
    size_t wrong = 0;
    for (size_t i = 0; i < N; i++)
        wrong += z[i] != 1.5f + 2.0f * (float)i;
    CHECK(wrong == 0);
    tdm_tensor_destroy(tx);
    tdm_tensor_destroy(ty);
    tdm_tensor_destroy(ts);
    tdm_tensor_destroy(tz);
    CHECK(tdm_context_validation_messages(ctx) == 0);
    tdm_context_destroy(ctx);
    fprintf(stderr, "%s: %zu loaded, %zu missing, %zu rejected, %zu written, %zu failed\n", dir,
            c.loaded, c.missing, c.rejected, c.written, c.failed);
    return c;
}

/* The backend's entries in dir, by path; returns how many. */
static size_t entries(const char *dir, const char *kind, char paths[][PATH_MAX])
{
    size_t n = 0, len = strlen(kind);
    DIR *d = opendir(dir);
    struct dirent *e;

    while (d && (e = readdir(d)) != NULL && n < MAX_ENTRIES)
        if (strncmp(e->d_name, kind, len) == 0 && e->d_name[len] == '-')
            snprintf(paths[n++], PATH_MAX, "%s/%s", dir, e->d_name);
    if (d)
        closedir(d);
    return n;
}

/* Empties the case's folder (its own, in the build tree) from an earlier run. */
static void empty(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[PATH_MAX];

    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' || strlen(e->d_name) > 2) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    long len = -1;

    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)len)) != NULL && fread(data, 1, (size_t)len, f) != (size_t)len) {
        free(data);
        data = NULL;
    }
    if (f)
        fclose(f);
    *size = data ? (size_t)len : 0;
    CHECK(data != NULL);
    return data;
}

static void spill(const char *path, const unsigned char *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, size, f) == size);
    if (f)
        CHECK(fclose(f) == 0);
}

typedef enum damage { TRUNCATE, FLIP_BYTE, OTHER_KEY } damage;

/* Damages one entry: cut in half, its last byte flipped, or its key changed with the
 * checksum made right again, as a sound entry of another key placed under this name. */
static void spoil(const char *path, damage how)
{
    size_t size;
    unsigned char *data = slurp(path, &size);

    if (!data || size <= HEADER_SIZE + 1)
        return;
    if (how == TRUNCATE) {
        size /= 2;
    } else if (how == FLIP_BYTE) {
        data[size - 1] ^= 0x01;
    } else {
        data[HEADER_SIZE] ^= 0x20; /* the key's first letter changes case */
        uLong crc = crc32(0, data + HEADER_SIZE, (uInt)(size - HEADER_SIZE));
        for (int i = 0; i < 4; i++)
            data[24 + i] = (unsigned char)(crc >> (8 * i));
    }
    spill(path, data, size);
    free(data);
}

/* Every entry damaged one way: each is rejected, built again, rewritten, and the run
 * after that loads them all. */
static void check_damage(tdm_backend_kind backend, const char *dir, const char *kind, damage how,
                         size_t n)
{
    static char paths[MAX_ENTRIES][PATH_MAX];

    CHECK(entries(dir, kind, paths) == n);
    for (size_t i = 0; i < n; i++)
        spoil(paths[i], how);
    counts c = run(backend, dir);
    CHECK(c.reported && c.loaded == 0 && c.rejected == n && c.written == n && c.failed == 0);
    c = run(backend, dir);
    CHECK(c.reported && c.loaded == n && c.missing == 0 && c.rejected == 0 && c.written == 0);
}

void test_case_disk_cache(const test_run *run_)
{
    const char *backend_name = run_->argv[0], *dir = run_->argv[1];
    tdm_backend_kind backend =
        strcmp(backend_name, "opencl") == 0 ? TDM_BACKEND_OPENCL : TDM_BACKEND_VULKAN;
    static char paths[MAX_ENTRIES][PATH_MAX];
    char blocked[PATH_MAX + 16], blocker[PATH_MAX];

    empty(dir);
    /* Cold: everything built and written. */
    counts c = run(backend, dir);
    size_t n = entries(dir, backend_name, paths);
    CHECK(c.reported && c.loaded == 0 && c.missing >= 1 && c.rejected == 0 && c.failed == 0);
    CHECK(n >= 1 && c.written == n);
    /* Warm: everything loaded, nothing built or written. */
    c = run(backend, dir);
    CHECK(c.reported && c.loaded == n && c.missing == 0 && c.rejected == 0 && c.written == 0);

    check_damage(backend, dir, backend_name, TRUNCATE, n);
    check_damage(backend, dir, backend_name, FLIP_BYTE, n);
    check_damage(backend, dir, backend_name, OTHER_KEY, n);

    /* A folder that cannot be made (a regular file stands in its path): built, not
     * written, no error. */
    snprintf(blocker, sizeof blocker, "%s/blocker", dir);
    snprintf(blocked, sizeof blocked, "%s/cache", blocker);
    spill(blocker, (const unsigned char *)"x", 1);
    c = run(backend, blocked);
    CHECK(c.reported && c.loaded == 0 && c.written == 0 && c.failed >= 1);

    /* Off: nothing read or written, no report, and no folder named "off". */
    c = run(backend, "off");
    CHECK(!c.reported && access("off", F_OK) != 0);
}
