/* The calling thread's last-error message (tdm_last_error). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"

#define TDM_ERROR_MAX 4096

/* One buffer per thread: replicas on several threads never overwrite each other. */
static _Thread_local char last_error[TDM_ERROR_MAX];

const char *tdm_last_error(void)
{
    return last_error;
}

tdm_status tdm_fail(tdm_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

tdm_status tdm_fail_context(tdm_status status, const char *fmt, ...)
{
    char prefix[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(prefix, sizeof prefix - 2, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : strlen(prefix);
    memcpy(prefix + len, ": ", 3);
    len += 2;
    /* Shift the old message right, truncating its end, and put the prefix before it. */
    memmove(last_error + len, last_error, sizeof last_error - len - 1);
    last_error[sizeof last_error - 1] = '\0';
    memcpy(last_error, prefix, len);
    return status;
}

tdm_status tdm_fail_name(const char *func, const char *what, const char *name,
                         const char *const *names)
{
    int n = snprintf(last_error, sizeof last_error, "%s: no %s '%.64s' (", func, what, name);
    size_t used = n < 0 ? 0 : (size_t)n;
    for (size_t i = 0; names[i] && used < sizeof last_error; i++) {
        n = snprintf(last_error + used, sizeof last_error - used, "%s%s", i ? ", " : "", names[i]);
        used += n < 0 ? 0 : (size_t)n;
    }
    if (used < sizeof last_error)
        snprintf(last_error + used, sizeof last_error - used, ")");
    return TDM_ERR_NOT_FOUND;
}

tdm_status tdm_name_find(const char *func, const char *what, const char *const *names,
                         const char *name, size_t *index)
{
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(name, names[i])) {
            *index = i;
            return TDM_OK;
        }
    return tdm_fail_name(func, what, name, names);
}

const char *tdm_name_at(const char *const *names, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (!names[k])
            return "unknown";
    return names[i] ? names[i] : "unknown";
}

const char *tdm_status_str(tdm_status status)
{
    switch (status) {
#define TDM_STATUS(name, value, description)                                                       \
    case name:                                                                                     \
        return #name;
#include "tandem/status.def"
#undef TDM_STATUS
    }
    return "TDM_ERR_UNKNOWN";
}

const char *tdm_status_description(tdm_status status)
{
    switch (status) {
#define TDM_STATUS(name, value, description)                                                       \
    case name:                                                                                     \
        return description;
#include "tandem/status.def"
#undef TDM_STATUS
    }
    return "an unknown status code";
}
