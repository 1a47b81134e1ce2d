/* Protocol Buffers' wire format, written (protobuf_writer.h). */
#include "protobuf_writer.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_BYTES = 2, WIRE_FIXED32 = 5 };

/* A nested message's length is written in this many bytes, padded with continuation
 * bits where it needs fewer (a valid varint), so that a message's length is known
 * only when it ends without moving what follows its start. */
enum { LENGTH_BYTES = 5 };

void tdm_pb_init(tdm_pb *pb)
{
    memset(pb, 0, sizeof *pb);
}

void tdm_pb_free(tdm_pb *pb)
{
    free(pb->data);
    tdm_pb_init(pb);
}

static uint8_t *reserve(tdm_pb *pb, size_t more)
{
    if (pb->out_of_memory) {
        return NULL;
    }
    if (more > pb->capacity - pb->size) {
        size_t capacity = pb->capacity ? pb->capacity : 256;
        while (capacity - pb->size < more) {
            if (capacity > SIZE_MAX / 2) {
                pb->out_of_memory = 1;
                return NULL;
            }
            capacity *= 2;
        }
        uint8_t *grown = realloc(pb->data, capacity);
        if (!grown) {
            pb->out_of_memory = 1;
            return NULL;
        }
        pb->data = grown;
        pb->capacity = capacity;
    }
    uint8_t *at = pb->data + pb->size;
    pb->size += more;
    return at;
}

void tdm_pb_raw(tdm_pb *pb, const void *data, size_t size)
{
    uint8_t *at = reserve(pb, size);
    if (at && size) {
        memcpy(at, data, size);
    }
}

static void put_varint(tdm_pb *pb, uint64_t value)
{
    uint8_t bytes[10];
    size_t n = 0;
    do {
        bytes[n++] = (uint8_t)((value & 0x7f) | (value > 0x7f ? 0x80 : 0));
        value >>= 7;
    } while (value);
    tdm_pb_raw(pb, bytes, n);
}

static void put_tag(tdm_pb *pb, uint32_t field, unsigned wire)
{
    put_varint(pb, ((uint64_t)field << 3) | wire);
}

static void put_little_endian(tdm_pb *pb, uint64_t value, size_t bytes)
{
    uint8_t out[8];
    for (size_t i = 0; i < bytes; i++) {
        out[i] = (uint8_t)(value >> (8 * i));
    }
    tdm_pb_raw(pb, out, bytes);
}

void tdm_pb_varint(tdm_pb *pb, uint32_t field, uint64_t value)
{
    put_tag(pb, field, WIRE_VARINT);
    put_varint(pb, value);
}

void tdm_pb_fixed32(tdm_pb *pb, uint32_t field, uint32_t value)
{
    put_tag(pb, field, WIRE_FIXED32);
    put_little_endian(pb, value, 4);
}

void tdm_pb_fixed64(tdm_pb *pb, uint32_t field, uint64_t value)
{
    put_tag(pb, field, WIRE_FIXED64);
    put_little_endian(pb, value, 8);
}

void tdm_pb_float(tdm_pb *pb, uint32_t field, float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    tdm_pb_fixed32(pb, field, bits);
}

void tdm_pb_double(tdm_pb *pb, uint32_t field, double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    tdm_pb_fixed64(pb, field, bits);
}

void tdm_pb_bytes(tdm_pb *pb, uint32_t field, const void *data, size_t size)
{
    put_tag(pb, field, WIRE_BYTES);
    put_varint(pb, size);
    tdm_pb_raw(pb, data, size);
}

void tdm_pb_string(tdm_pb *pb, uint32_t field, const char *text)
{
    tdm_pb_bytes(pb, field, text, strlen(text));
}

size_t tdm_pb_begin(tdm_pb *pb, uint32_t field)
{
    put_tag(pb, field, WIRE_BYTES);
    reserve(pb, LENGTH_BYTES);
    return pb->size;
}

void tdm_pb_end(tdm_pb *pb, size_t mark)
{
    if (pb->out_of_memory) {
        return;
    }
    uint64_t length = pb->size - mark;
    if (length >> (7 * LENGTH_BYTES)) {
        pb->out_of_memory = 1; /* over 32 GiB: more than a length of 5 bytes holds */
        return;
    }
    uint8_t *at = pb->data + mark - LENGTH_BYTES;
    for (size_t i = 0; i < LENGTH_BYTES; i++) {
        at[i] = (uint8_t)((length & 0x7f) | (i + 1 < LENGTH_BYTES ? 0x80 : 0));
        length >>= 7;
    }
}

tdm_status tdm_pb_finish(const tdm_pb *pb, const char *what)
{
    if (pb->out_of_memory) {
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of memory after %zu bytes", what,
                        pb->size);
    }
    return TDM_OK;
}

uint32_t tdm_crc32c(uint32_t crc, const void *data, size_t size)
{
    const uint8_t *bytes = data;
    crc = ~crc;
    for (size_t i = 0; i < size; i++) {
        crc ^= bytes[i];
        for (int bit = 0; bit < 8; bit++) {
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}
