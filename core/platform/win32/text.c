/* tdm_text.h on Win32: the C runtime's _locale_t calls and a per-thread locale. */
#include <ctype.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/tdm_text.h"

const char *tdm_strerror(int err, char *buf, size_t size)
{
    if (strerror_s(buf, size, err) != 0)
        snprintf(buf, size, "error %d", err);
    return buf;
}

int tdm_strcasecmp(const char *a, const char *b)
{
    return _stricmp(a, b);
}

tdm_c_locale *tdm_c_locale_new(void)
{
    return (tdm_c_locale *)_create_locale(LC_ALL, "C");
}

void tdm_c_locale_free(tdm_c_locale *c)
{
    _free_locale((_locale_t)c);
}

/* Whether text starts with word, in any case: its length, else 0. */
static size_t starts_with(const char *text, const char *word)
{
    size_t n = strlen(word);
    return _strnicmp(text, word, n) == 0 ? n : 0;
}

/* msvcrt's strtod reads no "inf", "infinity" or "nan" (C99's, which glibc's reads):
 * those are read here, so that both builds read the same numbers. */
double tdm_c_strtod(tdm_c_locale *c, const char *text, char **end)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    int negative = *p == '-';
    p += *p == '-' || *p == '+';
    size_t n;
    if ((n = starts_with(p, "infinity")) || (n = starts_with(p, "inf"))) {
        if (end)
            *end = (char *)(p + n);
        return negative ? -INFINITY : INFINITY;
    }
    if ((n = starts_with(p, "nan"))) {
        p += n;
        if (*p == '(') { /* nan(n-char-sequence) */
            const char *q = p + 1;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            if (*q == ')')
                p = q + 1;
        }
        if (end)
            *end = (char *)p;
        return negative ? -NAN : NAN;
    }
    return _strtod_l(text, end, (_locale_t)c);
}

/* Win32 has no uselocale: the thread takes a locale of its own and sets its numbers
 * to "C" until leave restores the name they had. */
void tdm_c_locale_enter(tdm_c_locale *c, tdm_c_locale_scope *scope)
{
    (void)c;
    scope->mode = _configthreadlocale(_ENABLE_PER_THREAD_LOCALE);
    const char *now = setlocale(LC_NUMERIC, NULL);
    scope->previous = now ? _strdup(now) : NULL;
    setlocale(LC_NUMERIC, "C");
}

void tdm_c_locale_leave(tdm_c_locale_scope *scope)
{
    if (scope->previous) {
        setlocale(LC_NUMERIC, scope->previous);
        free(scope->previous);
    }
    _configthreadlocale(scope->mode);
}
