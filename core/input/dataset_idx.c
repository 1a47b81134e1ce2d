/* tdm_dataset_from_idx: a pair of IDX files (the MNIST format), images and labels.
 *
 * An IDX file is the magic 00 00 TYPE DIMS, DIMS big-endian u32 sizes, then the
 * elements, big-endian, in row-major order. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/dataset_impl.h"
#include "base/error.h"
#include "input/file_read.h"
#include "base/options.h"

static const char *const func = "tdm_dataset_from_idx";

typedef struct idx_file {
    const char *path;
    const char *role; /* "images" or "labels" */
    char *data;       /* the whole file */
    size_t size;
    unsigned type; /* the element type code */
    size_t element_size;
    size_t count;    /* the first dimension */
    size_t per_item; /* elements per example: the other dimensions' product */
    size_t data_offset;
} idx_file;

static size_t element_size(unsigned type)
{
    switch (type) {
    case 0x08: return 1; /* u8 */
    case 0x09: return 1; /* i8 */
    case 0x0B: return 2; /* i16 */
    case 0x0C: return 4; /* i32 */
    case 0x0D: return 4; /* f32 */
    case 0x0E: return 8; /* f64 */
    }
    return 0;
}

static double element_value(const idx_file *f, size_t index)
{
    const unsigned char *p =
        (const unsigned char *)f->data + f->data_offset + index * f->element_size;
    uint64_t bits = 0;
    for (size_t i = 0; i < f->element_size; i++)
        bits = bits << 8 | p[i];
    uint32_t bits32 = (uint32_t)bits;
    float f32;
    double f64;
    switch (f->type) {
    case 0x08: return p[0];
    case 0x09: return (int8_t)p[0];
    case 0x0B: return (int16_t)bits;
    case 0x0C: return (int32_t)bits32;
    case 0x0D: memcpy(&f32, &bits32, sizeof f32); return f32;
    default: memcpy(&f64, &bits, sizeof f64); return f64;
    }
}

static tdm_status corrupt(const idx_file *f, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Fails naming the file and the byte offset of the fault. */
static tdm_status corrupt(const idx_file *f, size_t offset, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s: byte %zu: %s", func, f->path, offset, what);
}

static uint32_t read_u32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Reads the dimensions: count, per_item and data_offset. */
static tdm_status parse_dimensions(idx_file *f, unsigned dims)
{
    f->data_offset = 4 + 4 * (size_t)dims;
    if (f->size < f->data_offset)
        return corrupt(f, f->size,
                       "truncated header: %u dimensions need %zu bytes, the file has %zu", dims,
                       f->data_offset, f->size);
    size_t bytes = f->element_size;
    f->per_item = 1;
    for (unsigned i = 0; i < dims; i++) {
        size_t n = read_u32((const unsigned char *)f->data + 4 + 4 * i);
        if (n == 0)
            return corrupt(f, 4 + 4 * (size_t)i, "a dimension is 0");
        if (__builtin_mul_overflow(bytes, n, &bytes))
            bytes = SIZE_MAX; /* more than any file holds: reported as truncated */
        if (i == 0)
            f->count = n;
        else
            f->per_item *= n;
    }
    size_t have = f->size - f->data_offset;
    if (have < bytes)
        return corrupt(f, f->size,
                       "truncated data: the dimensions need %zu bytes of data, the file has %zu",
                       bytes, have);
    if (have > bytes)
        return corrupt(f, f->data_offset + bytes, "%zu bytes past the end of the data",
                       have - bytes);
    return TDM_OK;
}

static tdm_status parse_header(idx_file *f, unsigned expected_dims)
{
    const unsigned char *d = (const unsigned char *)f->data;
    if (f->size < 4)
        return corrupt(f, f->size, "truncated header: the file has %zu bytes", f->size);
    if (d[0] || d[1])
        return corrupt(f, 0, "magic %02x %02x %02x %02x is not an IDX file's (00 00 type dims)",
                       d[0], d[1], d[2], d[3]);
    f->type = d[2];
    f->element_size = element_size(d[2]);
    if (!f->element_size)
        return corrupt(f, 2, "unknown element type 0x%02x", d[2]);
    if (d[3] == 0 || (expected_dims && d[3] != expected_dims))
        return corrupt(f, 3, "%u dimensions; a %s file needs %s", d[3], f->role,
                       expected_dims ? "1" : "at least 1");
    return parse_dimensions(f, d[3]);
}

static tdm_status load(idx_file *f, unsigned expected_dims)
{
    tdm_status s = tdm_read_file(f->path, func, &f->data, &f->size);
    return s == TDM_OK ? parse_header(f, expected_dims) : s;
}

static tdm_status fill_features(const idx_file *f, tdm_table *t)
{
    for (size_t i = 0; i < f->count * f->per_item; i++) {
        t->features[i] = (float)element_value(f, i);
        if (!isfinite(t->features[i]))
            return corrupt(f, f->data_offset + i * f->element_size,
                           "the value is not a finite float32");
    }
    return TDM_OK;
}

static tdm_status fill_labels(const idx_file *f, const tdm_idx_options *o, tdm_table *t)
{
    char why[128];
    for (size_t i = 0; i < f->count; i++)
        if (tdm_label_from_value(element_value(f, i), o->class_count, o->max_class_count,
                                 (int32_t *)t->labels + i, why, sizeof why) != 0)
            return corrupt(f, f->data_offset + i * f->element_size, "%s", why);
    return TDM_OK;
}

static tdm_status build_table(const idx_file *images, const idx_file *labels,
                              const tdm_idx_options *o, tdm_table **out)
{
    if (images->count != labels->count)
        return tdm_fail(TDM_ERR_CORRUPT_DATA, "%s: %s: byte 4: %zu labels, but %s has %zu images",
                        func, labels->path, labels->count, images->path, images->count);
    tdm_status s = tdm_table_create(images->count, images->per_item, TDM_I32, 1, out);
    if (s == TDM_OK)
        s = fill_features(images, *out);
    if (s == TDM_OK)
        s = fill_labels(labels, o, *out);
    if (s != TDM_OK) {
        tdm_table_release(*out);
        *out = NULL;
    }
    return s;
}

tdm_status tdm_dataset_from_idx(const char *images_path, const char *labels_path,
                                const tdm_idx_options *opts, tdm_dataset **out)
{
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(images_path, func);
    TDM_CHECK_ARG(labels_path, func);
    tdm_idx_options o = TDM_IDX_OPTIONS_INIT;
    idx_file images = {.path = images_path, .role = "images"};
    idx_file labels = {.path = labels_path, .role = "labels"};
    tdm_table *t = NULL;
    tdm_status s = tdm_options_read(&o, sizeof o, opts, func);
    if (s == TDM_OK)
        s = load(&images, 0);
    if (s == TDM_OK)
        s = load(&labels, 1);
    if (s == TDM_OK)
        s = build_table(&images, &labels, &o, &t);
    free(images.data);
    free(labels.data);
    return s == TDM_OK ? tdm_dataset_wrap(t, o.class_count, out) : s;
}
