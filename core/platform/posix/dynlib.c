/* tdm_dynlib.h on dlopen. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "platform/tdm_dynlib.h"

tdm_dynlib *tdm_dynlib_open(const char *name, char *why, size_t why_size)
{
    void *handle = dlopen(tdm_dynlib_file(name), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(why, why_size, "%s", reason ? reason : tdm_dynlib_file(name));
    }
    return handle;
}

tdm_dynlib *tdm_dynlib_open_loaded(const char *name)
{
    return dlopen(tdm_dynlib_file(name), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
}

tdm_dynlib *tdm_dynlib_open_private(const char *name, char *why, size_t why_size)
{
    void *handle = dlmopen(LM_ID_NEWLM, tdm_dynlib_file(name), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(why, why_size, "%s", reason ? reason : tdm_dynlib_file(name));
    }
    return handle;
}

void tdm_dynlib_path(tdm_dynlib *lib, const char *name, char *path, size_t size)
{
    struct link_map *map = NULL;
    int found = dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name[0];
    snprintf(path, size, "%s", found ? map->l_name : tdm_dynlib_file(name));
}

void *tdm_dynlib_symbol(tdm_dynlib *lib, const char *symbol)
{
    return dlsym(lib, symbol);
}

void tdm_dynlib_close(tdm_dynlib *lib)
{
    dlclose(lib);
}

int tdm_dynlib_file_of(const void *address, char *path, size_t size)
{
    Dl_info info;
    if (!dladdr(address, &info) || !info.dli_fname)
        return 0;
    snprintf(path, size, "%s", info.dli_fname);
    return 1;
}

#ifdef TDM_KEEP_DRIVERS_LOADED
static int count_object(struct dl_phdr_info *info, size_t size, void *count)
{
    (void)info;
    (void)size;
    ++*(size_t *)count;
    return 0;
}

typedef struct pin_walk {
    size_t seen, first_new;
} pin_walk;

/* Objects load in order, so those past the count are the new ones. */
static int pin_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    pin_walk *w = arg;
    if (w->seen++ >= w->first_new && info->dlpi_name && info->dlpi_name[0])
        dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE); /* kept for good */
    return 0;
}

size_t tdm_dynlib_loaded_count(void)
{
    size_t count = 0;
    dl_iterate_phdr(count_object, &count);
    return count;
}

void tdm_dynlib_keep_loaded_since(size_t count)
{
    pin_walk w = {0, count};
    dl_iterate_phdr(pin_object, &w);
}
#else
size_t tdm_dynlib_loaded_count(void)
{
    return 0;
}

void tdm_dynlib_keep_loaded_since(size_t count)
{
    (void)count;
}
#endif
