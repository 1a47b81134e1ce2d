/* tdm_files.h on POSIX. */
#include <unistd.h>

#include "platform/tdm_files.h"

int tdm_path_readable(const char *path)
{
    return access(path, R_OK) == 0;
}
