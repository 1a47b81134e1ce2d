/* Finding the bundled data from /proc/self/exe (Linux). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bundled_data.h"

/* The directory of the running program ("" if unknown). */
static void program_dir(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    out[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(out, '/');
    if (slash)
        *slash = '\0';
}

const char *bundled_digits(void)
{
    static char path[PATH_MAX + 64];
    static const char *const beside[] = {TDM_DATA_FROM_BINDIR, "share/tandem"};
    char dir[PATH_MAX];
    program_dir(dir, sizeof dir);
    for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
        snprintf(path, sizeof path, "%s/%s/digits.csv.gz", dir, beside[i]);
        if (access(path, R_OK) == 0)
            return path;
    }
    snprintf(path, sizeof path, "%s/%s/digits.csv.gz", dir, beside[0]);
    return path;
}
