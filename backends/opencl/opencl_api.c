/* Loads the OpenCL ICD loader, libOpenCL.so.1, and the entry points the backend
 * calls, once per process. */
#define TDM_OPENCL_API_LOADER

#include "error.h"
#include "library.h"
#include "opencl_api.h"

tdm_opencl_api tdm_opencl_entry;

static tdm_library opencl = TDM_LIBRARY_INIT("libOpenCL.so.1");

static int resolve(tdm_library *lib)
{
    int missing = 0;
#define TDM_OPENCL_RESOLVE(name)                                                                   \
    tdm_opencl_entry.name = (__typeof__(name) *)tdm_library_symbol(lib, #name);                    \
    missing |= !tdm_opencl_entry.name;
    TDM_OPENCL_FUNCTIONS(TDM_OPENCL_RESOLVE)
#undef TDM_OPENCL_RESOLVE
    return !missing;
}

tdm_status tdm_opencl_load(const char **note)
{
    int loaded = tdm_library_load(&opencl, resolve);
    *note = opencl.note;
    return loaded ? TDM_OK : tdm_fail(TDM_ERR_NOT_FOUND, "opencl: %s", opencl.note);
}
