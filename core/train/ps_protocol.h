/* Internal: the messages between the workers and the parameter servers of a job.
 * Every message starts with a header; the processes share one byte order (every
 * supported host is little-endian).
 *   HELLO   worker -> server: count entries (the variables this server keeps for the
 *           worker's train op, by name and size); answered by VALUES or ERROR
 *   PUSH    worker -> server: the count variables' summed gradients, one after the
 *           other as floats; the server applies them at once, answered by VALUES
 *   VALUES  server -> worker: the count variables' values as floats, and in `step`
 *           the pushes the server has applied, over every worker (the global step)
 *   ERROR   server -> worker: why a request was refused, as text
 *   BYE     worker -> server: the worker is done; no answer */
#ifndef TDM_TRAIN_PS_PROTOCOL_H
#define TDM_TRAIN_PS_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/status.h"

enum { TDM_PS_HELLO = 1, TDM_PS_PUSH, TDM_PS_VALUES, TDM_PS_ERROR, TDM_PS_BYE };

typedef struct tdm_ps_header {
    uint32_t kind;
    uint32_t count;
    uint64_t step;
} tdm_ps_header;

#define TDM_PS_NAME_MAX 256

typedef struct tdm_ps_entry {
    uint64_t elements;
    char name[TDM_PS_NAME_MAX];
} tdm_ps_entry;

/* Grows *buf, kept from message to message, to hold `bytes`. */
tdm_status tdm_ps_reserve(unsigned char **buf, size_t *capacity, size_t bytes, const char *func);

#endif
