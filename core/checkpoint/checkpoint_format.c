/* The parts of the checkpoint layout that reader, writer and directory scan share:
 * header and footer, CRC-32, kind names and file names. */
#include <stdio.h>
#include <zlib.h>

#include "checkpoint/checkpoint_format.h"

uint32_t tdm_ckpt_crc(uint32_t crc, const unsigned char *p, size_t n)
{
    while (n) {
        uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = (uint32_t)crc32(crc, p, chunk);
        p += chunk;
        n -= chunk;
    }
    return crc;
}

void tdm_ckpt_encode_header(unsigned char out[TDM_CKPT_HEADER_SIZE], uint64_t step)
{
    memcpy(out, TDM_CKPT_MAGIC, TDM_CKPT_MAGIC_SIZE);
    tdm_ckpt_store_u32(out + TDM_CKPT_HEADER_VERSION, TDM_CKPT_VERSION);
    tdm_ckpt_store_u64(out + TDM_CKPT_HEADER_STEP, step);
    tdm_ckpt_store_u32(out + TDM_CKPT_HEADER_CRC, tdm_ckpt_crc(0, out, TDM_CKPT_HEADER_CRC));
}

void tdm_ckpt_encode_footer(unsigned char out[TDM_CKPT_FOOTER_SIZE], uint64_t records,
                            uint64_t file_size)
{
    memcpy(out, TDM_CKPT_FOOTER_TAG, TDM_CKPT_TAG_SIZE);
    tdm_ckpt_store_u64(out + TDM_CKPT_FOOTER_RECORDS, records);
    tdm_ckpt_store_u64(out + TDM_CKPT_FOOTER_FILE_SIZE, file_size);
    memcpy(out + TDM_CKPT_FOOTER_END_MAGIC, TDM_CKPT_END_MAGIC, TDM_CKPT_MAGIC_SIZE);
    tdm_ckpt_store_u32(out + TDM_CKPT_FOOTER_CRC, tdm_ckpt_crc(0, out, TDM_CKPT_FOOTER_CRC));
}

tdm_ckpt_header_check tdm_ckpt_check_header(const unsigned char *p, size_t size,
                                            uint32_t *version, uint64_t *step)
{
    size_t magic = size < TDM_CKPT_MAGIC_SIZE ? size : TDM_CKPT_MAGIC_SIZE;
    if (memcmp(p, TDM_CKPT_MAGIC, magic) != 0)
        return TDM_CKPT_HEADER_FOREIGN;
    if (size < TDM_CKPT_HEADER_SIZE)
        return TDM_CKPT_HEADER_TRUNCATED;
    *version = tdm_ckpt_load_u32(p + TDM_CKPT_HEADER_VERSION);
    /* every version keeps this header's layout, so its CRC judges the version too: a
     * flipped bit there is damage, not a file from the future */
    if (*version == 0 ||
        tdm_ckpt_load_u32(p + TDM_CKPT_HEADER_CRC) != tdm_ckpt_crc(0, p, TDM_CKPT_HEADER_CRC))
        return TDM_CKPT_HEADER_DAMAGED;
    if (*version > TDM_CKPT_VERSION)
        return TDM_CKPT_HEADER_NEWER;
    *step = tdm_ckpt_load_u64(p + TDM_CKPT_HEADER_STEP);
    return TDM_CKPT_HEADER_OK;
}

int tdm_ckpt_check_footer(const unsigned char p[TDM_CKPT_FOOTER_SIZE], uint64_t *records,
                          uint64_t *file_size)
{
    if (memcmp(p, TDM_CKPT_FOOTER_TAG, TDM_CKPT_TAG_SIZE) != 0 ||
        memcmp(p + TDM_CKPT_FOOTER_END_MAGIC, TDM_CKPT_END_MAGIC, TDM_CKPT_MAGIC_SIZE) != 0 ||
        tdm_ckpt_load_u32(p + TDM_CKPT_FOOTER_CRC) != tdm_ckpt_crc(0, p, TDM_CKPT_FOOTER_CRC))
        return -1;
    *records = tdm_ckpt_load_u64(p + TDM_CKPT_FOOTER_RECORDS);
    *file_size = tdm_ckpt_load_u64(p + TDM_CKPT_FOOTER_FILE_SIZE);
    return 0;
}

const char *tdm_ckpt_kind_name(unsigned kind)
{
    switch (kind) {
    case TDM_CKPT_KIND_F32: return "f32";
    case TDM_CKPT_KIND_I32: return "i32";
    case TDM_CKPT_KIND_U64: return "u64";
    case TDM_CKPT_KIND_I64: return "i64";
    }
    return "an unknown kind";
}

int tdm_ckpt_parse_final_name(const char *name, uint64_t *step)
{
    size_t prefix = sizeof TDM_CKPT_PREFIX - 1;
    if (strlen(name) != TDM_CKPT_FINAL_NAME_LEN || memcmp(name, TDM_CKPT_PREFIX, prefix) != 0 ||
        strcmp(name + prefix + TDM_CKPT_STEP_DIGITS, TDM_CKPT_SUFFIX) != 0)
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < TDM_CKPT_STEP_DIGITS; i++) {
        char c = name[prefix + i];
        if (c < '0' || c > '9')
            return 0;
        unsigned d = (unsigned)(c - '0');
        if (v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    *step = v;
    return 1;
}

int tdm_ckpt_is_temp_name(const char *name)
{
    return strncmp(name, TDM_CKPT_TEMP_PREFIX, sizeof TDM_CKPT_TEMP_PREFIX - 1) == 0 &&
           strstr(name, TDM_CKPT_TEMP_MARK) != NULL;
}

const char *tdm_ckpt_format_dims(char buf[TDM_CKPT_DIMS_TEXT], unsigned rank,
                                 const uint64_t *dims)
{
    /* 4 dims of at most 20 digits with separators fit: never truncated. */
    size_t len = 0;
    buf[len++] = '[';
    for (unsigned i = 0; i < rank && i < TDM_CKPT_RANK_MAX; i++)
        len += (size_t)snprintf(buf + len, TDM_CKPT_DIMS_TEXT - len, "%s%llu", i ? ", " : "",
                                (unsigned long long)dims[i]);
    snprintf(buf + len, TDM_CKPT_DIMS_TEXT - len, "]");
    return buf;
}
