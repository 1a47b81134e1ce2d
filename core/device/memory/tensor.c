/* Tensors: a buffer with a dtype and a shape. */
#include <stdio.h>
#include <stdlib.h>

#include "device/device_impl.h"
#include "base/checked_size.h"
#include "base/error.h"
#include "device/memory/tensor_impl.h"

size_t tdm_shape_count(const tdm_shape *shape)
{
    uint32_t rank = shape ? (shape->rank < TDM_MAX_RANK ? shape->rank : TDM_MAX_RANK) : 0;
    for (uint32_t i = 0; i < rank; i++)
        if (shape->dims[i] == 0)
            return 0;
    size_t n = 1;
    for (uint32_t i = 0; i < rank; i++)
        if (tdm_mul_overflows(n, shape->dims[i], &n))
            return SIZE_MAX;
    return n;
}

size_t tdm_dtype_size(tdm_dtype dtype)
{
    return dtype == TDM_I64 ? 8 : dtype == TDM_F16 ? 2 : 4;
}

const char *tdm_dtype_name(tdm_dtype dtype)
{
    return dtype == TDM_I32   ? "i32"
           : dtype == TDM_F32 ? "f32"
           : dtype == TDM_I64 ? "i64"
           : dtype == TDM_F16 ? "f16"
                              : "unknown";
}

tdm_status tdm_check_shape(const tdm_shape *shape, const char *func)
{
    if (!shape)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument 'shape' is NULL", func);
    if (shape->rank > TDM_MAX_RANK)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: rank %u is over the maximum of %d", func,
                        shape->rank, TDM_MAX_RANK);
    size_t bytes;
    if (tdm_mul_overflows(tdm_shape_count(shape), sizeof(float), &bytes)) {
        char text[128];
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: shape %s has more elements than a size_t can count in bytes", func,
                        tdm_shape_format(shape, text, sizeof text));
    }
    return TDM_OK;
}

int tdm_shape_equal(const tdm_shape *a, const tdm_shape *b)
{
    if (a->rank != b->rank)
        return 0;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return 0;
    return 1;
}

const char *tdm_shape_format(const tdm_shape *shape, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (uint32_t i = 0; i < shape->rank && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%zu", i ? ", " : "", shape->dims[i]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
    return buf;
}

tdm_status tdm_tensor_create(tdm_device *dev, tdm_dtype dtype, const tdm_shape *shape,
                             tdm_tensor **out)
{
    TDM_CHECK_ARG(out, "tdm_tensor_create");
    *out = NULL;
    TDM_CHECK_ARG(dev, "tdm_tensor_create");
    tdm_status s = tdm_check_shape(shape, "tdm_tensor_create");
    if (s != TDM_OK)
        return s;
    if (dtype != TDM_F32 && dtype != TDM_I32 && dtype != TDM_I64 && dtype != TDM_F16)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_tensor_create: unknown dtype %d",
                        (int)dtype);
    tdm_tensor *t = calloc(1, sizeof *t);
    if (!t)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_tensor_create: out of host memory");
    *t = (tdm_tensor){.device = dev, .dtype = dtype, .shape = *shape, .owner = 1};
    t->count = tdm_shape_count(shape);
    /* whole words: the kernels move float16 in pairs, an odd count's last pair
     * included */
    size_t bytes = (t->count * tdm_dtype_size(dtype) + 3) / 4 * 4;
    s = tdm_buffer_alloc(dev, bytes ? bytes : 4, &t->buffer);
    if (s != TDM_OK) {
        free(t);
        return tdm_fail_context(s, "tdm_tensor_create");
    }
    *out = t;
    return TDM_OK;
}

tdm_status tdm_tensor_create_like(tdm_device *dev, const tdm_tensor *t, tdm_tensor **out)
{
    return tdm_tensor_create(dev, t->dtype, &t->shape, out);
}

void tdm_tensor_destroy(tdm_tensor *t)
{
    if (!t)
        return;
    int last = t->owner && (!t->refs || atomic_fetch_sub(t->refs, 1) == 1);
    if (last)
        tdm_buffer_free(t->buffer);
    if (last && t->refs)
        free(t->refs);
    free(t);
}

tdm_status tdm_tensor_slice(tdm_tensor *parent, size_t offset, const tdm_shape *shape,
                            tdm_tensor **out)
{
    TDM_CHECK_ARG(out, "tdm_tensor_slice");
    *out = NULL;
    TDM_CHECK_ARG(parent, "tdm_tensor_slice");
    tdm_status s = tdm_check_shape(shape, "tdm_tensor_slice");
    if (s != TDM_OK)
        return s;
    size_t count = tdm_shape_count(shape);
    if (offset > parent->count || count > parent->count - offset)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_tensor_slice: elements [%zu, %zu) are outside the parent's %zu",
                        offset, offset + count, parent->count);
    tdm_tensor *t = malloc(sizeof *t);
    if (!t)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_tensor_slice: out of host memory");
    *t = *parent;
    t->shape = *shape;
    t->count = count;
    t->offset = parent->offset + offset * tdm_dtype_size(parent->dtype);
    t->owner = 0;
    t->refs = NULL;
    *out = t;
    return TDM_OK;
}

tdm_status tdm_tensor_share(tdm_tensor *t, size_t offset, const tdm_shape *shape, tdm_tensor **out)
{
    if (!t->owner)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_tensor_share: the tensor is a slice; only an owner shares");
    if (!t->refs) {
        t->refs = malloc(sizeof *t->refs);
        if (!t->refs)
            return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_tensor_share: out of host memory");
        atomic_init(t->refs, 1);
    }
    tdm_status s = tdm_tensor_slice(t, offset, shape, out);
    if (s == TDM_OK) {
        (*out)->owner = 1;
        (*out)->refs = t->refs;
        atomic_fetch_add(t->refs, 1);
    }
    return s;
}

tdm_status tdm_tensor_reinterpret(tdm_tensor *t, tdm_dtype dtype, const tdm_shape *shape,
                                  tdm_tensor **out)
{
    const char *f = "tdm_tensor_reinterpret";
    *out = NULL;
    tdm_status s = tdm_check_shape(shape, f);
    if (s != TDM_OK)
        return s;
    size_t count = tdm_shape_count(shape);
    if (count > tdm_tensor_bytes(t) / tdm_dtype_size(dtype))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %zu elements of %s pass the tensor's %zu bytes", f, count,
                        tdm_dtype_name(dtype), tdm_tensor_bytes(t));
    tdm_tensor *r = malloc(sizeof *r);
    if (!r)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", f);
    *r = *t;
    r->dtype = dtype;
    r->shape = *shape;
    r->count = count;
    r->owner = 0;
    r->refs = NULL;
    *out = r;
    return TDM_OK;
}

/* TDM_ERR_INVALID_ARGUMENT unless size is the tensor's byte size. */
static tdm_status check_size(const tdm_tensor *t, size_t size, const char *func)
{
    if (!t)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument 't' is NULL", func);
    if (size != tdm_tensor_bytes(t))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: size is %zu bytes, the tensor has %zu", func,
                        size, tdm_tensor_bytes(t));
    return TDM_OK;
}

tdm_status tdm_tensor_write(tdm_tensor *t, const void *src, size_t size)
{
    tdm_status s = check_size(t, size, "tdm_tensor_write");
    if (s == TDM_OK && size && !src)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_tensor_write: argument 'src' is NULL");
    return s != TDM_OK ? s : tdm_buffer_write(t->buffer, t->offset, src, size);
}

tdm_status tdm_tensor_read(const tdm_tensor *t, void *dst, size_t size)
{
    tdm_status s = check_size(t, size, "tdm_tensor_read");
    if (s == TDM_OK && size && !dst)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_tensor_read: argument 'dst' is NULL");
    return s != TDM_OK ? s : tdm_buffer_read(t->buffer, t->offset, dst, size);
}

tdm_status tdm_tensor_copy(tdm_tensor *dst, const tdm_tensor *src)
{
    TDM_CHECK_ARG(dst, "tdm_tensor_copy");
    TDM_CHECK_ARG(src, "tdm_tensor_copy");
    if (dst->dtype != src->dtype || dst->count != src->count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_tensor_copy: dst holds %zu %s, src %zu %s",
                        dst->count, tdm_dtype_name(dst->dtype), src->count,
                        tdm_dtype_name(src->dtype));
    if (dst == src || src->count == 0)
        return TDM_OK;
    tdm_buffer_view d = tdm_tensor_view(dst), s = tdm_tensor_view(src);
    return tdm_buffer_copy(&d, &s);
}

tdm_device *tdm_tensor_device(const tdm_tensor *t)
{
    return t ? t->device : NULL;
}

tdm_dtype tdm_tensor_dtype(const tdm_tensor *t)
{
    return t ? t->dtype : TDM_F32;
}

tdm_shape tdm_tensor_shape(const tdm_tensor *t)
{
    return t ? t->shape : TDM_SCALAR;
}

size_t tdm_tensor_count(const tdm_tensor *t)
{
    return t ? t->count : 0;
}

size_t tdm_tensor_bytes(const tdm_tensor *t)
{
    return t ? t->count * tdm_dtype_size(t->dtype) : 0;
}

tdm_buffer_view tdm_tensor_view(const tdm_tensor *t)
{
    tdm_buffer_view v = {t ? t->buffer : NULL, t ? t->offset : 0, tdm_tensor_bytes(t)};
    return v;
}
