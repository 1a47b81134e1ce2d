/* Protocol Buffers' wire format as the writer lays it out, against bytes worked out
 * from the format's documentation: varints of every length, fixed-width numbers,
 * strings, nested messages with their padded lengths; and CRC-32C's check value. */
#include "base/protobuf_writer.h"
#include "harness.h"

static int same_bytes(const tdm_pb *pb, const uint8_t *want, size_t size)
{
    if (pb->size != size || memcmp(pb->data, want, size) != 0) {
        fprintf(stderr, "protobuf: %zu bytes written:", pb->size);
        for (size_t i = 0; i < pb->size; i++)
            fprintf(stderr, " %02x", pb->data[i]);
        fprintf(stderr, "\n");
        return 0;
    }
    return 1;
}

static void check_fields(void)
{
    tdm_pb pb;
    tdm_pb_init(&pb);
    tdm_pb_varint(&pb, 1, 150);            /* the documentation's first example */
    tdm_pb_string(&pb, 2, "testing");
    tdm_pb_varint(&pb, 3, UINT64_MAX);     /* ten bytes */
    tdm_pb_float(&pb, 4, 1.0f);
    tdm_pb_double(&pb, 17, -2.0);          /* a field number of two bytes */
    size_t outer = tdm_pb_begin(&pb, 5);
    size_t inner = tdm_pb_begin(&pb, 6);
    tdm_pb_varint(&pb, 1, 0);
    tdm_pb_end(&pb, inner);
    tdm_pb_end(&pb, outer);
    static const uint8_t want[] = {
        0x08, 0x96, 0x01,
        0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g',
        0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        0x25, 0x00, 0x00, 0x80, 0x3f,
        0x89, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0,
        0x2a, 0x88, 0x80, 0x80, 0x80, 0x00,              /* 8 bytes: the inner message */
        0x32, 0x82, 0x80, 0x80, 0x80, 0x00, 0x08, 0x00,  /* 2 bytes */
    };
    CHECK(same_bytes(&pb, want, sizeof want));
    CHECK(tdm_pb_finish(&pb, "test message") == TDM_OK);
    tdm_pb_free(&pb);
    CHECK(pb.data == NULL && pb.size == 0);
}

static void check_crc32c(void)
{
    CHECK(tdm_crc32c(0, "123456789", 9) == 0xE3069283u);
    /* In two pieces, the same. */
    CHECK(tdm_crc32c(tdm_crc32c(0, "1234", 4), "56789", 5) == 0xE3069283u);
    CHECK(tdm_crc32c(0, "", 0) == 0);
}

void test_case_protobuf_writer(const test_run *run)
{
    (void)run;
    check_fields();
    check_crc32c();
}
