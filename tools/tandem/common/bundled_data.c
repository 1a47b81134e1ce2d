/* Finding the bundled data beside the running program. */
#include <stdio.h>
#include <string.h>

#include "bundled_data.h"
#include "platform/tdm_files.h"
#include "platform/tdm_host.h"

/* The directory of the running program ("" if unknown). */
static void program_dir(char *out, size_t size)
{
    tdm_host_program_path(out, size);
    const char *base = tdm_path_base_name(out);
    if (base > out)
        out[base - out - 1] = '\0';
}

const char *bundled_digits(void)
{
    static char path[TDM_PATH_MAX + 64];
    static const char *const beside[] = {TDM_DATA_FROM_BINDIR, "share/tandem"};
    char dir[TDM_PATH_MAX];
    program_dir(dir, sizeof dir);
    for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
        snprintf(path, sizeof path, "%s/%s/digits.csv.gz", dir, beside[i]);
        if (tdm_path_readable(path))
            return path;
    }
    snprintf(path, sizeof path, "%s/%s/digits.csv.gz", dir, beside[0]);
    return path;
}
