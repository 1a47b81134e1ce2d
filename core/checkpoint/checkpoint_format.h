/* Internal: the byte layout of a checkpoint file (docs/CHECKPOINTS.md), shared by the
 * writer, the reader and the directory scan. Every integer is little-endian and
 * is stored and loaded byte by byte with the helpers below, never by copying a
 * struct, so the file is the same on every host.
 *
 *   header  (24 bytes, the same in every version)
 *     0  magic        8 bytes  89 'T' 'D' 'M' 'C' 'K' 'P' 'T'
 *     8  version      u32      1
 *    12  step         u64
 *    20  crc          u32      CRC-32 of bytes 0..19
 *   record  (one per tensor or u64 value)
 *     0  tag          4 bytes  'T' 'R' 'E' 'C'
 *     4  name length  u16      1..255
 *     6  kind         u8       1 f32, 2 i32, 3 u64, 4 i64
 *     7  rank         u8       0..4 (0 for a u64 value)
 *     8  name         name length bytes, no NUL
 *        dims         u64 x rank
 *        byte count   u64      element count x 4 (x 8 for i64 and a u64 value)
 *        data         byte count bytes: u32 bit patterns (f32, i32), u64 bit
 *                     patterns (i64) or one u64
 *        crc          u32      CRC-32 of the record from its tag to the end of its data
 *   footer  (32 bytes)
 *     0  tag          4 bytes  'T' 'E' 'N' 'D'
 *     4  records      u64      how many records precede it
 *    12  file size    u64      bytes in the whole file, this footer included
 *    20  end magic    8 bytes  'T' 'D' 'M' 'C' 'K' 'E' 'N' 'D'
 *    28  crc          u32      CRC-32 of bytes 0..27
 *
 * CRC-32 is zlib's crc32 (the ISO-HDLC / gzip polynomial). */
#ifndef TDM_TRAIN_CHECKPOINT_FORMAT_H
#define TDM_TRAIN_CHECKPOINT_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TDM_CKPT_VERSION 1u

#define TDM_CKPT_MAGIC "\x89TDMCKPT"
#define TDM_CKPT_END_MAGIC "TDMCKEND"
#define TDM_CKPT_RECORD_TAG "TREC"
#define TDM_CKPT_FOOTER_TAG "TEND"
#define TDM_CKPT_MAGIC_SIZE 8
#define TDM_CKPT_TAG_SIZE 4

#define TDM_CKPT_HEADER_SIZE 24
#define TDM_CKPT_HEADER_VERSION 8
#define TDM_CKPT_HEADER_STEP 12
#define TDM_CKPT_HEADER_CRC 20

/* The fixed part of a record, before its name. */
#define TDM_CKPT_RECORD_HEAD_SIZE 8
#define TDM_CKPT_RECORD_NAME_LEN 4
#define TDM_CKPT_RECORD_KIND 6
#define TDM_CKPT_RECORD_RANK 7
#define TDM_CKPT_CRC_SIZE 4

#define TDM_CKPT_FOOTER_SIZE 32
#define TDM_CKPT_FOOTER_RECORDS 4
#define TDM_CKPT_FOOTER_FILE_SIZE 12
#define TDM_CKPT_FOOTER_END_MAGIC 20
#define TDM_CKPT_FOOTER_CRC 28

#define TDM_CKPT_NAME_MAX 255
#define TDM_CKPT_RANK_MAX 4

/* Record kinds. */
enum { TDM_CKPT_KIND_F32 = 1, TDM_CKPT_KIND_I32 = 2, TDM_CKPT_KIND_U64 = 3, TDM_CKPT_KIND_I64 = 4 };

/* Bytes per element of a record kind. */
#define TDM_CKPT_KIND_BYTES(kind) ((kind) == TDM_CKPT_KIND_U64 || (kind) == TDM_CKPT_KIND_I64 ? 8u : 4u)

/* Final file names: "ckpt-" STEP ".tdm", STEP in 20 decimal digits (every uint64_t),
 * so that names sort like steps. Temporary files: "." final name ".tmp-" XXXXXX. */
#define TDM_CKPT_PREFIX "ckpt-"
#define TDM_CKPT_SUFFIX ".tdm"
#define TDM_CKPT_STEP_DIGITS 20
#define TDM_CKPT_FINAL_NAME_LEN (5 + TDM_CKPT_STEP_DIGITS + 4)
#define TDM_CKPT_TEMP_PREFIX ".ckpt-"
#define TDM_CKPT_TEMP_MARK ".tdm.tmp-"
/* The run's lock on the directory (checkpoint_files.h). */
#define TDM_CKPT_LOCK_NAME ".tandem-lock"

static inline void tdm_ckpt_store_u16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static inline void tdm_ckpt_store_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void tdm_ckpt_store_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint16_t tdm_ckpt_load_u16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t tdm_ckpt_load_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline uint64_t tdm_ckpt_load_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* zlib's crc32 over any length (its length argument is a uInt). */
uint32_t tdm_ckpt_crc(uint32_t crc, const unsigned char *p, size_t n);

/* The 24 header bytes of a checkpoint of `step`. */
void tdm_ckpt_encode_header(unsigned char out[TDM_CKPT_HEADER_SIZE], uint64_t step);

/* The 32 footer bytes. */
void tdm_ckpt_encode_footer(unsigned char out[TDM_CKPT_FOOTER_SIZE], uint64_t records,
                            uint64_t file_size);

/* What a header says, checked in this order: the magic, the length, the CRC (every
 * format version keeps this 24-byte header, its CRC covering the version: a version
 * whose bits were flipped fails it and is damage), then the version. */
typedef enum tdm_ckpt_header_check {
    TDM_CKPT_HEADER_OK,
    TDM_CKPT_HEADER_FOREIGN,   /* no magic: not a checkpoint */
    TDM_CKPT_HEADER_TRUNCATED, /* the file ends inside the header */
    TDM_CKPT_HEADER_NEWER,     /* a version above TDM_CKPT_VERSION */
    TDM_CKPT_HEADER_DAMAGED    /* version 0 or a CRC mismatch */
} tdm_ckpt_header_check;

/* Checks the first `size` bytes of a file (all of it when shorter than a header);
 * sets *version when it was read and *step when the header is valid. */
tdm_ckpt_header_check tdm_ckpt_check_header(const unsigned char *p, size_t size,
                                            uint32_t *version, uint64_t *step);

/* Footer checks: tag, end magic and CRC (0 when valid, with *records and *file_size
 * set; -1 otherwise). */
int tdm_ckpt_check_footer(const unsigned char p[TDM_CKPT_FOOTER_SIZE], uint64_t *records,
                          uint64_t *file_size);

/* "f32", "i32" or "u64" ("kind N" for another byte: a damaged record). */
const char *tdm_ckpt_kind_name(unsigned kind);

/* A step parsed from a final file name, 1 when `name` is one ("ckpt-" 20 digits
 * ".tdm"), else 0. */
int tdm_ckpt_parse_final_name(const char *name, uint64_t *step);

/* Whether `name` is a temporary file of a writer (".ckpt-" ... ".tdm.tmp-" ...). */
int tdm_ckpt_is_temp_name(const char *name);

/* Formats "[2, 3]" ("[]" for a scalar) into buf. */
#define TDM_CKPT_DIMS_TEXT 112
const char *tdm_ckpt_format_dims(char buf[TDM_CKPT_DIMS_TEXT], unsigned rank,
                                 const uint64_t *dims);

#endif
