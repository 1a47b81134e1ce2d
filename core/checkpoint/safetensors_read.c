/* Reading a safetensors file: the header's JSON into tensors and metadata, then the
 * layout's rules, so that a damaged or truncated file is refused before any value
 * is used. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/checkpoint_format.h"
#include "base/error.h"
#include "checkpoint/json_scan.h"
#include "checkpoint/safetensors.h"

typedef struct reader {
    tdm_json j;
    const char *func, *path;
    size_t header_at; /* the header's offset in the file, for messages */
    tdm_st_file *f;
} reader;

size_t tdm_st_dtype_size(const char *dtype)
{
    static const struct {
        const char *name;
        size_t size;
    } sizes[] = {{"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1},
                 {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
                 {"U32", 4},  {"F32", 4}, {"F64", 8}, {"I64", 8},     {"U64", 8}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (strcmp(dtype, sizes[i].name) == 0)
            return sizes[i].size;
    return 0;
}

tdm_status tdm_st_corrupt(const char *func, const char *path, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s: %s", func, path, what);
}

static tdm_status json_fault(const reader *r)
{
    if (r->j.out_of_memory)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", r->func);
    return tdm_fail(TDM_ERR_CORRUPT_DATA,
                    "%s: %s: the safetensors header is not valid: %s at byte %zu", r->func, r->path,
                    r->j.error, r->header_at + r->j.error_at);
}

static int dims(reader *r, tdm_st_tensor *t)
{
    if (tdm_json_expect(&r->j, '['))
        return -1;
    if (tdm_json_take(&r->j, ']'))
        return 0;
    do {
        if (t->rank == TDM_ST_MAX_RANK)
            return tdm_json_fail(&r->j, "a shape of more than 8 dimensions");
        if (tdm_json_u64(&r->j, &t->dims[t->rank++]))
            return -1;
    } while (tdm_json_take(&r->j, ','));
    return tdm_json_expect(&r->j, ']');
}

static int offsets(reader *r, tdm_st_tensor *t)
{
    return tdm_json_expect(&r->j, '[') || tdm_json_u64(&r->j, &t->begin) ||
           tdm_json_expect(&r->j, ',') || tdm_json_u64(&r->j, &t->end) ||
           tdm_json_expect(&r->j, ']');
}

/* {"dtype": ..., "shape": [...], "data_offsets": [b, e]}, each key exactly once. */
static int tensor_entry(reader *r, tdm_st_tensor *t)
{
    int seen = 0;
    if (tdm_json_expect(&r->j, '{'))
        return -1;
    do {
        char *key = NULL;
        if (tdm_json_string(&r->j, &key) || tdm_json_expect(&r->j, ':')) {
            free(key);
            return -1;
        }
        int bit = !strcmp(key, "dtype")          ? 1
                  : !strcmp(key, "shape")        ? 2
                  : !strcmp(key, "data_offsets") ? 4
                                                 : 0;
        free(key);
        int failed = !bit || (seen & bit) ? -1
                     : bit == 1           ? tdm_json_string(&r->j, &t->dtype)
                     : bit == 2           ? dims(r, t)
                                          : offsets(r, t);
        if (failed)
            return tdm_json_fail(&r->j,
                                 bit ? "a key given twice" : "an unknown key in a tensor entry");
        seen |= bit;
    } while (tdm_json_take(&r->j, ','));
    if (seen != 7)
        return tdm_json_fail(&r->j, "a tensor entry without dtype, shape or data_offsets");
    return tdm_json_expect(&r->j, '}');
}

static int metadata(reader *r)
{
    tdm_st_file *f = r->f;
    if (tdm_json_expect(&r->j, '{'))
        return -1;
    if (tdm_json_take(&r->j, '}'))
        return 0;
    do {
        tdm_st_entry *grown = realloc(f->metadata, (f->metadata_count + 1) * sizeof *grown);
        if (!grown) {
            r->j.out_of_memory = 1;
            return tdm_json_fail(&r->j, "out of host memory");
        }
        f->metadata = grown;
        tdm_st_entry *e = &f->metadata[f->metadata_count++];
        *e = (tdm_st_entry){0};
        if (tdm_json_string(&r->j, &e->key) || tdm_json_expect(&r->j, ':') ||
            tdm_json_string(&r->j, &e->value))
            return -1;
    } while (tdm_json_take(&r->j, ','));
    return tdm_json_expect(&r->j, '}');
}

/* One "key": value of the top-level object. */
static int member(reader *r, int *had_metadata)
{
    tdm_st_file *f = r->f;
    char *key = NULL;
    if (tdm_json_string(&r->j, &key) || tdm_json_expect(&r->j, ':')) {
        free(key);
        return -1;
    }
    if (tdm_st_find(f, key)) {
        free(key);
        return tdm_json_fail(&r->j, "a tensor name given twice");
    }
    if (strcmp(key, "__metadata__") == 0) {
        free(key);
        if (*had_metadata)
            return tdm_json_fail(&r->j, "__metadata__ given twice");
        *had_metadata = 1;
        return metadata(r);
    }
    tdm_st_tensor *grown = realloc(f->tensors, (f->tensor_count + 1) * sizeof *grown);
    if (!grown) {
        free(key);
        r->j.out_of_memory = 1;
        return tdm_json_fail(&r->j, "out of host memory");
    }
    f->tensors = grown;
    tdm_st_tensor *t = &f->tensors[f->tensor_count++];
    *t = (tdm_st_tensor){.name = key};
    return tensor_entry(r, t);
}

static int header(reader *r)
{
    int had_metadata = 0;
    if (tdm_json_expect(&r->j, '{'))
        return -1;
    if (!tdm_json_take(&r->j, '}')) {
        do
            if (member(r, &had_metadata))
                return -1;
        while (tdm_json_take(&r->j, ','));
        if (tdm_json_expect(&r->j, '}'))
            return -1;
    }
    return tdm_json_finish(&r->j);
}

static int by_begin(const void *a, const void *b)
{
    const tdm_st_tensor *x = *(const tdm_st_tensor *const *)a,
                        *y = *(const tdm_st_tensor *const *)b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Each tensor's bytes match its dtype and shape. */
static tdm_status check_sizes(const reader *r)
{
    for (size_t i = 0; i < r->f->tensor_count; i++) {
        const tdm_st_tensor *t = &r->f->tensors[i];
        uint64_t bytes = tdm_st_dtype_size(t->dtype);
        if (!bytes)
            return tdm_st_corrupt(r->func, r->path, "tensor '%s' has an unknown dtype '%s'",
                                  t->name, t->dtype);
        for (size_t d = 0; d < t->rank; d++) {
            if (t->dims[d] && bytes > UINT64_MAX / t->dims[d])
                return tdm_st_corrupt(r->func, r->path, "tensor '%s' is too large", t->name);
            bytes *= t->dims[d];
        }
        if (t->end < t->begin || t->end - t->begin != bytes)
            return tdm_st_corrupt(r->func, r->path,
                                  "tensor '%s': its data_offsets do not span its %llu bytes",
                                  t->name, (unsigned long long)bytes);
    }
    return TDM_OK;
}

/* The tensors cover the data exactly, in some order, with no gap or overlap. */
static tdm_status check_coverage(const reader *r)
{
    tdm_st_file *f = r->f;
    const tdm_st_tensor **order = malloc((f->tensor_count ? f->tensor_count : 1) * sizeof *order);
    if (!order)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", r->func);
    for (size_t i = 0; i < f->tensor_count; i++)
        order[i] = &f->tensors[i];
    qsort(order, f->tensor_count, sizeof *order, by_begin);
    uint64_t at = 0;
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < f->tensor_count && s == TDM_OK; i++) {
        if (order[i]->begin != at)
            s = tdm_st_corrupt(
                r->func, r->path,
                "tensor '%s' does not start where the one before it ends (byte %llu)",
                order[i]->name, (unsigned long long)at);
        else if (order[i]->end > f->data_size)
            s = tdm_st_corrupt(
                r->func, r->path,
                "truncated: tensor '%s' ends past the end of the file (%zu bytes of data)",
                order[i]->name, f->data_size);
        at = order[i]->end;
    }
    if (s == TDM_OK && at != f->data_size)
        s = tdm_st_corrupt(r->func, r->path, "%llu bytes after the last tensor's data",
                           (unsigned long long)(f->data_size - at));
    free(order);
    return s;
}

static tdm_status parse(reader *r, const unsigned char *bytes, size_t size)
{
    if (size < 8)
        return tdm_st_corrupt(r->func, r->path,
                              "truncated: %zu bytes, shorter than the 8-byte header length", size);
    uint64_t n = tdm_ckpt_load_u64(bytes);
    if (n <= TDM_ST_MAX_HEADER && n > size - 8 && n >= 2 && size > 8 && bytes[8] == '{')
        return tdm_st_corrupt(
            r->func, r->path,
            "truncated: the header length is %llu bytes, the file holds %zu after it",
            (unsigned long long)n, size - 8);
    if (n > TDM_ST_MAX_HEADER || n > size - 8 || n < 2 || bytes[8] != '{')
        return tdm_st_corrupt(
            r->func, r->path,
            "not a safetensors file: it does not start with a header length and a "
            "JSON header");
    r->header_at = 8;
    tdm_json_init(&r->j, (const char *)bytes + 8, (size_t)n);
    if (header(r))
        return json_fault(r);
    r->f->data = bytes + 8 + n;
    r->f->data_size = size - 8 - (size_t)n;
    tdm_status s = check_sizes(r);
    return s == TDM_OK ? check_coverage(r) : s;
}

tdm_status tdm_st_parse(const unsigned char *bytes, size_t size, const char *func, const char *path,
                        tdm_st_file *out)
{
    *out = (tdm_st_file){0};
    reader r = {.func = func, .path = path, .f = out};
    tdm_status s = parse(&r, bytes, size);
    if (s != TDM_OK)
        tdm_st_free(out);
    return s;
}

void tdm_st_free(tdm_st_file *f)
{
    for (size_t i = 0; i < f->tensor_count; i++) {
        free(f->tensors[i].name);
        free(f->tensors[i].dtype);
    }
    for (size_t i = 0; i < f->metadata_count; i++) {
        free(f->metadata[i].key);
        free(f->metadata[i].value);
    }
    free(f->tensors);
    free(f->metadata);
    *f = (tdm_st_file){0};
}

const char *tdm_st_metadata(const tdm_st_file *f, const char *key)
{
    for (size_t i = 0; i < f->metadata_count; i++)
        if (strcmp(f->metadata[i].key, key) == 0)
            return f->metadata[i].value;
    return NULL;
}

const tdm_st_tensor *tdm_st_find(const tdm_st_file *f, const char *name)
{
    for (size_t i = 0; i < f->tensor_count; i++)
        if (strcmp(f->tensors[i].name, name) == 0)
            return &f->tensors[i];
    return NULL;
}
