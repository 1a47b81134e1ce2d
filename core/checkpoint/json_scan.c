/* A strict JSON scanner for safetensors headers: RFC 8259 strings and integers. */
#include <stdlib.h>
#include <string.h>

#include "checkpoint/json_scan.h"

void tdm_json_init(tdm_json *j, const char *text, size_t size)
{
    *j = (tdm_json){.text = text, .p = text, .end = text + size};
}

int tdm_json_fail(tdm_json *j, const char *what)
{
    if (!j->error) {
        j->error = what;
        j->error_at = (size_t)(j->p - j->text);
    }
    return -1;
}

static void skip_space(tdm_json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

int tdm_json_take(tdm_json *j, char c)
{
    if (j->error)
        return 0;
    skip_space(j);
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return 1;
    }
    return 0;
}

int tdm_json_expect(tdm_json *j, char c)
{
    static const char *const expected[] = {"expected '{'", "expected '}'", "expected '['",
                                           "expected ']'", "expected ':'", "expected ','"};
    static const char chars[] = "{}[]:,";
    if (tdm_json_take(j, c))
        return 0;
    const char *at = strchr(chars, c);
    return tdm_json_fail(j, at ? expected[at - chars] : "unexpected character");
}

static int hex4(tdm_json *j, unsigned *out)
{
    *out = 0;
    for (int i = 0; i < 4; i++, j->p++) {
        char c = j->p < j->end ? *j->p : 0;
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16;
        if (d == 16)
            return tdm_json_fail(j, "expected four hex digits after \\u");
        *out = *out * 16 + d;
    }
    return 0;
}

static char *put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xc0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xe0 | cp >> 12);
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (char)(0xf0 | cp >> 18);
        *o++ = (char)(0x80 | (cp >> 12 & 0x3f));
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    }
    return o;
}

/* After "\u": one code point, a surrogate pair taking two escapes. */
static int unicode_escape(tdm_json *j, unsigned *cp)
{
    if (hex4(j, cp))
        return -1;
    if (*cp >= 0xdc00 && *cp < 0xe000)
        return tdm_json_fail(j, "a lone low surrogate");
    if (*cp >= 0xd800 && *cp < 0xdc00) {
        unsigned low;
        if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
            return tdm_json_fail(j, "a high surrogate without its low half");
        j->p += 2;
        if (hex4(j, &low))
            return -1;
        if (low < 0xdc00 || low >= 0xe000)
            return tdm_json_fail(j, "a high surrogate without its low half");
        *cp = 0x10000 + ((*cp - 0xd800) << 10) + (low - 0xdc00);
    }
    return *cp ? 0 : tdm_json_fail(j, "a NUL character in a string");
}

static int escape(tdm_json *j, char **o)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    char c = j->p < j->end ? *j->p++ : 0;
    const char *at = c ? strchr(from, c) : NULL;
    if (at) {
        *(*o)++ = to[at - from];
        return 0;
    }
    if (c != 'u')
        return tdm_json_fail(j, "an unknown escape in a string");
    unsigned cp;
    if (unicode_escape(j, &cp))
        return -1;
    *o = put_utf8(*o, cp);
    return 0;
}

int tdm_json_string(tdm_json *j, char **out)
{
    *out = NULL;
    if (!tdm_json_take(j, '"'))
        return tdm_json_fail(j, "expected a string");
    const char *close = j->p;
    while (close < j->end && *close != '"' && !(*close == '\\' && close + 1 == j->end))
        close += *close == '\\' ? 2 : 1;
    if (close >= j->end || *close != '"')
        return tdm_json_fail(j, "an unterminated string");
    /* Escapes never grow: "\uXXXX" is 6 bytes for at most 3, a pair 12 for 4. */
    char *s = malloc((size_t)(close - j->p) + 1), *o = s;
    if (!s) {
        j->out_of_memory = 1;
        return tdm_json_fail(j, "out of host memory");
    }
    while (j->p < close) {
        unsigned char c = (unsigned char)*j->p;
        if (c < 0x20) {
            free(s);
            return tdm_json_fail(j, "a control character in a string");
        }
        j->p++;
        if (c != '\\')
            *o++ = (char)c;
        else if (escape(j, &o)) {
            free(s);
            return -1;
        }
    }
    j->p++;
    *o = '\0';
    *out = s;
    return 0;
}

int tdm_json_u64(tdm_json *j, uint64_t *out)
{
    if (j->error)
        return -1;
    skip_space(j);
    const char *start = j->p;
    uint64_t v = 0;
    for (; j->p < j->end && *j->p >= '0' && *j->p <= '9'; j->p++) {
        unsigned d = (unsigned)(*j->p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return tdm_json_fail(j, "an integer past 2^64 - 1");
        v = v * 10 + d;
    }
    if (j->p == start)
        return tdm_json_fail(j, "expected a non-negative integer");
    if (j->p - start > 1 && *start == '0')
        return tdm_json_fail(j, "an integer with a leading zero");
    if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
        return tdm_json_fail(j, "expected an integer, not a fraction");
    *out = v;
    return 0;
}

int tdm_json_finish(tdm_json *j)
{
    if (j->error)
        return -1;
    skip_space(j);
    return j->p == j->end ? 0 : tdm_json_fail(j, "text after the header's closing '}'");
}
