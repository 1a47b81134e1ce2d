#include <string.h>
#include <zlib.h>

#include "class_names.h"

/* A count: decimal digits alone. */
static int is_count(const char *field)
{
    return *field && strspn(field, "0123456789") == strlen(field);
}

void class_names_read(const char *path, class_names *out)
{
    out->count = 0;
    gzFile f = gzopen(path, "rb"); /* reads a plain file as it is */
    int read = f && gzgets(f, out->line, sizeof out->line) != NULL;
    if (f)
        gzclose(f);
    if (!read)
        return;
    out->line[strcspn(out->line, "\r\n")] = '\0';
    char *fields[2 + CLASS_NAMES_LINE / 2];
    size_t n = 0;
    for (char *next = out->line; next && n < sizeof fields / sizeof fields[0]; n++) {
        fields[n] = next;
        next = strchr(next, ',');
        if (next)
            *next++ = '\0';
    }
    if (n < 3 || !is_count(fields[0]) || !is_count(fields[1]))
        return;
    for (size_t i = 2; i < n; i++)
        out->name[out->count++] = fields[i];
}
