/* Loads the OpenCL ICD loader, libOpenCL.so.1, and the entry points the backend
 * calls, once per process. */
#define TDM_OPENCL_API_LOADER

#include "device/backend_api.h"
#include "opencl_api.h"

tdm_opencl_api tdm_opencl_entry;

static tdm_library opencl = TDM_LIBRARY_INIT("OpenCL");

static int resolve(tdm_library *lib)
{
    int found = 1;
#define TDM_OPENCL_RESOLVE(name) TDM_LIBRARY_FETCH(lib, tdm_opencl_entry.name, #name, found);
    TDM_OPENCL_FUNCTIONS(TDM_OPENCL_RESOLVE)
#undef TDM_OPENCL_RESOLVE
    return found;
}

tdm_status tdm_opencl_load(const char **note)
{
    return tdm_library_require(&opencl, resolve, "opencl", note);
}
