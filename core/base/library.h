/* Internal: shared libraries opened at run time, once per process. The backends load
 * their drivers' loaders (OpenCL, CLBlast, Vulkan: platform/tdm_dynlib.h's table names
 * their files) this way, so tandem starts where they are missing and reports that
 * backend as unavailable. */
#ifndef TDM_CORE_LIBRARY_H
#define TDM_CORE_LIBRARY_H

#include "platform/tdm_dynlib.h"
#include "platform/tdm_thread.h"
#include "tandem/status.h"

typedef struct tdm_library {
    const char *name; /* "OpenCL", a name of tdm_dynlib.h's table, or a path */
    tdm_mutex lock;
    int tried;          /* tdm_library_load ran */
    int loaded;         /* ... and found the library and its symbols */
    tdm_dynlib *handle; /* NULL when it could not be opened */
    char note[512];     /* the file it was loaded from, or why it was not */
} tdm_library;

#define TDM_LIBRARY_INIT(name)                                                                     \
    {                                                                                              \
        (name), TDM_MUTEX_INIT, 0, 0, NULL,                                                        \
        {                                                                                          \
            0                                                                                      \
        }                                                                                          \
    }

/* On the first call, opens lib->name for the rest of the process (never closed:
 * the drivers it loads may keep threads and callbacks of their own) and calls
 * resolve, which fetches the symbols with tdm_library_symbol and returns 0 if one
 * is missing. Thread-safe. Returns lib->loaded; lib->note says why not. */
int tdm_library_load(tdm_library *lib, int (*resolve)(tdm_library *lib));

/* tdm_library_load for a backend's own loader, which it cannot do without: TDM_OK,
 * or TDM_ERR_NOT_FOUND with "<backend>: <why not>". *note: lib->note. */
tdm_status tdm_library_require(tdm_library *lib, int (*resolve)(tdm_library *lib),
                               const char *backend, const char **note);

/* The named symbol; NULL, with the note naming it, when the library lacks it. */
void *tdm_library_symbol(tdm_library *lib, const char *name);

/* In a resolve function: the symbol `name` into the function pointer `slot`, and
 * `found` cleared when it is missing. */
#define TDM_LIBRARY_FETCH(lib, slot, name, found)                                                  \
    ((slot) = (__typeof__(slot))tdm_library_symbol((lib), (name)), (found) &= (slot) != NULL)

#endif
