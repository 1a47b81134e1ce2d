/* PoCL exposes zero devices when it cannot create its kernel cache directory, so
 * before the first OpenCL call we point it at a usable one when its default is not. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* setenv, lstat, getuid */
#endif

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/backend_services.h"
#include "opencl_internal.h"

/* PoCL's default: $XDG_CACHE_HOME/pocl/kcache, else $HOME/.cache/pocl/kcache.
 * Returns 0 when neither variable is set (PoCL would then have no home for it). */
static int pocl_default_dir(char *out, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;

    if (xdg && *xdg)
        n = snprintf(out, cap, "%s/pocl/kcache", xdg);
    else if (home && *home)
        n = snprintf(out, cap, "%s/.cache/pocl/kcache", home);
    else
        return 0;
    return n > 0 && (size_t)n < cap;
}

/* Whether mkdir -p of path would give a writable directory: its deepest existing
 * ancestor (or itself) is a directory we may write into. Creates nothing, so a
 * machine without PoCL keeps its home directory untouched. */
static int dir_creatable(const char *path)
{
    char buf[PATH_MAX];
    struct stat st;

    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return 0;
    for (;;) {
        if (stat(buf, &st) == 0)
            return S_ISDIR(st.st_mode) && access(buf, W_OK | X_OK) == 0;
        char *slash = strrchr(buf, '/');
        if (errno != ENOENT || !slash)
            return 0;
        slash[slash == buf] = '\0'; /* keep "/" itself */
    }
}

/* Creates ${TMPDIR:-/tmp}/tandem-pocl-cache-<uid> (mode 0700) and checks that it
 * is a real directory of ours: /tmp is shared, so someone may have planted it. */
static int make_private_dir(char *out, size_t cap)
{
    const char *tmp = getenv("TMPDIR");
    struct stat st;
    int n = snprintf(out, cap, "%s/tandem-pocl-cache-%u", tmp && *tmp ? tmp : "/tmp",
                     (unsigned)getuid());

    if (n <= 0 || (size_t)n >= cap)
        return 0;
    if (mkdir(out, 0700) != 0 && errno != EEXIST)
        return 0;
    return lstat(out, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
           access(out, W_OK | X_OK) == 0;
}

void tdm_pocl_cache_prepare(const tdm_context *ctx)
{
    char dflt[PATH_MAX], dir[PATH_MAX];
    const char *set = getenv("POCL_CACHE_DIR");
    int have_default = pocl_default_dir(dflt, sizeof dflt);

    if ((set && *set) || (have_default && dir_creatable(dflt)))
        return;
    if (!make_private_dir(dir, sizeof dir) || setenv("POCL_CACHE_DIR", dir, 0) != 0) {
        tdm_log(ctx, TDM_LOG_WARN,
                "opencl: PoCL's kernel cache %s is not writable and %s could not be "
                "used either; PoCL, if installed, will expose no devices "
                "(set POCL_CACHE_DIR to a writable directory)",
                have_default ? dflt : "(HOME is unset)", dir);
        return;
    }
    tdm_log(ctx, TDM_LOG_INFO,
            "opencl: PoCL's kernel cache %s is not writable; setting POCL_CACHE_DIR=%s",
            have_default ? dflt : "(HOME is unset)", dir);
}
