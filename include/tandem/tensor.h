/* tandem: tensors, typed and shaped arrays on one device. */
#ifndef TANDEM_TENSOR_H
#define TANDEM_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/buffer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_tensor tdm_tensor;

typedef enum tdm_dtype {
    TDM_F32 = 0, /* what every kernel computes in */
    TDM_I32 = 1, /* counts and labels; reductions of them run on the host */
    TDM_I64 = 2, /* exact counters (int64 variables, checkpoints); no kernel computes
                    in it: written and read from the host */
    TDM_F16 = 3  /* IEEE binary16, 2 bytes, for storage: tdm_op_cast converts, and
                    tdm_op_matmul multiplies f16 operands, summing in f32 (mixed
                    precision). Host data is the 16-bit patterns. */
} tdm_dtype;

#define TDM_MAX_RANK 4

/* A shape: rank 0 is a scalar (one element). A dimension may be 0 (an empty
 * tensor, such as a replica's empty slice of a last partial batch). */
typedef struct tdm_shape {
    uint32_t rank;
    size_t dims[TDM_MAX_RANK];
} tdm_shape;

/* Shape literals: TDM_SHAPE(2, 3) is a 2 x 3 matrix, TDM_SCALAR a scalar. */
#define TDM_SHAPE(...)                                                                             \
    ((tdm_shape){sizeof((size_t[]){__VA_ARGS__}) / sizeof(size_t), {__VA_ARGS__}})
#define TDM_SCALAR ((tdm_shape){0, {0}})

/* Elements the shape spans (1 for a scalar); SIZE_MAX when the product of its
 * dimensions does not fit in a size_t (tensors, variables and checkpoints refuse such
 * shapes with TDM_ERR_INVALID_ARGUMENT). */
TDM_API size_t tdm_shape_count(const tdm_shape *shape);

/* Bytes per element: 2 for f16, 4 for f32 and i32, 8 for i64. */
TDM_API size_t tdm_dtype_size(tdm_dtype dtype);

/* "f32", "i32", "i64" or "f16". */
TDM_API const char *tdm_dtype_name(tdm_dtype dtype);

/* Allocates a tensor on the device; its contents are undefined until written. */
TDM_API tdm_status tdm_tensor_create(tdm_device *dev, tdm_dtype dtype, const tdm_shape *shape,
                                     tdm_tensor **out);

/* A tensor over `shape`'s count of elements of parent, from element `offset` on:
 * same dtype and device, same memory (writes to either show in the other). It must
 * not outlive parent; destroying it leaves parent alone. One buffer holding many
 * tensors lets one collective reduce them all (a flat gradient). */
TDM_API tdm_status tdm_tensor_slice(tdm_tensor *parent, size_t offset, const tdm_shape *shape,
                                    tdm_tensor **out);

/* Releases the tensor without waiting for its device: its memory goes once the work
 * issued on the device before the destroy has completed. NULL-safe. */
TDM_API void tdm_tensor_destroy(tdm_tensor *t);

/* Copies host data in; size must be the tensor's size in bytes. */
TDM_API tdm_status tdm_tensor_write(tdm_tensor *t, const void *src, size_t size);

/* Copies the tensor out, after every earlier operation on its device. */
TDM_API tdm_status tdm_tensor_read(const tdm_tensor *t, void *dst, size_t size);

/* Copies src into dst (same dtype and element count), across any two devices. */
TDM_API tdm_status tdm_tensor_copy(tdm_tensor *dst, const tdm_tensor *src);

TDM_API tdm_device *tdm_tensor_device(const tdm_tensor *t);
TDM_API tdm_dtype tdm_tensor_dtype(const tdm_tensor *t);
TDM_API tdm_shape tdm_tensor_shape(const tdm_tensor *t);
TDM_API size_t tdm_tensor_count(const tdm_tensor *t);
/* Size in bytes: count times the element size. */
TDM_API size_t tdm_tensor_bytes(const tdm_tensor *t);

/* The tensor's bytes as a buffer view, for the buffer API. */
TDM_API tdm_buffer_view tdm_tensor_view(const tdm_tensor *t);

#ifdef __cplusplus
}
#endif
#endif
