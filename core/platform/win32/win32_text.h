/* The Win32 files' own helpers: UTF-8 paths to the wide strings of the W calls and
 * back, and a system error's words (win32_text.c). */
#ifndef TDM_PLATFORM_WIN32_TEXT_H
#define TDM_PLATFORM_WIN32_TEXT_H

#include <stddef.h>
#include <wchar.h>

/* Long enough for the \\?\ paths NTFS allows. */
#define TDM_WIN32_PATH_MAX 32768

/* 0, or -1 with errno set (EILSEQ: not UTF-8, ENAMETOOLONG: past cap). */
int tdm_win32_wide(const char *utf8, wchar_t *out, size_t cap);
int tdm_win32_utf8(const wchar_t *wide, char *out, size_t cap);

/* The system's message for a GetLastError code, without its line end. */
void tdm_win32_error_text(unsigned long code, char *out, size_t cap);

/* errno for a GetLastError code; sets errno and returns -1 for the callers' brevity. */
int tdm_win32_fail(unsigned long code);

#endif
