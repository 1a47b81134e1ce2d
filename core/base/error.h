/* Internal: setting the calling thread's last error message. */
#ifndef TDM_CORE_ERROR_H
#define TDM_CORE_ERROR_H

#include "tandem/status.h"

/* Formats the calling thread's last-error message and returns status, so that a
 * failure reads `return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "size is 0");`. */
tdm_status tdm_fail(tdm_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefixes the current last-error message with more context ("replica 1: ...")
 * and returns status unchanged. */
tdm_status tdm_fail_context(tdm_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* TDM_ERR_NOT_FOUND for a name outside a NULL-terminated list, the message listing
 * the list: "func: no WHAT 'name' (a, b, c)". */
tdm_status tdm_fail_name(const char *func, const char *what, const char *name,
                         const char *const *names);

/* Checks a pointer argument: fails with TDM_ERR_INVALID_ARGUMENT naming it. */
#define TDM_CHECK_ARG(ptr, func)                                                         \
    do {                                                                                 \
        if (!(ptr))                                                                      \
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, \
                            #ptr);                                                       \
    } while (0)

#endif
