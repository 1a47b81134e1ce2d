/* Shared libraries opened once per process (platform/tdm_dynlib.h). */
#include <stdio.h>

#include "base/error.h"
#include "base/library.h"

static int open_library(tdm_library *lib)
{
    lib->handle = tdm_dynlib_open(lib->name, lib->note, sizeof lib->note);
    if (lib->handle)
        tdm_dynlib_path(lib->handle, lib->name, lib->note, sizeof lib->note);
    return lib->handle != NULL;
}

int tdm_library_load(tdm_library *lib, int (*resolve)(tdm_library *lib))
{
    tdm_mutex_lock(&lib->lock);
    if (!lib->tried)
        lib->loaded = open_library(lib) && resolve(lib);
    lib->tried = 1;
    int loaded = lib->loaded;
    tdm_mutex_unlock(&lib->lock);
    return loaded;
}

tdm_status tdm_library_require(tdm_library *lib, int (*resolve)(tdm_library *lib),
                               const char *backend, const char **note)
{
    int loaded = tdm_library_load(lib, resolve);
    *note = lib->note;
    return loaded ? TDM_OK : tdm_fail(TDM_ERR_NOT_FOUND, "%s: %s", backend, lib->note);
}

void *tdm_library_symbol(tdm_library *lib, const char *name)
{
    void *symbol = tdm_dynlib_symbol(lib->handle, name);
    if (!symbol)
        snprintf(lib->note, sizeof lib->note, "%s has no %s: it is too old or not the real one",
                 tdm_dynlib_file(lib->name), name);
    return symbol;
}
