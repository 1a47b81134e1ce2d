/* tdm_text.h on POSIX, with glibc's strerror_r (tandem builds with _GNU_SOURCE). */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "platform/tdm_text.h"

const char *tdm_strerror(int err, char *buf, size_t size)
{
    return strerror_r(err, buf, size);
}

int tdm_strcasecmp(const char *a, const char *b)
{
    return strcasecmp(a, b);
}

tdm_c_locale *tdm_c_locale_new(void)
{
    return (tdm_c_locale *)newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

void tdm_c_locale_free(tdm_c_locale *c)
{
    freelocale((locale_t)c);
}

double tdm_c_strtod(tdm_c_locale *c, const char *text, char **end)
{
    return strtod_l(text, end, (locale_t)c);
}

void tdm_c_locale_enter(tdm_c_locale *c, tdm_c_locale_scope *scope)
{
    scope->previous = (void *)uselocale((locale_t)c);
}

void tdm_c_locale_leave(tdm_c_locale_scope *scope)
{
    uselocale((locale_t)scope->previous);
}
