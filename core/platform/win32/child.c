/* tdm_child.h on Win32: CreateProcessW with the child's standard output on an
 * anonymous pipe, PeekNamedPipe for the time limit, the exit code for how it ended
 * (an unhandled exception ends a process with the exception's code). */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/tdm_child.h"
#include "win32_text.h"

struct tdm_child {
    PROCESS_INFORMATION process;
    HANDLE out; /* the pipe's reading end */
};

/* Appends arg to the command line as the C runtime splits it back: quoted, a quote
 * escaped, and the backslashes before a quote doubled. */
static int append_arg(wchar_t *line, size_t cap, size_t *used, const char *arg)
{
    wchar_t wide[TDM_WIN32_PATH_MAX];
    if (tdm_win32_wide(arg, wide, TDM_WIN32_PATH_MAX) != 0)
        return -1;
    size_t n = *used;
#define PUT(c)                                                                                     \
    do {                                                                                           \
        if (n + 1 >= cap)                                                                          \
            return -1;                                                                             \
        line[n++] = (c);                                                                           \
    } while (0)
    if (n)
        PUT(L' ');
    PUT(L'"');
    for (const wchar_t *p = wide;; p++) {
        size_t slashes = 0;
        while (*p == L'\\') {
            slashes++;
            p++;
        }
        if (!*p || *p == L'"') /* before a quote, or the closing one: doubled */
            slashes *= 2;
        for (size_t i = 0; i < slashes; i++)
            PUT(L'\\');
        if (!*p)
            break;
        if (*p == L'"')
            PUT(L'\\');
        PUT(*p);
    }
    PUT(L'"');
#undef PUT
    line[n] = 0;
    *used = n;
    return 0;
}

int tdm_child_start(const char *path, const char *const *argv, const char *env_name,
                    const char *env_value, tdm_child **out, char *err, size_t err_size)
{
    *out = NULL;
    wchar_t *line = malloc(2 * TDM_WIN32_PATH_MAX * sizeof *line), *program;
    if (!line) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    program = line + TDM_WIN32_PATH_MAX;
    size_t used = 0;
    line[0] = 0;
    int ok = 1;
    for (size_t i = 0; ok && argv[i]; i++)
        ok = append_arg(line, TDM_WIN32_PATH_MAX, &used, argv[i]) == 0;
    if (!ok || tdm_win32_wide(path, program, TDM_WIN32_PATH_MAX) != 0) {
        snprintf(err, err_size, "%s: not a path, or its command line is too long", path);
        free(line);
        return -1;
    }
    SECURITY_ATTRIBUTES inherit = {sizeof inherit, NULL, TRUE};
    HANDLE read_end, write_end;
    if (!CreatePipe(&read_end, &write_end, &inherit, 0)) {
        tdm_win32_error_text(GetLastError(), err, err_size);
        free(line);
        return -1;
    }
    SetHandleInformation(read_end, HANDLE_FLAG_INHERIT, 0);
    /* the child inherits this process's environment, with the one variable set
     * meanwhile (the C runtime reads it at its start) */
    if (env_name)
        SetEnvironmentVariableA(env_name, env_value);
    STARTUPINFOW start;
    memset(&start, 0, sizeof start);
    start.cb = sizeof start;
    start.dwFlags = STARTF_USESTDHANDLES;
    start.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    start.hStdOutput = write_end;
    start.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    tdm_child *child = calloc(1, sizeof *child);
    BOOL started = child && CreateProcessW(program, line, NULL, NULL, TRUE, 0, NULL, NULL,
                                           &start, &child->process);
    DWORD code = GetLastError();
    free(line);
    if (env_name)
        SetEnvironmentVariableA(env_name, NULL);
    CloseHandle(write_end);
    if (!started) {
        free(child);
        CloseHandle(read_end);
        char why[256];
        tdm_win32_error_text(code, why, sizeof why);
        snprintf(err, err_size, "cannot start %s: %s", path, why);
        return -1;
    }
    CloseHandle(child->process.hThread);
    child->out = read_end;
    *out = child;
    return 0;
}

long tdm_child_read(tdm_child *child, void *buf, size_t size, int timeout_ms)
{
    ULONGLONG deadline = GetTickCount64() + (ULONGLONG)(timeout_ms < 0 ? 0 : timeout_ms);
    for (;;) {
        DWORD available = 0;
        if (!PeekNamedPipe(child->out, NULL, 0, NULL, &available, NULL))
            return GetLastError() == ERROR_BROKEN_PIPE ? 0 : -1;
        if (available) {
            DWORD got = 0;
            if (!ReadFile(child->out, buf, (DWORD)(size < available ? size : available), &got,
                          NULL))
                return GetLastError() == ERROR_BROKEN_PIPE ? 0 : -1;
            return (long)got;
        }
        if (timeout_ms >= 0 && GetTickCount64() >= deadline)
            return -2;
        Sleep(10);
    }
}

void tdm_child_kill(tdm_child *child)
{
    TerminateProcess(child->process.hProcess, 1);
}

static const char *exception_name(DWORD code)
{
    switch (code) {
    case 0xC0000005: return "access violation";
    case 0xC000001D: return "illegal instruction";
    case 0xC0000094: return "integer division by zero";
    case 0xC00000FD: return "stack overflow";
    case 0xC0000409: return "stack buffer overrun or fast fail";
    case 0xC0000374: return "heap corruption";
    case 0x80000003: return "breakpoint";
    default: return NULL;
    }
}

int tdm_child_wait(tdm_child *child, char *ended, size_t ended_size)
{
    WaitForSingleObject(child->process.hProcess, INFINITE);
    DWORD code = 1;
    GetExitCodeProcess(child->process.hProcess, &code);
    CloseHandle(child->process.hProcess);
    CloseHandle(child->out);
    free(child);
    ended[0] = '\0';
    if (code == 0)
        return 0;
    const char *name = exception_name(code);
    if (name)
        snprintf(ended, ended_size, "0x%08lX (exception: %s)", (unsigned long)code, name);
    else if (code >= 0xC0000000)
        snprintf(ended, ended_size, "0x%08lX (exception)", (unsigned long)code);
    else
        snprintf(ended, ended_size, "exit status %lu", (unsigned long)code);
    return 1;
}

/* An exception nothing handled: the process ends with its code at once, before
 * Windows' error reporting or Wine's debugger could start and wait for a user. */
static LONG WINAPI end_with_code(EXCEPTION_POINTERS *e)
{
    TerminateProcess(GetCurrentProcess(), e->ExceptionRecord->ExceptionCode);
    return EXCEPTION_EXECUTE_HANDLER;
}

void tdm_child_crash_quietly(void)
{
    SetErrorMode(GetErrorMode() | SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX);
    SetUnhandledExceptionFilter(end_with_code);
}

FILE *tdm_child_take_stdout(void)
{
    fflush(stdout);
    int records = _dup(_fileno(stdout));
    if (records < 0)
        return NULL;
    if (_dup2(_fileno(stderr), _fileno(stdout)) != 0) {
        _close(records);
        return NULL;
    }
    _setmode(records, _O_BINARY);
    FILE *stream = _fdopen(records, "wb");
    if (!stream)
        _close(records);
    return stream;
}
