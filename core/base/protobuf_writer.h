/* Internal: writing Protocol Buffers' wire format, the encoding of ONNX models and of
 * TensorBoard's event records. Only what a writer needs: varints, fixed-width numbers,
 * length-delimited fields and nested messages, into a buffer that grows. A failed
 * allocation is remembered and reported once, by tdm_pb_finish, so that a message is
 * written without a check after every field. */
#ifndef TDM_CORE_PROTOBUF_WRITER_H
#define TDM_CORE_PROTOBUF_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/status.h"

typedef struct tdm_pb {
    uint8_t *data;
    size_t size, capacity;
    int out_of_memory;
} tdm_pb;

/* Starts an empty message; tdm_pb_free releases it. */
void tdm_pb_init(tdm_pb *pb);
void tdm_pb_free(tdm_pb *pb);

/* A field of each wire type: varint (ints, enums, bools), 32 and 64 bits (float,
 * double, fixed), and length-delimited (strings, bytes, packed arrays). */
void tdm_pb_varint(tdm_pb *pb, uint32_t field, uint64_t value);
void tdm_pb_fixed32(tdm_pb *pb, uint32_t field, uint32_t value);
void tdm_pb_fixed64(tdm_pb *pb, uint32_t field, uint64_t value);
void tdm_pb_float(tdm_pb *pb, uint32_t field, float value);
void tdm_pb_double(tdm_pb *pb, uint32_t field, double value);
void tdm_pb_bytes(tdm_pb *pb, uint32_t field, const void *data, size_t size);
void tdm_pb_string(tdm_pb *pb, uint32_t field, const char *text);

/* A nested message: tdm_pb_begin returns a mark for tdm_pb_end, which writes the
 * message's length before it. Nests to any depth. */
size_t tdm_pb_begin(tdm_pb *pb, uint32_t field);
void tdm_pb_end(tdm_pb *pb, size_t mark);

/* Raw bytes with no tag (a record's framing around a message). */
void tdm_pb_raw(tdm_pb *pb, const void *data, size_t size);

/* TDM_OK, or TDM_ERR_OUT_OF_MEMORY naming what was being written. */
tdm_status tdm_pb_finish(const tdm_pb *pb, const char *what);

/* CRC-32C (Castagnoli) of data, continuing from crc (0 to start): TFRecord's check. */
uint32_t tdm_crc32c(uint32_t crc, const void *data, size_t size);

#endif
