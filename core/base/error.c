/* The calling thread's last-error message (tdm_last_error), and the rule that keeps
 * a failure's first cause first while it is handled. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"

#define TDM_ERROR_MAX 4096
#define FOLLOW_UP "; then: "
#define ELIDED " [...] "
/* Room for a message formatted before it is fitted: a path the system refused may be
 * several times the longest it allows. */
#define FORMAT_MAX (8 * TDM_ERROR_MAX)

/* One buffer per thread: replicas on several threads never overwrite each other. */
static _Thread_local char last_error[TDM_ERROR_MAX];
/* Held root causes (tdm_error_hold), and where the newest follow-up's text starts in
 * last_error (0: the message is one failure's). */
static _Thread_local unsigned holds;
static _Thread_local size_t follow_up_at;

/* Steps back from byte at to the first byte of its UTF-8 character. */
static size_t char_start(const char *text, size_t at)
{
    while (at > 0 && ((unsigned char)text[at] & 0xC0) == 0x80)
        at--;
    return at;
}

void tdm_text_fit(char *out, size_t size, const char *text)
{
    size_t len = strlen(text);
    if (len < size) {
        memcpy(out, text, len + 1);
        return;
    }
    if (size <= sizeof ELIDED + 2) { /* no room for both ends */
        size_t n = char_start(text, size - 1);
        memcpy(out, text, n);
        out[n] = '\0';
        return;
    }
    /* a third of the room for the start, the rest for the end, each cut between
     * characters and never longer than its share */
    size_t room = size - sizeof ELIDED, head = char_start(text, room / 3),
           tail = len - (room - room / 3);
    while (tail < len && ((unsigned char)text[tail] & 0xC0) == 0x80)
        tail++;
    memcpy(out, text, head);
    memcpy(out + head, ELIDED, sizeof ELIDED - 1);
    memcpy(out + head + sizeof ELIDED - 1, text + tail, len - tail + 1);
}

const char *tdm_last_error(void)
{
    return last_error;
}

void tdm_error_hold(void)
{
    holds++;
}

void tdm_error_release(void)
{
    if (holds && !--holds)
        follow_up_at = 0; /* a caller's context now prefixes the whole story */
}

/* A new failure's message: replaces the last one, or, while a root cause is held,
 * follows it. Formatted aside first, since an argument may point into last_error. */
static void set_message(const char *text)
{
    size_t at = 0;
    if (holds && last_error[0]) {
        at = strlen(last_error);
        if (at + sizeof FOLLOW_UP < sizeof last_error) {
            memcpy(last_error + at, FOLLOW_UP, sizeof FOLLOW_UP);
            at += sizeof FOLLOW_UP - 1;
        }
    }
    tdm_text_fit(last_error + at, sizeof last_error - at, text);
    follow_up_at = at;
}

tdm_status tdm_fail(tdm_status status, const char *fmt, ...)
{
    static _Thread_local char text[FORMAT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    set_message(text);
    return status;
}

tdm_status tdm_fail_context(tdm_status status, const char *fmt, ...)
{
    static _Thread_local char joined[FORMAT_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(joined, sizeof joined - 2, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : strlen(joined);
    /* the prefix before the newest failure's message, never the held root cause's;
     * what does not fit gives way in the middle, keeping the reason at the end */
    char *message = last_error + follow_up_at;
    snprintf(joined + len, sizeof joined - len, ": %s", message);
    tdm_text_fit(message, sizeof last_error - follow_up_at, joined);
    return status;
}

tdm_status tdm_fail_name(const char *func, const char *what, const char *name,
                         const char *const *names)
{
    char text[TDM_ERROR_MAX];
    int n = snprintf(text, sizeof text, "%s: no %s '%.64s' (", func, what, name);
    size_t used = n < 0 ? 0 : (size_t)n;
    for (size_t i = 0; names[i] && used < sizeof text; i++) {
        n = snprintf(text + used, sizeof text - used, "%s%s", i ? ", " : "", names[i]);
        used += n < 0 ? 0 : (size_t)n;
    }
    if (used < sizeof text)
        snprintf(text + used, sizeof text - used, ")");
    set_message(text);
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
