/* Checked option values: whole numbers that cannot wrap and finite reals, each in a
 * range that the message states. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"

int cli_fail(char *err, size_t err_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return -1;
}

int cli_parse_whole(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *err,
                    size_t err_size)
{
    uint64_t v = 0;
    int wraps = 0;
    const char *p = text;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        wraps |= v > (UINT64_MAX - d) / 10;
        v = v * 10 + d;
    }
    if (p == text || *p)
        return cli_fail(err, err_size, "'%.40s' is not a whole number from %llu to %llu", text,
                        (unsigned long long)min, (unsigned long long)max);
    if (wraps || v < min || v > max)
        return cli_fail(err, err_size,
                        "%.40s is out of range: expected a whole number from %llu to %llu", text,
                        (unsigned long long)min, (unsigned long long)max);
    *out = v;
    return 0;
}

int cli_parse_bytes(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *err,
                    size_t err_size)
{
    size_t digits = strspn(text, "0123456789");
    const char *units = "KMGkmg";
    const char *unit = digits && text[digits] ? strchr(units, text[digits]) : NULL;
    char number[32];
    if (!digits || digits >= sizeof number || (text[digits] && (!unit || text[digits + 1])))
        return cli_fail(err, err_size,
                        "'%.40s' is not a size: expected digits and optionally K, M or G, "
                        "from %llu to %llu bytes",
                        text, (unsigned long long)min, (unsigned long long)max);
    memcpy(number, text, digits);
    number[digits] = '\0';
    unsigned shift = unit ? 10u * (unsigned)((unit - units) % 3 + 1) : 0;
    uint64_t v;
    if (cli_parse_whole(number, 0, UINT64_MAX >> shift, &v, err, err_size) != 0 ||
        (v << shift) < min || (v << shift) > max)
        return cli_fail(err, err_size, "%.40s is out of range: expected %llu to %llu bytes", text,
                        (unsigned long long)min, (unsigned long long)max);
    *out = v << shift;
    return 0;
}

/* "a number x with 0 < x <= 1000" */
static void range_text(double lo, double hi, unsigned open, char *out, size_t size)
{
    snprintf(out, size, "a number x with %g %s x %s %g", lo,
             open & CLI_ABOVE_LO ? "<" : "<=", open & CLI_BELOW_HI ? "<" : "<=", hi);
}

static int in_range(double v, double lo, double hi, unsigned open)
{
    return (open & CLI_ABOVE_LO ? v > lo : v >= lo) && (open & CLI_BELOW_HI ? v < hi : v <= hi);
}

int cli_parse_real(const char *text, double lo, double hi, unsigned open, double *out, char *err,
                   size_t err_size)
{
    char range[96];
    range_text(lo, hi, open, range, sizeof range);
    char *end = (char *)text;
    double v = 0.0;
    if (*text && *text != ' ' && *text != '\t') /* strtod would skip leading spaces */
        v = strtod(text, &end);
    if (end == text || *end)
        return cli_fail(err, err_size, "'%.40s' is not a number: expected %s", text, range);
    if (!isfinite(v))
        return cli_fail(err, err_size, "'%.40s' is not a finite number: expected %s", text, range);
    if (!in_range(v, lo, hi, open))
        return cli_fail(err, err_size, "%.40s is out of range: expected %s", text, range);
    *out = v;
    return 0;
}

int cli_parse_float(const char *text, double lo, double hi, unsigned open, float *out, char *err,
                    size_t err_size)
{
    double v = 0.0;
    if (cli_parse_real(text, lo, hi, open, &v, err, err_size) != 0)
        return -1;
    float f = (float)v;
    char range[96];
    range_text(lo, hi, open, range, sizeof range);
    if (!isfinite(f) || !in_range((double)f, lo, hi, open))
        return cli_fail(err, err_size, "%.40s is out of range as a 32-bit float: expected %s", text,
                        range);
    *out = f;
    return 0;
}
