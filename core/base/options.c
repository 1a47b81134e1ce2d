#include <string.h>

#include "base/error.h"
#include "base/options.h"

tdm_status tdm_options_read(void *dst, size_t dst_size, const void *src, const char *what)
{
    if (!src)
        return TDM_OK;
    size_t src_size;
    memcpy(&src_size, src, sizeof src_size);
    if (src_size < sizeof(size_t) || src_size > dst_size)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: size field is %zu, expected %zu (initialise the struct with "
                        "its _INIT macro)",
                        what, src_size, dst_size);
    memcpy(dst, src, src_size);
    return TDM_OK;
}
