/* Internal: text calls that POSIX and Win32 spell differently (posix/text.c,
 * win32/text.c): a thread-safe error message, a case-blind comparison, and numbers
 * read and written in the "C" locale whatever the program's. */
#ifndef TDM_PLATFORM_TEXT_H
#define TDM_PLATFORM_TEXT_H

#include <stddef.h>

/* The message of errno value err, in buf or a constant string (strerror_r, strerror_s). */
const char *tdm_strerror(int err, char *buf, size_t size);

/* strcmp of a and b with ASCII letters' case ignored. */
int tdm_strcasecmp(const char *a, const char *b);

/* The "C" locale, in which a decimal point is '.': NULL when there is no memory. */
typedef struct tdm_c_locale tdm_c_locale;
tdm_c_locale *tdm_c_locale_new(void);
void tdm_c_locale_free(tdm_c_locale *c);

/* strtod in c. */
double tdm_c_strtod(tdm_c_locale *c, const char *text, char **end);

/* The calling thread formats numbers in c from tdm_c_locale_enter to
 * tdm_c_locale_leave, which gives it back the locale it had. */
typedef struct tdm_c_locale_scope {
    void *previous;
    int mode;
} tdm_c_locale_scope;
void tdm_c_locale_enter(tdm_c_locale *c, tdm_c_locale_scope *scope);
void tdm_c_locale_leave(tdm_c_locale_scope *scope);

#endif
