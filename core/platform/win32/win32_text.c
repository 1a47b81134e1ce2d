/* win32_text.h: UTF-8 and wide strings, and the system's errors in errno's terms. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "win32_text.h"

int tdm_win32_wide(const char *utf8, wchar_t *out, size_t cap)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, out,
                                cap > INT_MAX ? INT_MAX : (int)cap);
    if (n > 0)
        return 0;
    errno = GetLastError() == ERROR_INSUFFICIENT_BUFFER ? ENAMETOOLONG : EILSEQ;
    return -1;
}

int tdm_win32_utf8(const wchar_t *wide, char *out, size_t cap)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, out, cap > INT_MAX ? INT_MAX : (int)cap, NULL,
                                NULL);
    if (n > 0)
        return 0;
    errno = GetLastError() == ERROR_INSUFFICIENT_BUFFER ? ENAMETOOLONG : EILSEQ;
    return -1;
}

void tdm_win32_error_text(unsigned long code, char *out, size_t cap)
{
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code,
                             0, out, cap > 65535 ? 65535 : (DWORD)cap, NULL);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == '.'))
        out[--n] = '\0';
    if (n == 0)
        snprintf(out, cap, "Windows error %lu", code);
}

int tdm_win32_fail(unsigned long code)
{
    switch (code) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE: errno = ENOENT; break;
    case ERROR_ACCESS_DENIED:
    case ERROR_WRITE_PROTECT: errno = EACCES; break;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS: errno = EEXIST; break;
    case ERROR_LOCK_VIOLATION:
    case ERROR_SHARING_VIOLATION: errno = EWOULDBLOCK; break;
    case ERROR_FILENAME_EXCED_RANGE: errno = ENAMETOOLONG; break;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL: errno = ENOSPC; break;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY: errno = ENOMEM; break;
    case ERROR_DIRECTORY: errno = ENOTDIR; break;
    case ERROR_DIR_NOT_EMPTY: errno = ENOTEMPTY; break;
    default: errno = EIO;
    }
    return -1;
}
