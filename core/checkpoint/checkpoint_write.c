/* Writing a checkpoint: a temporary file in the directory, one record per tensor or
 * value as it is added, then the footer, fsync, rename to the final name and fsync
 * of the directory (checkpoint_format.h has the layout). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/checkpoint_format.h"
#include "checkpoint/checkpoint_names.h"
#include "checkpoint/checkpoint_files.h"
#include "checkpoint/path_links.h"
#include "base/error.h"
#include "tandem/checkpoint.h"

struct tdm_checkpoint_writer {
    char *dir;
    char *temp_path;
    char *final_path;
    FILE *f; /* holds the temporary file's lock until closed */
    uint64_t step;
    uint64_t offset;      /* bytes written so far */
    tdm_status failed;    /* a write failed: the file is unusable */
    tdm_ckpt_names names; /* one per record, in order */
};

/* Removes the temporary file (before closing it, so that its lock is held until it
 * is gone) and releases w. */
static void discard(tdm_checkpoint_writer *w)
{
    if (w->temp_path)
        tdm_ckpt_os_remove(w->temp_path);
    if (w->f)
        fclose(w->f);
    free(w->dir);
    free(w->temp_path);
    free(w->final_path);
    tdm_ckpt_names_free(&w->names);
    free(w);
}

/* Writes n bytes, adding them to *crc when crc is not NULL. A failure marks w failed. */
static tdm_status put(tdm_checkpoint_writer *w, const char *func, uint32_t *crc,
                      const unsigned char *p, size_t n)
{
    errno = 0;
    if (n && fwrite(p, 1, n, w->f) != n) {
        w->failed = tdm_ckpt_os_fail(errno ? errno : EIO, func, "write", w->temp_path);
        return w->failed;
    }
    if (crc)
        *crc = tdm_ckpt_crc(*crc, p, n);
    w->offset += n;
    return TDM_OK;
}

/* The data of a tensor: `count` 4-byte elements, each stored as a little-endian u32. */
/* count elements of `elem` bytes (4 or 8), each stored little-endian. */
static tdm_status put_elements(tdm_checkpoint_writer *w, const char *func, uint32_t *crc,
                               const unsigned char *data, uint64_t count, unsigned elem)
{
    enum { CHUNK = 4096 };
    unsigned char buf[CHUNK * 8];
    tdm_status s = TDM_OK;
    for (uint64_t done = 0; done < count && s == TDM_OK;) {
        size_t n = count - done < CHUNK ? (size_t)(count - done) : CHUNK;
        for (size_t i = 0; i < n; i++) {
            const unsigned char *from = data + (done + i) * elem;
            if (elem == 8) {
                uint64_t v;
                memcpy(&v, from, 8);
                tdm_ckpt_store_u64(buf + i * 8, v);
            } else {
                uint32_t v;
                memcpy(&v, from, 4);
                tdm_ckpt_store_u32(buf + i * 4, v);
            }
        }
        s = put(w, func, crc, buf, n * elem);
        done += n;
    }
    return s;
}

/* One record (checkpoint_format.h): head, name, dims, byte count, data, CRC. data is
 * count elements, or for a u64 value NULL with the value in u64. */
static tdm_status put_record(tdm_checkpoint_writer *w, const char *func, const char *name,
                             size_t name_len, unsigned kind, const tdm_shape *shape, uint64_t count,
                             const void *data, uint64_t u64)
{
    unsigned char head[TDM_CKPT_RECORD_HEAD_SIZE + TDM_CKPT_NAME_MAX + 8 * TDM_CKPT_RANK_MAX + 8];
    unsigned rank = shape ? shape->rank : 0;
    memcpy(head, TDM_CKPT_RECORD_TAG, TDM_CKPT_TAG_SIZE);
    tdm_ckpt_store_u16(head + TDM_CKPT_RECORD_NAME_LEN, (uint16_t)name_len);
    head[TDM_CKPT_RECORD_KIND] = (unsigned char)kind;
    head[TDM_CKPT_RECORD_RANK] = (unsigned char)rank;
    size_t len = TDM_CKPT_RECORD_HEAD_SIZE;
    memcpy(head + len, name, name_len);
    len += name_len;
    for (unsigned i = 0; i < rank; i++, len += 8)
        tdm_ckpt_store_u64(head + len, shape->dims[i]);
    tdm_ckpt_store_u64(head + len,
                       kind == TDM_CKPT_KIND_U64 ? 8 : count * TDM_CKPT_KIND_BYTES(kind));
    len += 8;
    uint32_t crc = 0;
    tdm_status s = put(w, func, &crc, head, len);
    if (s == TDM_OK && kind == TDM_CKPT_KIND_U64) {
        unsigned char v[8];
        tdm_ckpt_store_u64(v, u64);
        s = put(w, func, &crc, v, sizeof v);
    } else if (s == TDM_OK) {
        s = put_elements(w, func, &crc, data, count, TDM_CKPT_KIND_BYTES(kind));
    }
    unsigned char tail[TDM_CKPT_CRC_SIZE];
    tdm_ckpt_store_u32(tail, crc);
    return s == TDM_OK ? put(w, func, NULL, tail, sizeof tail) : s;
}

tdm_status tdm_checkpoint_writer_create(const char *dir, uint64_t step, tdm_checkpoint_writer **out)
{
    static const char func[] = "tdm_checkpoint_writer_create";
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(dir, func);
    if (!dir[0])
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: dir is empty", func);
    tdm_status s = tdm_ckpt_os_make_dir(dir, func);
    if (s != TDM_OK)
        return s;
    tdm_checkpoint_writer *w = calloc(1, sizeof *w);
    char name[TDM_CKPT_FINAL_NAME_LEN + 1];
    snprintf(name, sizeof name, TDM_CKPT_PREFIX "%020" PRIu64 TDM_CKPT_SUFFIX, step);
    if (w) {
        w->dir = strdup(dir);
        w->final_path = tdm_ckpt_join(dir, name);
    }
    if (!w || !w->dir || !w->final_path) {
        if (w)
            discard(w);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    }
    w->step = step;
    s = tdm_ckpt_os_create_temp(dir, name, func, &w->temp_path, &w->f);
    unsigned char header[TDM_CKPT_HEADER_SIZE];
    tdm_ckpt_encode_header(header, step);
    if (s == TDM_OK)
        s = put(w, func, NULL, header, sizeof header);
    if (s != TDM_OK) {
        discard(w);
        return s;
    }
    *out = w;
    return TDM_OK;
}

/* The checks every add makes before it writes: the writer, a name of 1 to 255 bytes
 * that is new, a previous write that did not fail. Registers the name. */
static tdm_status begin_add(tdm_checkpoint_writer *w, const char *name, const char *func,
                            size_t *name_len)
{
    TDM_CHECK_ARG(w, func);
    TDM_CHECK_ARG(name, func);
    if (w->failed != TDM_OK)
        return tdm_fail(TDM_ERR_INVALID_STATE,
                        "%s: an earlier write to %s failed; abort this checkpoint", func,
                        w->temp_path);
    size_t len = strnlen(name, TDM_CKPT_NAME_MAX + 1);
    if (len == 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: name is empty", func);
    if (len > TDM_CKPT_NAME_MAX)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: name '%.40s...' is longer than %d bytes",
                        func, name, TDM_CKPT_NAME_MAX);
    if (tdm_ckpt_names_find(&w->names, name, len) != (size_t)-1)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: name '%s' is already in checkpoint %" PRIu64
                        " (%s): names are unique within a checkpoint",
                        func, name, w->step, w->final_path);
    *name_len = len;
    return TDM_OK;
}

static tdm_status register_name(tdm_checkpoint_writer *w, const char *name, size_t len,
                                const char *func)
{
    if (tdm_ckpt_names_add(&w->names, name, len) != 0)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    return TDM_OK;
}

tdm_status tdm_checkpoint_add(tdm_checkpoint_writer *w, const char *name, tdm_dtype dtype,
                              const tdm_shape *shape, const void *data)
{
    static const char func[] = "tdm_checkpoint_add";
    size_t len = 0;
    tdm_status s = begin_add(w, name, func, &len);
    if (s != TDM_OK)
        return s;
    TDM_CHECK_ARG(shape, func);
    if (dtype != TDM_F32 && dtype != TDM_I32 && dtype != TDM_I64)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: tensor '%s': dtype %d is none of TDM_F32, TDM_I32, TDM_I64", func,
                        name, (int)dtype);
    if (shape->rank > TDM_MAX_RANK)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: tensor '%s': rank %u is over %d", func, name,
                        shape->rank, TDM_MAX_RANK);
    unsigned kind = dtype == TDM_F32   ? TDM_CKPT_KIND_F32
                    : dtype == TDM_I32 ? TDM_CKPT_KIND_I32
                                       : TDM_CKPT_KIND_I64;
    uint64_t count = 1;
    for (uint32_t i = 0; i < shape->rank; i++) {
        uint64_t d = shape->dims[i];
        if (d && count > UINT64_MAX / TDM_CKPT_KIND_BYTES(kind) / d)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: tensor '%s': its shape spans more bytes than fit in 64 bits", func,
                            name);
        count *= d;
    }
    if (count && !data)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: tensor '%s': data is NULL for %" PRIu64 " elements", func, name,
                        count);
    s = register_name(w, name, len, func);
    if (s == TDM_OK)
        s = put_record(w, func, name, len, kind, shape, count, data, 0);
    return s;
}

tdm_status tdm_checkpoint_add_u64(tdm_checkpoint_writer *w, const char *name, uint64_t value)
{
    static const char func[] = "tdm_checkpoint_add_u64";
    size_t len = 0;
    tdm_status s = begin_add(w, name, func, &len);
    if (s == TDM_OK)
        s = register_name(w, name, len, func);
    if (s == TDM_OK)
        s = put_record(w, func, name, len, TDM_CKPT_KIND_U64, NULL, 1, NULL, value);
    return s;
}

tdm_status tdm_checkpoint_commit(tdm_checkpoint_writer *w)
{
    static const char func[] = "tdm_checkpoint_commit";
    TDM_CHECK_ARG(w, func);
    tdm_status s = TDM_OK;
    if (w->failed != TDM_OK)
        s = tdm_fail(TDM_ERR_INVALID_STATE,
                     "%s: an earlier write to %s failed; checkpoint %" PRIu64 " is abandoned", func,
                     w->temp_path, w->step);
    unsigned char footer[TDM_CKPT_FOOTER_SIZE];
    tdm_ckpt_encode_footer(footer, w->names.count, w->offset + TDM_CKPT_FOOTER_SIZE);
    if (s == TDM_OK)
        s = put(w, func, NULL, footer, sizeof footer);
    if (s == TDM_OK)
        s = tdm_ckpt_os_sync_file(w->f, w->temp_path, func);
    if (s == TDM_OK)
        s = tdm_ckpt_os_rename(w->temp_path, w->final_path, func);
    if (s != TDM_OK) {
        discard(w);
        return s;
    }
    /* Renamed: nothing is left to remove, and the lock no longer matters. */
    free(w->temp_path);
    w->temp_path = NULL;
    s = tdm_ckpt_os_sync_dir(w->dir, func);
    if (s != TDM_OK)
        tdm_fail_context(s,
                         "%s: checkpoint %s is complete, but its directory entry may not "
                         "survive a crash of the machine",
                         func, w->final_path);
    /* fsync has written everything: closing has nothing left to lose. */
    discard(w);
    return s;
}

void tdm_checkpoint_writer_abort(tdm_checkpoint_writer *w)
{
    if (w)
        discard(w);
}
