/* PoCL exposes zero devices when it cannot create its kernel cache directory, so
 * before the first OpenCL call we point it at a usable one when its default is not. */
#include <stdio.h>
#include <stdlib.h>

#include "device/backend_api.h"
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

void tdm_pocl_cache_prepare(const tdm_context *ctx)
{
    char dflt[TDM_PATH_MAX], dir[TDM_PATH_MAX];
    const char *set = getenv("POCL_CACHE_DIR");
    int have_default = pocl_default_dir(dflt, sizeof dflt);

    /* The default is only checked, never made, so a machine without PoCL keeps its
     * home directory untouched. */
    if ((set && *set) || (have_default && tdm_dir_creatable(dflt)))
        return;
    /* /tmp's folder of this user's: tandem-pocl-cache-<uid>. */
    if (tdm_make_private_temp_dir("tandem-pocl-cache", dir, sizeof dir) != 0 ||
        tdm_host_setenv("POCL_CACHE_DIR", dir, 0) != 0) {
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
