/* Writing a safetensors file: the header JSON, padded to 8 bytes so that the data
 * starts aligned, then the tensors' float32 values little-endian. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/checkpoint_format.h"
#include "checkpoint/safetensors.h"

/* A growing text buffer; a failed append leaves failed set. */
typedef struct text {
    char *s;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...)
{
    for (int attempt = 0; attempt < 2 && !t->failed; attempt++) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
        } else if (t->s && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        } else {
            size_t cap = 2 * (t->len + (size_t)n + 1);
            char *s = realloc(t->s, cap);
            t->failed = !s;
            t->s = s ? s : t->s;
            t->cap = s ? cap : t->cap;
        }
    }
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_string(text *t, const char *s)
{
    put(t, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            put(t, "\\%c", c);
        else if (c < 0x20)
            put(t, "\\u%04x", c);
        else
            put(t, "%c", c);
    }
    put(t, "\"");
}

static void put_metadata(text *t, const tdm_st_entry *m, size_t n, const char *crc_key,
                         uint32_t crc)
{
    put(t, "\"__metadata__\":{");
    for (size_t i = 0; i < n; i++) {
        put_string(t, m[i].key);
        put(t, ":");
        put_string(t, m[i].value);
        put(t, i + 1 < n || crc_key ? "," : "");
    }
    if (crc_key) {
        put_string(t, crc_key);
        put(t, ":\"%08lx\"", (unsigned long)crc);
    }
    put(t, "}");
}

static void put_tensor(text *t, const tdm_st_out *o, size_t begin, size_t end)
{
    put(t, ",");
    put_string(t, o->name);
    put(t, ":{\"dtype\":\"F32\",\"shape\":[");
    for (uint32_t d = 0; d < o->shape.rank; d++)
        put(t, d ? ",%zu" : "%zu", o->shape.dims[d]);
    put(t, "],\"data_offsets\":[%zu,%zu]}", begin, end);
}

/* Every tensor's values, little-endian, one after the other. */
static unsigned char *encode_data(const tdm_st_out *tensors, size_t n, size_t *size)
{
    *size = 0;
    for (size_t i = 0; i < n; i++)
        *size += tdm_shape_count(&tensors[i].shape) * sizeof(float);
    unsigned char *data = malloc(*size ? *size : 1), *p = data;
    for (size_t i = 0; data && i < n; i++)
        for (size_t k = 0; k < tdm_shape_count(&tensors[i].shape); k++, p += 4) {
            uint32_t bits;
            memcpy(&bits, &tensors[i].values[k], sizeof bits);
            tdm_ckpt_store_u32(p, bits);
        }
    return data;
}

int tdm_st_write(FILE *f, const tdm_st_entry *metadata, size_t metadata_count, const char *crc_key,
                 const tdm_st_out *tensors, size_t tensor_count)
{
    size_t size;
    unsigned char *data = encode_data(tensors, tensor_count, &size);
    text t = {0};
    put(&t, "{");
    put_metadata(&t, metadata, metadata_count, crc_key, data ? tdm_ckpt_crc(0, data, size) : 0);
    for (size_t i = 0, at = 0; i < tensor_count; i++) {
        size_t bytes = tdm_shape_count(&tensors[i].shape) * sizeof(float);
        put_tensor(&t, &tensors[i], at, at + bytes);
        at += bytes;
    }
    put(&t, "}");
    while (t.len % 8)
        put(&t, " ");
    int ok = data && !t.failed;
    if (ok) {
        unsigned char length[8];
        tdm_ckpt_store_u64(length, t.len);
        ok = fwrite(length, 1, 8, f) == 8 && fwrite(t.s, 1, t.len, f) == t.len &&
             fwrite(data, 1, size, f) == size;
    } else {
        errno = ENOMEM;
    }
    free(t.s);
    free(data);
    return ok ? 0 : -1;
}
