/* tdm_host.h on Win32. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/tdm_host.h"
#include "win32_text.h"

int tdm_host_cores(void)
{
    DWORD cores = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return cores > 0 ? (int)cores : 1;
}

uint64_t tdm_host_memory_bytes(void)
{
    MEMORYSTATUSEX m;
    m.dwLength = sizeof m;
    return GlobalMemoryStatusEx(&m) ? (uint64_t)m.ullTotalPhys : 0;
}

int tdm_host_is_terminal(FILE *stream)
{
    return _isatty(_fileno(stream)) != 0;
}

int tdm_host_terminal_columns(FILE *stream)
{
    CONSOLE_SCREEN_BUFFER_INFO info;
    HANDLE h = (HANDLE)_get_osfhandle(_fileno(stream));
    if (h == INVALID_HANDLE_VALUE || !GetConsoleScreenBufferInfo(h, &info))
        return 0;
    return info.srWindow.Right - info.srWindow.Left + 1;
}

int tdm_host_program_path(char *path, size_t size)
{
    wchar_t wide[TDM_WIN32_PATH_MAX];
    DWORD n = GetModuleFileNameW(NULL, wide, TDM_WIN32_PATH_MAX);
    if (n == 0 || n >= TDM_WIN32_PATH_MAX || tdm_win32_utf8(wide, path, size) != 0) {
        path[0] = '\0';
        return 0;
    }
    return 1;
}

const char *tdm_host_program_name(void)
{
    static char name[MAX_PATH];
    if (!name[0]) {
        char path[MAX_PATH * 3];
        const char *base = "tandem";
        if (tdm_host_program_path(path, sizeof path)) {
            char *slash = strrchr(path, '\\'), *dot;
            base = slash ? slash + 1 : path;
            if ((dot = strrchr(base, '.')) != NULL && _stricmp(dot, ".exe") == 0)
                *dot = '\0'; /* "tandem", as on POSIX */
        }
        snprintf(name, sizeof name, "%s", base);
    }
    return name;
}

void tdm_host_name(char *name, size_t size)
{
    wchar_t wide[MAX_COMPUTERNAME_LENGTH + 1];
    DWORD n = MAX_COMPUTERNAME_LENGTH + 1;
    if (!GetComputerNameW(wide, &n) || tdm_win32_utf8(wide, name, size) != 0)
        snprintf(name, size, "?");
}

long tdm_host_process_id(void)
{
    return (long)GetCurrentProcessId();
}

uint64_t tdm_host_now_ns(void)
{
    static LARGE_INTEGER frequency; /* fixed at boot; reading it twice races harmlessly */
    LARGE_INTEGER count;
    if (frequency.QuadPart == 0)
        QueryPerformanceFrequency(&frequency);
    QueryPerformanceCounter(&count);
    uint64_t c = (uint64_t)count.QuadPart, f = (uint64_t)frequency.QuadPart;
    return c / f * 1000000000u + c % f * 1000000000u / f; /* no overflow for centuries */
}

double tdm_host_wall_seconds(void)
{
    FILETIME ft; /* 100 ns ticks since 1601-01-01 */
    GetSystemTimeAsFileTime(&ft);
    uint64_t ticks = (uint64_t)ft.dwHighDateTime << 32 | ft.dwLowDateTime;
    return (double)(ticks - 116444736000000000u) * 1e-7; /* from 1970-01-01 */
}

int tdm_host_utc(time_t t, struct tm *out)
{
    return gmtime_s(out, &t) == 0;
}

void *tdm_host_aligned_alloc(size_t align, size_t size)
{
    return _aligned_malloc(size, align);
}

void tdm_host_aligned_free(void *p)
{
    _aligned_free(p);
}

void tdm_host_binary_stdio(void)
{
    fflush(stdout);
    fflush(stderr);
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
}

void tdm_host_file_size_errors(void)
{
    /* no SIGXFSZ: a full disk or quota fails the write itself */
}

int tdm_host_setenv(const char *name, const char *value, int overwrite)
{
    if (!overwrite && getenv(name))
        return 0;
    errno_t err = _putenv_s(name, value);
    errno = err;
    return err == 0 ? 0 : -1;
}

int tdm_host_unsetenv(const char *name)
{
    errno_t err = _putenv_s(name, ""); /* an empty value removes it on Windows */
    errno = err;
    return err == 0 ? 0 : -1;
}
