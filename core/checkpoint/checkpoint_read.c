/* Reading a checkpoint: the whole file into memory, then every record verified in
 * order (checkpoint_format.h has the layout), then tensors copied out by name after
 * their dtype and shape are checked. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/checkpoint_format.h"
#include "checkpoint/checkpoint_memory.h"
#include "checkpoint/checkpoint_names.h"
#include "checkpoint/checkpoint_files.h"
#include "base/error.h"
#include "tandem/checkpoint.h"

typedef struct entry {
    unsigned kind;
    unsigned rank;
    uint64_t dims[TDM_CKPT_RANK_MAX];
    uint64_t bytes;
    size_t offset; /* of the data in the file */
} entry;

struct tdm_checkpoint {
    char *path;
    uint64_t step;
    unsigned char *data;
    size_t size;
    entry *entries; /* one per name, in file order */
    tdm_ckpt_names names;
};

static const char open_func[] = "tdm_checkpoint_open";

/* The parse state: where it is and what it has seen, for the messages. */
typedef struct parser {
    tdm_checkpoint *c;
    size_t pos;
    size_t capacity;
} parser;

static size_t left(const parser *p)
{
    return p->c->size - p->pos;
}

/* "after tensor 'x'" or "before the first record": where a record-less failure is. */
static const char *after_last(const parser *p, char *buf, size_t size)
{
    size_t n = p->c->names.count;
    if (!n)
        return "before the first record";
    snprintf(buf, size, "after tensor '%s' (record %zu)", p->c->names.names[n - 1], n - 1);
    return buf;
}

static tdm_status check_header(parser *p)
{
    tdm_checkpoint *c = p->c;
    uint32_t version = 0;
    size_t n = c->size < TDM_CKPT_HEADER_SIZE ? c->size : TDM_CKPT_HEADER_SIZE;
    switch (tdm_ckpt_check_header(c->data, n, &version, &c->step)) {
    case TDM_CKPT_HEADER_OK: p->pos = TDM_CKPT_HEADER_SIZE; return TDM_OK;
    case TDM_CKPT_HEADER_FOREIGN:
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s is not a tandem checkpoint (it does not start with the "
                        "checkpoint magic)",
                        open_func, c->path);
    case TDM_CKPT_HEADER_TRUNCATED:
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s is truncated: it ends inside the header, after %zu bytes",
                        open_func, c->path, c->size);
    case TDM_CKPT_HEADER_NEWER:
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s has checkpoint format version %" PRIu32
                        ", newer than version %u, the newest this build of tandem reads; "
                        "read it with a newer tandem",
                        open_func, c->path, version, TDM_CKPT_VERSION);
    case TDM_CKPT_HEADER_DAMAGED: break;
    }
    return tdm_fail(TDM_ERR_CORRUPT_DATA,
                    "%s: %s: the header is damaged (CRC-32 mismatch or version 0)", open_func,
                    c->path);
}

static tdm_status add_entry(parser *p, const char *name, size_t len, const entry *e)
{
    tdm_checkpoint *c = p->c;
    if (c->names.count == p->capacity) {
        size_t capacity = p->capacity ? p->capacity * 2 : 16;
        entry *bigger = realloc(c->entries, capacity * sizeof *bigger);
        if (!bigger)
            return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", open_func);
        c->entries = bigger;
        p->capacity = capacity;
    }
    c->entries[c->names.count] = *e;
    if (tdm_ckpt_names_add(&c->names, name, len) != 0)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", open_func);
    return TDM_OK;
}

/* The record at p->pos, whose tag has been checked. */
static tdm_status parse_record(parser *p)
{
    tdm_checkpoint *c = p->c;
    size_t index = c->names.count, start = p->pos;
    const unsigned char *r = c->data + start;
    char where[TDM_CKPT_NAME_MAX + 64];
    if (left(p) < TDM_CKPT_RECORD_HEAD_SIZE)
        return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s is truncated inside record %zu (%s)",
                        open_func, c->path, index, after_last(p, where, sizeof where));
    size_t len = tdm_ckpt_load_u16(r + TDM_CKPT_RECORD_NAME_LEN);
    entry e = {.kind = r[TDM_CKPT_RECORD_KIND], .rank = r[TDM_CKPT_RECORD_RANK]};
    if (len == 0 || len > TDM_CKPT_NAME_MAX)
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s: record %zu (%s) is damaged: its name length is %zu", open_func,
                        c->path, index, after_last(p, where, sizeof where), len);
    if (left(p) < TDM_CKPT_RECORD_HEAD_SIZE + len)
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s is truncated inside the name of record %zu (%s)", open_func,
                        c->path, index, after_last(p, where, sizeof where));
    const char *name = (const char *)r + TDM_CKPT_RECORD_HEAD_SIZE;
    if (memchr(name, '\0', len))
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s: record %zu (%s) is damaged: its name holds a NUL byte", open_func,
                        c->path, index, after_last(p, where, sizeof where));
    int n = (int)len;
    if (e.kind < TDM_CKPT_KIND_F32 || e.kind > TDM_CKPT_KIND_I64 || e.rank > TDM_CKPT_RANK_MAX ||
        (e.kind == TDM_CKPT_KIND_U64 && e.rank != 0))
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s: tensor '%.*s' (record %zu) is damaged: kind %u, rank %u",
                        open_func, c->path, n, name, index, e.kind, e.rank);
    size_t pos = TDM_CKPT_RECORD_HEAD_SIZE + len;
    if (left(p) < pos + 8 * (size_t)e.rank + 8)
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s is truncated inside tensor '%.*s' (record %zu), in its shape",
                        open_func, c->path, n, name, index);
    uint64_t count = 1, elem = TDM_CKPT_KIND_BYTES(e.kind);
    int overflow = 0;
    for (unsigned i = 0; i < e.rank; i++, pos += 8) {
        e.dims[i] = tdm_ckpt_load_u64(r + pos);
        if (e.dims[i] && count > UINT64_MAX / elem / e.dims[i])
            overflow = 1;
        else
            count *= e.dims[i];
    }
    e.bytes = tdm_ckpt_load_u64(r + pos);
    pos += 8;
    if (overflow || e.bytes != count * elem)
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s: tensor '%.*s' (record %zu) is damaged: its byte count %" PRIu64
                        " does not match its kind and shape",
                        open_func, c->path, n, name, index, e.bytes);
    if (e.bytes > left(p) - pos || left(p) - pos - e.bytes < TDM_CKPT_CRC_SIZE)
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s is truncated inside tensor '%.*s' (record %zu): %" PRIu64
                        " data bytes and a CRC expected, %zu bytes left",
                        open_func, c->path, n, name, index, e.bytes, left(p) - pos);
    e.offset = start + pos;
    pos += (size_t)e.bytes;
    uint32_t stored = tdm_ckpt_load_u32(r + pos), computed = tdm_ckpt_crc(0, r, pos);
    if (stored != computed)
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s: tensor '%.*s' (record %zu) is damaged: CRC-32 %08" PRIx32
                        " stored, %08" PRIx32 " computed",
                        open_func, c->path, n, name, index, stored, computed);
    if (tdm_ckpt_names_find(&c->names, name, len) != (size_t)-1)
        return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s: tensor '%.*s' appears twice", open_func,
                        c->path, n, name);
    p->pos = start + pos + TDM_CKPT_CRC_SIZE;
    return add_entry(p, name, len, &e);
}

static tdm_status parse_footer(parser *p)
{
    tdm_checkpoint *c = p->c;
    char where[TDM_CKPT_NAME_MAX + 64];
    uint64_t records = 0, file_size = 0;
    if (left(p) < TDM_CKPT_FOOTER_SIZE)
        return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s is truncated inside the footer (%s)",
                        open_func, c->path, after_last(p, where, sizeof where));
    if (tdm_ckpt_check_footer(c->data + p->pos, &records, &file_size) != 0)
        return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s: the footer (%s) is damaged", open_func,
                        c->path, after_last(p, where, sizeof where));
    if (records != c->names.count || file_size != c->size || left(p) != TDM_CKPT_FOOTER_SIZE)
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: %s: the footer counts %" PRIu64 " records and %" PRIu64
                        " bytes, the file holds %zu records and %zu bytes",
                        open_func, c->path, records, file_size, c->names.count, c->size);
    return TDM_OK;
}

static tdm_status parse(tdm_checkpoint *c)
{
    parser p = {.c = c};
    tdm_status s = check_header(&p);
    while (s == TDM_OK) {
        char where[TDM_CKPT_NAME_MAX + 64];
        if (left(&p) < TDM_CKPT_TAG_SIZE)
            return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s is truncated: it ends %s with no footer",
                            open_func, c->path, after_last(&p, where, sizeof where));
        const unsigned char *tag = c->data + p.pos;
        if (!memcmp(tag, TDM_CKPT_FOOTER_TAG, TDM_CKPT_TAG_SIZE))
            return parse_footer(&p);
        if (memcmp(tag, TDM_CKPT_RECORD_TAG, TDM_CKPT_TAG_SIZE) != 0)
            return tdm_fail(TDM_ERR_CORRUPT_DATA,
                            "%s: %s is damaged: no record or footer at byte %zu (%s)", open_func,
                            c->path, p.pos, after_last(&p, where, sizeof where));
        s = parse_record(&p);
    }
    return s;
}

/* A checkpoint over data (taken over, freed with it), named `path` in messages. */
static tdm_status open_data(const char *path, unsigned char *data, size_t size,
                            tdm_checkpoint **out)
{
    tdm_checkpoint *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        free(data);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", open_func);
    }
    c->data = data;
    c->size = size;
    tdm_status s = parse(c);
    if (s != TDM_OK) {
        tdm_checkpoint_close(c);
        return s;
    }
    *out = c;
    return TDM_OK;
}

tdm_status tdm_checkpoint_open_bytes(const char *label, unsigned char *data, size_t size,
                                     tdm_checkpoint **out)
{
    *out = NULL;
    return open_data(label, data, size, out);
}

tdm_status tdm_checkpoint_open(const char *path, tdm_checkpoint **out)
{
    TDM_CHECK_ARG(out, open_func);
    *out = NULL;
    TDM_CHECK_ARG(path, open_func);
    unsigned char *data = NULL;
    size_t size = 0;
    tdm_status s = tdm_ckpt_os_read_file(path, open_func, &data, &size);
    return s == TDM_OK ? open_data(path, data, size, out) : s;
}

const unsigned char *tdm_checkpoint_bytes(const tdm_checkpoint *c, size_t *size)
{
    *size = c->size;
    return c->data;
}

void tdm_checkpoint_close(tdm_checkpoint *c)
{
    if (!c)
        return;
    tdm_ckpt_names_free(&c->names);
    free(c->entries);
    free(c->data);
    free(c->path);
    free(c);
}

uint64_t tdm_checkpoint_step(const tdm_checkpoint *c)
{
    return c ? c->step : 0;
}

size_t tdm_checkpoint_count(const tdm_checkpoint *c)
{
    return c ? c->names.count : 0;
}

const char *tdm_checkpoint_name(const tdm_checkpoint *c, size_t i)
{
    return c && i < c->names.count ? c->names.names[i] : NULL;
}

/* The entry named `name`: NOT_FOUND naming it and the file otherwise. */
static const entry *find(const tdm_checkpoint *c, const char *name, const char *func,
                         const char *what)
{
    size_t i = tdm_ckpt_names_find(&c->names, name, strlen(name));
    if (i == (size_t)-1) {
        tdm_fail(TDM_ERR_NOT_FOUND, "%s: no %s '%s' in checkpoint %s (step %" PRIu64 ")", func,
                 what, name, c->path, c->step);
        return NULL;
    }
    return &c->entries[i];
}

tdm_status tdm_checkpoint_read(const tdm_checkpoint *c, const char *name, tdm_dtype dtype,
                               const tdm_shape *shape, void *dst, size_t size)
{
    static const char func[] = "tdm_checkpoint_read";
    TDM_CHECK_ARG(c, func);
    TDM_CHECK_ARG(name, func);
    TDM_CHECK_ARG(shape, func);
    if (dtype != TDM_F32 && dtype != TDM_I32 && dtype != TDM_I64)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: tensor '%s': dtype %d is none of TDM_F32, TDM_I32, TDM_I64", func,
                        name, (int)dtype);
    if (shape->rank > TDM_MAX_RANK)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: tensor '%s': rank %u is over %d", func, name,
                        shape->rank, TDM_MAX_RANK);
    const entry *e = find(c, name, func, "tensor");
    if (!e)
        return TDM_ERR_NOT_FOUND;
    unsigned kind = dtype == TDM_F32   ? TDM_CKPT_KIND_F32
                    : dtype == TDM_I32 ? TDM_CKPT_KIND_I32
                                       : TDM_CKPT_KIND_I64;
    uint64_t want[TDM_CKPT_RANK_MAX] = {0};
    int same = e->kind == kind && e->rank == shape->rank;
    for (unsigned i = 0; i < shape->rank; i++) {
        want[i] = shape->dims[i];
        same = same && want[i] == e->dims[i];
    }
    if (!same) {
        char has[TDM_CKPT_DIMS_TEXT], asked[TDM_CKPT_DIMS_TEXT];
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: tensor '%s' in checkpoint %s is %s %s, expected %s %s", func, name,
                        c->path, tdm_ckpt_kind_name(e->kind),
                        e->kind == TDM_CKPT_KIND_U64 ? "(a value, not a tensor)"
                                                     : tdm_ckpt_format_dims(has, e->rank, e->dims),
                        tdm_ckpt_kind_name(kind), tdm_ckpt_format_dims(asked, shape->rank, want));
    }
    if (size != e->bytes)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: tensor '%s' has %" PRIu64 " bytes, size is %zu", func, name, e->bytes,
                        size);
    if (size)
        TDM_CHECK_ARG(dst, func);
    const unsigned char *src = c->data + e->offset;
    unsigned char *out = dst;
    for (size_t i = 0; kind == TDM_CKPT_KIND_I64 && i < size; i += 8) {
        uint64_t v = tdm_ckpt_load_u64(src + i);
        memcpy(out + i, &v, 8);
    }
    for (size_t i = 0; kind != TDM_CKPT_KIND_I64 && i < size; i += 4) {
        uint32_t v = tdm_ckpt_load_u32(src + i);
        memcpy(out + i, &v, 4);
    }
    return TDM_OK;
}

tdm_status tdm_checkpoint_read_u64(const tdm_checkpoint *c, const char *name, uint64_t *value)
{
    static const char func[] = "tdm_checkpoint_read_u64";
    TDM_CHECK_ARG(c, func);
    TDM_CHECK_ARG(name, func);
    TDM_CHECK_ARG(value, func);
    const entry *e = find(c, name, func, "value");
    if (!e)
        return TDM_ERR_NOT_FOUND;
    if (e->kind != TDM_CKPT_KIND_U64) {
        char has[TDM_CKPT_DIMS_TEXT];
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: '%s' in checkpoint %s is a %s tensor %s, expected a u64 value", func,
                        name, c->path, tdm_ckpt_kind_name(e->kind),
                        tdm_ckpt_format_dims(has, e->rank, e->dims));
    }
    *value = tdm_ckpt_load_u64(c->data + e->offset);
    return TDM_OK;
}

tdm_status tdm_checkpoint_tensor_shape(const tdm_checkpoint *c, const char *name, tdm_dtype *dtype,
                                       tdm_shape *shape)
{
    static const char func[] = "tdm_checkpoint_tensor_shape";
    TDM_CHECK_ARG(c, func);
    TDM_CHECK_ARG(name, func);
    TDM_CHECK_ARG(dtype, func);
    TDM_CHECK_ARG(shape, func);
    const entry *e = find(c, name, func, "tensor");
    if (!e)
        return TDM_ERR_NOT_FOUND;
    if (e->kind == TDM_CKPT_KIND_U64)
        return tdm_fail(TDM_ERR_CORRUPT_DATA,
                        "%s: '%s' in checkpoint %s is a u64 value, not a tensor", func, name,
                        c->path);
    *dtype = e->kind == TDM_CKPT_KIND_F32   ? TDM_F32
             : e->kind == TDM_CKPT_KIND_I32 ? TDM_I32
                                            : TDM_I64;
    shape->rank = e->rank;
    for (unsigned i = 0; i < e->rank; i++)
        shape->dims[i] = (size_t)e->dims[i];
    return TDM_OK;
}
