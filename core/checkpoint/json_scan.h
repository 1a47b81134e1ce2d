/* Internal: a strict reader of the few JSON values a safetensors header holds
 * (objects, arrays, strings, non-negative integers), scanning the text in place. */
#ifndef TDM_TRAIN_JSON_SCAN_H
#define TDM_TRAIN_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>

typedef struct tdm_json {
    const char *text, *p, *end;
    const char *error; /* the first fault: what was expected; NULL while none */
    size_t error_at;   /* its byte offset in text */
    int out_of_memory;
} tdm_json;

void tdm_json_init(tdm_json *j, const char *text, size_t size);

/* Skips white space; 1 and consumes c if it comes next, else 0 (not an error). */
int tdm_json_take(tdm_json *j, char c);

/* Like take, but a missing c is an error. Every call below returns 0, or -1 with
 * j->error set (later calls then fail at once). */
int tdm_json_expect(tdm_json *j, char c);

/* A string, unescaped to UTF-8 (malloc'd; a "\u0000" escape is refused, so the result
 * is a C string). */
int tdm_json_string(tdm_json *j, char **out);

/* A non-negative integer without fraction or exponent, at most 2^64 - 1. */
int tdm_json_u64(tdm_json *j, uint64_t *out);

/* Records a fault of the caller's at the current position (the first one counts);
 * returns -1. */
int tdm_json_fail(tdm_json *j, const char *what);

/* Only white space is left. */
int tdm_json_finish(tdm_json *j);

#endif
