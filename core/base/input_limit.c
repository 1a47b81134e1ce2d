/* The limit on the bytes read from one input file or checkpoint. */
#include <stdlib.h>

#include "base/error.h"
#include "base/input_limit.h"
#include "platform/tdm_host.h"

static int parse_bytes(const char *text, uint64_t *out)
{
    uint64_t v = 0;
    const char *p = text;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - (unsigned)(*p - '0')) / 10)
            return -1;
        v = v * 10 + (unsigned)(*p - '0');
    }
    static const char units[] = "KMGT";
    unsigned shift = 0;
    for (unsigned i = 0; *p && units[i]; i++)
        if (*p == units[i])
            shift = 10 * (i + 1);
    if (p == text || (*p && (!shift || p[1])) || v == 0 || v > UINT64_MAX >> shift)
        return -1;
    *out = v << shift;
    return 0;
}

tdm_status tdm_input_limit(tdm_input_kind kind, const char *func, uint64_t *bytes)
{
    const char *env = getenv("TDM_MAX_INPUT_BYTES");
    if (env && *env) {
        if (parse_bytes(env, bytes) != 0)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: TDM_MAX_INPUT_BYTES is '%.40s': expected a byte count above 0, "
                            "such as 800M or 4G",
                            func, env);
        return TDM_OK;
    }
    uint64_t memory = tdm_host_memory_bytes(), share = kind == TDM_INPUT_DATA ? 16 : 2;
    *bytes = memory ? memory / share : UINT64_MAX;
    return TDM_OK;
}
