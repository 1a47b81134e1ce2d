/* tdm_dynlib.h on Win32: LoadLibraryExW and GetProcAddress. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <stdio.h>
#include <string.h>

#include "platform/tdm_dynlib.h"
#include "win32_text.h"

tdm_dynlib *tdm_dynlib_open(const char *name, char *why, size_t why_size)
{
    wchar_t wide[TDM_WIN32_PATH_MAX];
    HMODULE h = NULL;
    if (tdm_win32_wide(tdm_dynlib_file(name), wide, TDM_WIN32_PATH_MAX) == 0)
        h = LoadLibraryExW(wide, NULL, 0);
    if (!h) {
        char reason[256];
        tdm_win32_error_text(GetLastError(), reason, sizeof reason);
        snprintf(why, why_size, "%s: %s", tdm_dynlib_file(name), reason);
    }
    return (tdm_dynlib *)h;
}

tdm_dynlib *tdm_dynlib_open_loaded(const char *name)
{
    wchar_t wide[TDM_WIN32_PATH_MAX];
    HMODULE h = NULL;
    if (tdm_win32_wide(tdm_dynlib_file(name), wide, TDM_WIN32_PATH_MAX) != 0)
        return NULL;
    /* Counted like dlopen's RTLD_NOLOAD: the caller's close drops it again. */
    if (!GetModuleHandleExW(0, wide, &h))
        return NULL;
    return (tdm_dynlib *)h;
}

tdm_dynlib *tdm_dynlib_open_private(const char *name, char *why, size_t why_size)
{
    snprintf(why, why_size, "%s: a Windows process holds one copy of a library",
             tdm_dynlib_file(name));
    return NULL;
}

void tdm_dynlib_path(tdm_dynlib *lib, const char *name, char *path, size_t size)
{
    wchar_t wide[TDM_WIN32_PATH_MAX];
    DWORD n = GetModuleFileNameW((HMODULE)lib, wide, TDM_WIN32_PATH_MAX);
    if (n == 0 || n >= TDM_WIN32_PATH_MAX || tdm_win32_utf8(wide, path, size) != 0)
        snprintf(path, size, "%s", tdm_dynlib_file(name));
}

void *tdm_dynlib_symbol(tdm_dynlib *lib, const char *symbol)
{
    FARPROC f = GetProcAddress((HMODULE)lib, symbol);
    void *p;
    memcpy(&p, &f, sizeof p); /* a function's address as the caller's void * */
    return p;
}

void tdm_dynlib_close(tdm_dynlib *lib)
{
    FreeLibrary((HMODULE)lib);
}

int tdm_dynlib_file_of(const void *address, char *path, size_t size)
{
    HMODULE h = NULL;
    wchar_t wide[TDM_WIN32_PATH_MAX];
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            (LPCWSTR)address, &h))
        return 0;
    DWORD n = GetModuleFileNameW(h, wide, TDM_WIN32_PATH_MAX);
    return n > 0 && n < TDM_WIN32_PATH_MAX && tdm_win32_utf8(wide, path, size) == 0;
}

/* Windows has no LeakSanitizer, so no driver needs pinning. */
size_t tdm_dynlib_loaded_count(void)
{
    return 0;
}

void tdm_dynlib_keep_loaded_since(size_t count)
{
    (void)count;
}
