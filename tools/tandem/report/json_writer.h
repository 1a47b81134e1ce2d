/* A minimal streaming JSON writer for the CLI's --json output. */
#ifndef TANDEM_CLI_JSON_WRITER_H
#define TANDEM_CLI_JSON_WRITER_H

#include <stdint.h>
#include <stdio.h>

typedef struct json_writer {
    FILE *out;
    int depth;
    int need_comma; /* a value was already written at this depth */
} json_writer;

void json_begin_object(json_writer *w, const char *key);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w, const char *key);
void json_end_array(json_writer *w);
/* key is NULL inside arrays. */
void json_string(json_writer *w, const char *key, const char *value);
void json_uint(json_writer *w, const char *key, uint64_t value);
void json_int(json_writer *w, const char *key, int64_t value);
void json_null(json_writer *w, const char *key);
void json_bool(json_writer *w, const char *key, int value);
/* Non-finite values are written as null (JSON has no NaN). */
void json_double(json_writer *w, const char *key, double value);

#endif
