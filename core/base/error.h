/* Internal: setting the calling thread's last error message. */
#ifndef TDM_CORE_ERROR_H
#define TDM_CORE_ERROR_H

#include <stddef.h>

#include "tandem/status.h"

/* text into out (size bytes, size > 0); where it does not fit, its middle gives way to
 * " [...] ", so that its start and its end, where a message's reason is, stay: a path
 * longer than the system allows must not push the reason out of its message. Cuts
 * fall between UTF-8 characters. */
void tdm_text_fit(char *out, size_t size, const char *text);

/* Formats the calling thread's last-error message and returns status, so that a
 * failure reads `return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "size is 0");`. Where
 * it would not fit its buffer, its middle gives way (tdm_text_fit). */
tdm_status tdm_fail(tdm_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefixes the current last-error message with more context ("replica 1: ...")
 * and returns status unchanged. */
tdm_status tdm_fail_context(tdm_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The rule of every message: a failure's first cause stays first. Between hold and
 * release (pairs nest), while a failure is handled (cleaning up, resynchronising,
 * saying goodbye), a further failure is appended to the held message as
 * "; then: ..." instead of replacing it, and tdm_fail_context prefixes that
 * follow-up alone. After the last release a new failure replaces the message. */
void tdm_error_hold(void);
void tdm_error_release(void);

/* TDM_ERR_NOT_FOUND for a name outside a NULL-terminated list, the message listing
 * the list: "func: no WHAT 'name' (a, b, c)". */
tdm_status tdm_fail_name(const char *func, const char *what, const char *name,
                         const char *const *names);

/* *index = name's place in the NULL-terminated names, or tdm_fail_name's error: the
 * parser of every enum that has a name list. */
tdm_status tdm_name_find(const char *func, const char *what, const char *const *names,
                         const char *name, size_t *index);

/* names[i], or "unknown" past the NULL that ends them. */
const char *tdm_name_at(const char *const *names, size_t i);

/* The public functions of an enum named by a NULL-terminated list `list`: NAMES()
 * the list, NAME(value) its name or "unknown", and PARSE(name, &value), which fails
 * as tdm_name_find for a name outside it, the WHAT naming what it is. */
#define TDM_NAMED_ENUM(type, list, names_fn, name_fn, parse_fn, what)                              \
    const char *const *names_fn(void)                                                              \
    {                                                                                              \
        return list;                                                                               \
    }                                                                                              \
    const char *name_fn(type value)                                                                \
    {                                                                                              \
        return tdm_name_at(list, (size_t)value);                                                   \
    }                                                                                              \
    tdm_status parse_fn(const char *name, type *out)                                               \
    {                                                                                              \
        TDM_CHECK_ARG(name, #parse_fn);                                                            \
        TDM_CHECK_ARG(out, #parse_fn);                                                             \
        size_t i = 0;                                                                              \
        tdm_status s = tdm_name_find(#parse_fn, what, list, name, &i);                             \
        if (s == TDM_OK)                                                                           \
            *out = (type)i;                                                                        \
        return s;                                                                                  \
    }

/* Checks a pointer argument: fails with TDM_ERR_INVALID_ARGUMENT naming it. */
#define TDM_CHECK_ARG(ptr, func)                                                         \
    do {                                                                                 \
        if (!(ptr))                                                                      \
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, \
                            #ptr);                                                       \
    } while (0)

#endif
