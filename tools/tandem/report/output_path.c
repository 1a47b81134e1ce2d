#include <stdio.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "output_path.h"

int output_path_check(const char *path, char *err, size_t err_size)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, err_size, "cannot write %s: it is a directory", path);
        return -1;
    }
    atomic_file a;
    if (atomic_file_open(&a, path, err, err_size) != 0)
        return -1;
    atomic_file_abort(&a);
    return 0;
}
