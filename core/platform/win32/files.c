/* tdm_files.h on Win32: the wide-character calls, with the C runtime's descriptors
 * over their handles. Locks sit on one byte far past any content, since a Win32 lock,
 * unlike flock, also bars other handles from reading the bytes it covers. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdlib.h>
#include <string.h>

#include "platform/tdm_files.h"
#include "win32_text.h"

#define LOCK_OFFSET_HIGH 0x7fffffffu

/* path as a wide string into w (TDM_WIN32_PATH_MAX), or return fail. */
#define WIDE(w, path, fail)                                                                        \
    wchar_t w[TDM_WIN32_PATH_MAX];                                                                 \
    if (tdm_win32_wide(path, w, TDM_WIN32_PATH_MAX) != 0)                                          \
    return fail

static int is_separator(char c)
{
    return c == '/' || c == '\\';
}

static int lock_far_byte(HANDLE h)
{
    OVERLAPPED at = {0};
    at.OffsetHigh = LOCK_OFFSET_HIGH;
    return LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &at) ? 0
                                                                                            : -1;
}

/* A C runtime descriptor owning h: -1 (errno set, h closed) when none. */
static int descriptor_of(HANDLE h, int flags)
{
    int fd = _open_osfhandle((intptr_t)h, flags | _O_BINARY | _O_NOINHERIT);
    if (fd < 0) {
        CloseHandle(h);
        errno = EMFILE;
    }
    return fd;
}

int tdm_path_readable(const char *path)
{
    WIDE(w, path, 0);
    return _waccess(w, 4) == 0;
}

int tdm_path_writable(const char *path)
{
    WIDE(w, path, 0);
    return _waccess(w, 2) == 0;
}

int tdm_path_kind_of(const char *path, int follow, tdm_path_kind *kind)
{
    *kind = TDM_PATH_NONE;
    WIDE(w, path, -1);
    DWORD a = GetFileAttributesW(w);
    if (a == INVALID_FILE_ATTRIBUTES) {
        DWORD e = GetLastError();
        return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? 0 : tdm_win32_fail(e);
    }
    if ((a & FILE_ATTRIBUTE_REPARSE_POINT) && !follow)
        *kind = TDM_PATH_LINK;
    else if (a & FILE_ATTRIBUTE_DIRECTORY)
        *kind = TDM_PATH_DIR;
    else if (a & FILE_ATTRIBUTE_DEVICE)
        *kind = TDM_PATH_DEVICE;
    else
        *kind = TDM_PATH_FILE;
    return 0;
}

int tdm_fifo_open_writer(const char *path, int wait)
{
    (void)path;
    (void)wait;
    errno = ENOTSUP; /* Windows' pipes live in their own namespace, not in folders */
    return -1;
}

char *tdm_link_read(const char *path)
{
    (void)path;
    errno = ENOSYS; /* symbolic links are not supported on Windows */
    return NULL;
}

int tdm_make_dir(const char *dir)
{
    WIDE(w, dir, -1);
    return CreateDirectoryW(w, NULL) ? 0 : tdm_win32_fail(GetLastError());
}

FILE *tdm_file_open_in_place(const char *path)
{
    WIDE(w, path, NULL);
    int fd = _wopen(w, _O_WRONLY | _O_BINARY | _O_NOINHERIT);
    FILE *f = fd >= 0 ? _fdopen(fd, "wb") : NULL;
    if (fd >= 0 && !f) {
        int err = errno;
        _close(fd);
        errno = err;
    }
    return f;
}

int tdm_open_regular(const char *path, int *fd, uint64_t *size, const char **kind)
{
    *kind = NULL;
    WIDE(w, path, -1);
    /* Backup semantics open a directory too, so that it is named rather than refused. */
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return tdm_win32_fail(GetLastError());
    BY_HANDLE_FILE_INFORMATION info;
    DWORD type = GetFileType(h);
    if (type != FILE_TYPE_DISK || !GetFileInformationByHandle(h, &info) ||
        (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
        *kind = type == FILE_TYPE_PIPE   ? "a pipe"
                : type == FILE_TYPE_CHAR ? "a character device"
                : type == FILE_TYPE_DISK ? "a directory"
                                         : "not a regular file";
        CloseHandle(h);
        errno = 0;
        return -1;
    }
    *fd = descriptor_of(h, _O_RDONLY);
    if (*fd < 0)
        return -1;
    *size = (uint64_t)info.nFileSizeHigh << 32 | info.nFileSizeLow;
    return 0;
}

void tdm_file_close(int fd)
{
    _close(fd);
}

int64_t tdm_file_read(int fd, void *data, size_t size)
{
    size_t got = 0;
    while (got < size) {
        size_t want = size - got > 0x40000000u ? 0x40000000u : size - got;
        int r = _read(fd, (unsigned char *)data + got, (unsigned)want);
        if (r <= 0)
            return got == 0 && r < 0 ? -1 : (int64_t)got;
        got += (size_t)r;
    }
    return (int64_t)got;
}

/* The length of a path's root ("C:\", "\\server\share\" or "/"), which mkdir skips. */
static size_t root_length(const char *p)
{
    if (p[0] && p[1] == ':')
        return is_separator(p[2]) ? 3 : 2;
    if (is_separator(p[0]) && is_separator(p[1])) { /* \\server\share\ */
        size_t n = 2, parts = 0;
        while (p[n] && parts < 2)
            if (is_separator(p[n++]))
                parts++;
        return n;
    }
    return is_separator(p[0]) ? 1 : 0;
}

int tdm_make_dirs(const char *dir, int owner_only)
{
    char buf[TDM_WIN32_PATH_MAX];
    tdm_path_kind kind;
    (void)owner_only; /* a folder under the user's profile is the user's already */

    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + root_length(buf); *p; p++) {
        if (!is_separator(*p))
            continue;
        char sep = *p;
        *p = '\0';
        if (tdm_make_dir(buf) != 0 && errno != EEXIST)
            return -1;
        *p = sep;
    }
    if (tdm_make_dir(buf) != 0 && errno != EEXIST)
        return -1;
    if (tdm_path_kind_of(buf, 1, &kind) != 0)
        return -1;
    if (kind != TDM_PATH_DIR) {
        errno = kind == TDM_PATH_NONE ? ENOENT : ENOTDIR;
        return -1;
    }
    return 0;
}

int tdm_dir_creatable(const char *dir)
{
    char buf[TDM_WIN32_PATH_MAX];
    tdm_path_kind kind;

    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return 0;
    for (;;) {
        if (tdm_path_kind_of(buf, 1, &kind) != 0)
            return 0;
        if (kind != TDM_PATH_NONE)
            return kind == TDM_PATH_DIR && tdm_path_writable(buf);
        char *sep = NULL;
        for (char *p = buf + root_length(buf); *p; p++)
            if (is_separator(*p))
                sep = p;
        if (!sep)
            return buf[0] && root_length(buf) == 0 ? tdm_path_writable(".") : 0;
        *sep = '\0';
    }
}

int tdm_temp_folder(char *out, size_t cap)
{
    wchar_t wide[MAX_PATH + 1];
    DWORD n = GetTempPathW(MAX_PATH + 1, wide);
    if (n == 0 || n > MAX_PATH)
        return -1;
    if (n > 1 && wide[n - 1] == L'\\' && wide[n - 2] != L':')
        wide[n - 1] = L'\0'; /* "C:\\" keeps its separator: it is the root */
    return tdm_win32_utf8(wide, out, cap) == 0 ? 0 : -1;
}

int tdm_make_private_temp_dir(const char *name, char *out, size_t cap)
{
    /* GetTempPathW gives the user's own folder (%TEMP% under the profile), which other
     * users cannot write into. */
    char tmp[MAX_PATH * 3];
    tdm_path_kind kind;
    if (tdm_temp_folder(tmp, sizeof tmp) != 0)
        return -1;
    int len = snprintf(out, cap, "%s\\%s", tmp, name);
    if (len <= 0 || (size_t)len >= cap)
        return -1;
    if (tdm_make_dir(out) != 0 && errno != EEXIST)
        return -1;
    return tdm_path_kind_of(out, 0, &kind) == 0 && kind == TDM_PATH_DIR && tdm_path_writable(out)
               ? 0
               : -1;
}

static int write_all(HANDLE h, const void *data, size_t size)
{
    const unsigned char *p = data;
    while (size > 0) {
        DWORD want = size > 0x40000000u ? 0x40000000u : (DWORD)size, wrote = 0;
        if (!WriteFile(h, p, want, &wrote, NULL) || wrote == 0)
            return tdm_win32_fail(GetLastError());
        p += wrote;
        size -= wrote;
    }
    return 0;
}

int tdm_file_replace(const char *path, const void *const *parts, const size_t *sizes, size_t count)
{
    static volatile LONG serial;
    char tmp[TDM_WIN32_PATH_MAX];
    int folder = 0;
    for (int i = 0; path[i]; i++)
        if (is_separator(path[i]))
            folder = i + 1;
    HANDLE h = INVALID_HANDLE_VALUE;
    wchar_t w[TDM_WIN32_PATH_MAX];
    for (int attempt = 0; attempt < 100 && h == INVALID_HANDLE_VALUE; attempt++) {
        if (snprintf(tmp, sizeof tmp, "%.*s.tmp-%lu-%ld", folder, path, GetCurrentProcessId(),
                     (long)InterlockedIncrement(&serial)) >= (int)sizeof tmp) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if (tdm_win32_wide(tmp, w, TDM_WIN32_PATH_MAX) != 0)
            return -1;
        h = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
        if (h == INVALID_HANDLE_VALUE && GetLastError() != ERROR_FILE_EXISTS)
            return tdm_win32_fail(GetLastError());
    }
    if (h == INVALID_HANDLE_VALUE) {
        errno = EEXIST;
        return -1;
    }
    int failed = 0;
    for (size_t i = 0; i < count && !failed; i++)
        failed = write_all(h, parts[i], sizes[i]) != 0;
    int saved = errno;
    CloseHandle(h);
    if (!failed && tdm_file_rename_over(tmp, path) == 0)
        return 0;
    saved = failed ? saved : errno;
    DeleteFileW(w);
    errno = saved;
    return -1;
}

int64_t tdm_file_read_at(int fd, void *data, size_t size, uint64_t offset)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    size_t got = 0;
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    while (got < size) {
        OVERLAPPED at = {0};
        uint64_t where = offset + got;
        at.Offset = (DWORD)where;
        at.OffsetHigh = (DWORD)(where >> 32);
        DWORD want = size - got > 0x40000000u ? 0x40000000u : (DWORD)(size - got), r = 0;
        if (!ReadFile(h, (unsigned char *)data + got, want, &r, &at)) {
            if (GetLastError() == ERROR_HANDLE_EOF)
                break;
            return tdm_win32_fail(GetLastError());
        }
        if (r == 0)
            break;
        got += r;
    }
    return (int64_t)got;
}

int tdm_file_create_locked(const char *path, FILE **f)
{
    *f = NULL;
    WIDE(w, path, -1);
    HANDLE h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, CREATE_NEW,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return tdm_win32_fail(GetLastError());
    /* Taken at once: tdm_file_remove_if_unlocked skips files whose lock is held. */
    if (lock_far_byte(h) == 0) {
        int fd = descriptor_of(h, _O_WRONLY);
        *f = fd >= 0 ? _fdopen(fd, "wb") : NULL;
        if (*f)
            return 0;
        if (fd >= 0)
            _close(fd);
    } else {
        tdm_win32_fail(GetLastError());
        CloseHandle(h);
    }
    int err = errno;
    DeleteFileW(w);
    errno = err;
    return -2;
}

int tdm_file_remove_if_unlocked(const char *path)
{
    WIDE(w, path, -1);
    HANDLE h = CreateFileW(w, GENERIC_READ | DELETE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        DWORD e = GetLastError();
        return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? 0 : tdm_win32_fail(e);
    }
    BY_HANDLE_FILE_INFORMATION info;
    if (GetFileType(h) != FILE_TYPE_DISK || !GetFileInformationByHandle(h, &info) ||
        (info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT))) {
        CloseHandle(h); /* no writer made it */
        return 0;
    }
    int removed = 0;
    if (lock_far_byte(h) == 0) {
        /* Marked for deletion while held: no writer can be between creating and locking
         * it. */
        FILE_DISPOSITION_INFO gone = {TRUE};
        removed = SetFileInformationByHandle(h, FileDispositionInfo, &gone, sizeof gone)
                      ? 1
                      : tdm_win32_fail(GetLastError());
    } else if (GetLastError() != ERROR_LOCK_VIOLATION) {
        removed = tdm_win32_fail(GetLastError());
    }
    int err = errno;
    CloseHandle(h);
    errno = err;
    return removed;
}

tdm_lock_result tdm_file_lock(const char *path, int *fd)
{
    *fd = -1;
    wchar_t w[TDM_WIN32_PATH_MAX];
    if (tdm_win32_wide(path, w, TDM_WIN32_PATH_MAX) != 0)
        return TDM_LOCK_NO_FILE;
    HANDLE h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        tdm_win32_fail(GetLastError());
        return TDM_LOCK_NO_FILE;
    }
    BY_HANDLE_FILE_INFORMATION info;
    tdm_lock_result r;
    if (GetFileType(h) != FILE_TYPE_DISK || !GetFileInformationByHandle(h, &info) ||
        (info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT))) {
        errno = EINVAL;
        r = TDM_LOCK_NOT_FILE;
    } else if (lock_far_byte(h) == 0) {
        r = TDM_LOCK_TAKEN;
    } else {
        DWORD e = GetLastError();
        tdm_win32_fail(e);
        r = e == ERROR_LOCK_VIOLATION ? TDM_LOCK_HELD : TDM_LOCK_FAILED;
    }
    if (r == TDM_LOCK_NOT_FILE || r == TDM_LOCK_FAILED) {
        int err = errno;
        CloseHandle(h);
        errno = err;
        return r;
    }
    *fd = descriptor_of(h, _O_RDWR);
    return *fd >= 0 ? r : TDM_LOCK_FAILED;
}

int tdm_file_rewrite(int fd, const void *data, size_t size)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    LARGE_INTEGER zero = {0};
    if (!SetFilePointerEx(h, zero, NULL, FILE_BEGIN) || !SetEndOfFile(h))
        return tdm_win32_fail(GetLastError());
    return write_all(h, data, size);
}

int tdm_file_sync(FILE *f)
{
    HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    return FlushFileBuffers(h) ? 0 : tdm_win32_fail(GetLastError());
}

int tdm_dir_sync(const char *dir)
{
    /* A folder cannot be flushed on Windows; the renames into it wrote through
     * (MOVEFILE_WRITE_THROUGH), so its entries are on the disk already. */
    (void)dir;
    return 0;
}

int tdm_file_rename_over(const char *from, const char *to)
{
    WIDE(wf, from, -1);
    WIDE(wt, to, -1);
    return MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)
               ? 0
               : tdm_win32_fail(GetLastError());
}

/* A removal's answer: 1 removed, 0 nothing was there, -1 failed (errno set). */
static int removed(BOOL done)
{
    if (done)
        return 1;
    DWORD e = GetLastError();
    return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? 0 : tdm_win32_fail(e);
}

int tdm_file_remove(const char *path)
{
    WIDE(w, path, -1);
    return removed(DeleteFileW(w));
}

const char *tdm_path_base_name(const char *path)
{
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (is_separator(*p))
            base = p + 1;
    return base;
}

int tdm_dir_remove(const char *dir)
{
    WIDE(w, dir, -1);
    return removed(RemoveDirectoryW(w));
}

int tdm_dir_list(const char *dir, int (*fn)(const char *name, void *user), void *user)
{
    char pattern[TDM_WIN32_PATH_MAX];
    size_t n = strlen(dir);
    if (snprintf(pattern, sizeof pattern, "%s%s*", dir,
                 n > 0 && is_separator(dir[n - 1]) ? "" : "\\") >= (int)sizeof pattern) {
        errno = ENAMETOOLONG;
        return -1;
    }
    WIDE(w, pattern, -1);
    WIN32_FIND_DATAW found;
    HANDLE find = FindFirstFileW(w, &found);
    if (find == INVALID_HANDLE_VALUE)
        return tdm_win32_fail(GetLastError());
    int rc = 0;
    do {
        char name[MAX_PATH * 3];
        if (tdm_win32_utf8(found.cFileName, name, sizeof name) != 0) {
            rc = -2;
            break;
        }
        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && fn(name, user))
            break;
        if (!FindNextFileW(find, &found)) {
            if (GetLastError() != ERROR_NO_MORE_FILES)
                rc = tdm_win32_fail(GetLastError()) * 2;
            break;
        }
    } while (1);
    int err = errno;
    FindClose(find);
    errno = err;
    return rc;
}
