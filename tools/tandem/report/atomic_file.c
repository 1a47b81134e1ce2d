#include <string.h>

#include "atomic_file.h"
#include "base/error.h"
#include "tandem/status.h"

#define FUNC "output" /* the library's messages start "output: "; err gets the rest */

/* The last error without its "output: ", into err; -1. */
static int failed(char *err, size_t err_size)
{
    const char *message = tdm_last_error();
    size_t skip = strlen(FUNC ": ");
    if (err && err_size) /* a long path gives way in the middle, never the reason */
        tdm_text_fit(err, err_size, strncmp(message, FUNC ": ", skip) == 0 ? message + skip : message);
    return -1;
}

int atomic_file_open(atomic_file *a, const char *path, tdm_output_kind kind, char *err,
                     size_t err_size)
{
    a->f = NULL;
    if (tdm_output_open(path, kind, FUNC, &a->out) != TDM_OK)
        return failed(err, err_size);
    a->f = a->out.f;
    return 0;
}

int atomic_file_commit(atomic_file *a, char *err, size_t err_size)
{
    a->f = NULL;
    return tdm_output_commit(&a->out, FUNC) == TDM_OK ? 0 : failed(err, err_size);
}

void atomic_file_abort(atomic_file *a)
{
    a->f = NULL;
    tdm_output_abort(&a->out);
}

int atomic_file_check(const char *path, tdm_output_kind kind, char *err, size_t err_size)
{
    return tdm_output_check(path, kind, FUNC) == TDM_OK ? 0 : failed(err, err_size);
}
