/* Internal: the safetensors layout, which tandem's model files use so that other
 * tools read their weights:
 *
 *   u64 little-endian   N, the header's length in bytes
 *   N bytes             a JSON object, padded with spaces: for each tensor
 *                         "name": {"dtype": "F32", "shape": [d0, ...],
 *                                  "data_offsets": [begin, end]}
 *                       and "__metadata__": {"key": "value", ...} (strings only)
 *   the data            every tensor's bytes, little-endian, at [begin, end) from
 *                       here; the tensors cover it without gaps or overlaps
 */
#ifndef TDM_TRAIN_SAFETENSORS_H
#define TDM_TRAIN_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tandem/tensor.h"

#define TDM_ST_MAX_RANK 8
#define TDM_ST_MAX_HEADER (100u << 20) /* the limit other readers apply too */

typedef struct tdm_st_tensor {
    char *name;
    char *dtype; /* "F32", "F16", "I64", ... as written */
    size_t rank;
    uint64_t dims[TDM_ST_MAX_RANK];
    uint64_t begin, end; /* byte offsets in the data */
} tdm_st_tensor;

typedef struct tdm_st_entry {
    char *key, *value;
} tdm_st_entry;

typedef struct tdm_st_file {
    const unsigned char *data; /* the data section, inside the caller's bytes */
    size_t data_size;
    tdm_st_tensor *tensors; /* in the header's order */
    size_t tensor_count;
    tdm_st_entry *metadata;
    size_t metadata_count;
} tdm_st_file;

/* Parses a whole file held in bytes and checks the layout: the header's length, its
 * JSON, each tensor's byte count against its dtype and shape, and the data covered
 * exactly. Failures are TDM_ERR_CORRUPT_DATA with "func: path: ..." and, for the
 * JSON, the byte offset in the file. The result points into bytes. */
tdm_status tdm_st_parse(const unsigned char *bytes, size_t size, const char *func, const char *path,
                        tdm_st_file *out);
void tdm_st_free(tdm_st_file *f);

/* TDM_ERR_CORRUPT_DATA with "func: path: <fmt>": how every fault of a file reads. */
tdm_status tdm_st_corrupt(const char *func, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The metadata value of key, or NULL. */
const char *tdm_st_metadata(const tdm_st_file *f, const char *key);

/* The tensor of that name, or NULL. */
const tdm_st_tensor *tdm_st_find(const tdm_st_file *f, const char *name);

/* Bytes per element of a dtype name, 0 if unknown. */
size_t tdm_st_dtype_size(const char *dtype);

/* A float32 tensor to write. */
typedef struct tdm_st_out {
    const char *name;
    tdm_shape shape;
    const float *values;
} tdm_st_out;

/* Writes the header (tensors in the order given, each F32) and the data to f.
 * Names, keys and values are escaped as JSON needs. With crc_key, the metadata also
 * holds crc_key: the CRC-32 of the data section (zlib's, 8 lowercase hex digits).
 * Returns 0, or -1 when out of host memory or when f fails (errno set). */
int tdm_st_write(FILE *f, const tdm_st_entry *metadata, size_t metadata_count, const char *crc_key,
                 const tdm_st_out *tensors, size_t tensor_count);

#endif
