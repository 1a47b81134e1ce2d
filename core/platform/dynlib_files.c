/* The one table of the libraries tandem opens, by the names its code uses, with each
 * system's file. On Windows the GPU vendor's driver installs OpenCL.dll and
 * vulkan-1.dll; the others are found beside the program or on PATH. */
#include <string.h>

#include "platform/tdm_dynlib.h"

#ifdef _WIN32
#define FILE_OF(posix, win32) win32
#else
#define FILE_OF(posix, win32) posix
#endif

static const struct {
    const char *name, *file;
} files[] = {
    {"OpenCL", FILE_OF("libOpenCL.so.1", "OpenCL.dll")},
    {"Vulkan", FILE_OF("libvulkan.so.1", "vulkan-1.dll")},
    {"CLBlast", FILE_OF("libclblast.so.1", "clblast.dll")},
    {"OpenBLAS", FILE_OF("libopenblas.so.0", "libopenblas.dll")},
    {"oneDNN", FILE_OF("libdnnl.so.2", "dnnl.dll")},
    {"tandem_mpi", FILE_OF("libtandem_mpi.so.0", "tandem_mpi.dll")},
};

const char *tdm_dynlib_file(const char *name)
{
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (strcmp(files[i].name, name) == 0)
            return files[i].file;
    return name;
}
