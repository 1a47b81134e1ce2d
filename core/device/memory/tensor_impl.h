/* Internal: the tensor struct. A tensor owns one buffer of at least 4 bytes (an
 * empty tensor still has a buffer, so every tensor has a device and a view), shares
 * its ownership with other tensors over parts of it (tdm_tensor_share), or is a
 * slice of another tensor's buffer. */
#ifndef TDM_CORE_TENSOR_IMPL_H
#define TDM_CORE_TENSOR_IMPL_H

#include <stdatomic.h>

#include "tandem/tensor.h"

struct tdm_tensor {
    tdm_device *device;
    tdm_buffer *buffer;
    tdm_dtype dtype;
    tdm_shape shape;
    size_t count;  /* elements */
    size_t offset; /* bytes into buffer: nonzero only for slices */
    int owner;     /* 1: destroy frees the buffer (refs: once the last owner goes); 0: a slice */
    atomic_size_t *refs; /* shared: the owners of buffer; NULL: one owner, or a slice */
};

/* Checks a shape: rank <= TDM_MAX_RANK; names func in the message. */
tdm_status tdm_check_shape(const tdm_shape *shape, const char *func);

/* Whether two shapes are equal. */
int tdm_shape_equal(const tdm_shape *a, const tdm_shape *b);

/* Formats a shape as "[2, 3]" into buf. */
const char *tdm_shape_format(const tdm_shape *shape, char *buf, size_t size);

/* *out = a tensor of dtype and shape over t's first bytes (t's memory read as other
 * elements: scratch that one pass holds in f16 and a later one in f32), not owning
 * them; INVALID_ARGUMENT where they pass t's bytes. */
tdm_status tdm_tensor_reinterpret(tdm_tensor *t, tdm_dtype dtype, const tdm_shape *shape,
                                  tdm_tensor **out);

/* *out = a tensor of shape over elements [offset, offset + its count) of t's buffer
 * that owns the buffer with t: the buffer is freed once t and every share of it are
 * destroyed, in any order (an arena of several variables' copies, which live longer
 * than what made the arena). t owns its buffer or is a share itself. */
tdm_status tdm_tensor_share(tdm_tensor *t, size_t offset, const tdm_shape *shape, tdm_tensor **out);

/* A tensor like t (dtype and shape) on dev. */
tdm_status tdm_tensor_create_like(tdm_device *dev, const tdm_tensor *t, tdm_tensor **out);

#endif
