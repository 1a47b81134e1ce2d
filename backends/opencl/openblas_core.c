/* OpenBLAS's kernels for the CPU it runs on (openblas_core.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "openblas_core.h"

/* OpenBLAS 0.3.21's cores whose kernels use AVX2 or wider (its names). */
static const char *const vector_cores[] = {"Haswell",        "Zen", "SkylakeX", "Cooperlake",
                                           "SapphireRapids", NULL};

/* The core whose kernels fit this CPU's vectors, NULL where none uses more than SSE:
 * GCC's and clang's cpu checks count a feature only where the OS saves its
 * registers. */
static const char *fitting_core(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "Haswell";
    return NULL;
}

static const char *core_of(tdm_dynlib *handle)
{
    char *(*corename)(void) = NULL;
    *(void **)&corename = tdm_dynlib_symbol(handle, "openblas_get_corename");
    return corename ? corename() : NULL;
}

static int is_vector_core(const char *core)
{
    for (const char *const *c = vector_cores; core && *c; c++)
        if (!tdm_strcasecmp(core, *c))
            return 1;
    return 0;
}

static void append(tdm_library *lib, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void append(tdm_library *lib, const char *fmt, ...)
{
    size_t used = strlen(lib->note);
    va_list args;
    va_start(args, fmt);
    vsnprintf(lib->note + used, sizeof lib->note - used, fmt, args);
    va_end(args);
}

int tdm_openblas_choose_core(tdm_library *lib)
{
    const char *chosen = core_of(lib->handle), *fitting = fitting_core();
    if (!chosen)
        return 1; /* not OpenBLAS's own build: nothing to ask */
    if (!fitting || is_vector_core(chosen) || getenv("OPENBLAS_CORETYPE")) {
        append(lib, " (its %s kernels)", chosen);
        return 1;
    }
    char was[64]; /* the name lives in the library, which is about to go */
    snprintf(was, sizeof was, "%s", chosen);
    /* Closed, OpenBLAS unloads unless the program holds it too (numpy's, say): then a
     * copy of tandem's own chooses again, else the library itself loads again. */
    tdm_dynlib_close(lib->handle);
    tdm_dynlib *held = tdm_dynlib_open_loaded(lib->name);
    char why[sizeof lib->note / 2];
    tdm_host_setenv("OPENBLAS_CORETYPE", fitting, 1);
    lib->handle = held ? tdm_dynlib_open_private(lib->name, why, sizeof why)
                       : tdm_dynlib_open(lib->name, why, sizeof why);
    tdm_host_unsetenv("OPENBLAS_CORETYPE");
    if (held && !lib->handle) {
        lib->handle = held;
        append(lib,
               " (its %s kernels: loaded before tandem, and no copy of tandem's own would "
               "open: %s; OPENBLAS_CORETYPE=%s set before the program starts chooses them)",
               was, why, fitting);
        return 1;
    }
    if (!lib->handle) {
        snprintf(lib->note, sizeof lib->note, "%s did not open again: %s",
                 tdm_dynlib_file(lib->name), why);
        return 0;
    }
    if (held) {
        tdm_dynlib_close(held);
        append(lib,
               " (its %s kernels, a copy of tandem's own: the program had loaded it with its %s)",
               core_of(lib->handle), was);
        return 1;
    }
    append(lib, " (its %s kernels; by itself it took this CPU for a %s)", core_of(lib->handle),
           was);
    return 1;
}
