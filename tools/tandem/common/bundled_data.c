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

/* The bundled file `name` into path (of size bytes): beside the program, else where
 * the install puts it. */
static const char *find(const char *name, char *path, size_t size)
{
    static const char *const beside[] = {TDM_DATA_FROM_BINDIR, "share/tandem"};
    char dir[TDM_PATH_MAX];
    program_dir(dir, sizeof dir);
    for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
        snprintf(path, size, "%s/%s/%s", dir, beside[i], name);
        if (tdm_path_readable(path))
            return path;
    }
    snprintf(path, size, "%s/%s/%s", dir, beside[0], name);
    return path;
}

const char *bundled_digits(void)
{
    static char path[TDM_PATH_MAX + 64];
    return find("digits.csv.gz", path, sizeof path);
}

const char *bundled_text(void)
{
    static char path[TDM_PATH_MAX + 64];
    return find("shakespeare.txt.gz", path, sizeof path);
}
