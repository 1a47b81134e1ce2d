#include <string.h>

#include "base/error.h"
#include "base/options.h"

/* The size field of the caller's struct, checked against the library's size. */
static tdm_status check_size(const void *caller, size_t known, const char *what, size_t *size)
{
    memcpy(size, caller, sizeof *size);
    if (*size < sizeof(size_t) || *size > known)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: size field is %zu, expected %zu (initialise the struct with "
                        "its _INIT macro)",
                        what, *size, known);
    return TDM_OK;
}

tdm_status tdm_options_read(void *dst, size_t dst_size, const void *src, const char *what)
{
    size_t size;
    if (!src)
        return TDM_OK;
    tdm_status s = check_size(src, dst_size, what, &size);
    if (s == TDM_OK)
        memcpy(dst, src, size);
    return s;
}

tdm_status tdm_options_write(void *dst, const void *src, size_t src_size, const char *what)
{
    size_t size;
    tdm_status s = check_size(dst, src_size, what, &size);
    if (s == TDM_OK) {
        memcpy(dst, src, size);
        memcpy(dst, &size, sizeof size);
    }
    return s;
}
