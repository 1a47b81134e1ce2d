/* tdm_text.h on Win32: the C runtime's _locale_t calls and a per-thread locale. */
#include <locale.h>
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

double tdm_c_strtod(tdm_c_locale *c, const char *text, char **end)
{
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
