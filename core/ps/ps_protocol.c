/* The buffer the parameter-server messages are built in, on either side. */
#include <stdlib.h>

#include "base/error.h"
#include "ps/ps_protocol.h"

tdm_status tdm_ps_reserve(unsigned char **buf, size_t *capacity, size_t bytes, const char *func)
{
    if (bytes <= *capacity)
        return TDM_OK;
    unsigned char *grown = realloc(*buf, bytes);
    if (!grown)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    *buf = grown;
    *capacity = bytes;
    return TDM_OK;
}
