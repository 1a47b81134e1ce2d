/* Shared libraries opened with dlopen, once per process. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>

#include "base/error.h"
#include "base/library.h"

static int open_library(tdm_library *lib)
{
    lib->handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle) {
        const char *why = dlerror();
        snprintf(lib->note, sizeof lib->note, "%s", why ? why : lib->soname);
        return 0;
    }
    struct link_map *map = NULL;
    int found = dlinfo(lib->handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name[0];
    snprintf(lib->note, sizeof lib->note, "%s", found ? map->l_name : lib->soname);
    return 1;
}

int tdm_library_load(tdm_library *lib, int (*resolve)(tdm_library *lib))
{
    pthread_mutex_lock(&lib->lock);
    if (!lib->tried)
        lib->loaded = open_library(lib) && resolve(lib);
    lib->tried = 1;
    int loaded = lib->loaded;
    pthread_mutex_unlock(&lib->lock);
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
    void *symbol = dlsym(lib->handle, name);
    if (!symbol)
        snprintf(lib->note, sizeof lib->note, "%s has no %s: it is too old or not the real one",
                 lib->soname, name);
    return symbol;
}
