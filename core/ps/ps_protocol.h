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
 *   BYE     worker -> server: the worker is done; no answer
 *   SAVE    the chief -> server: its variables' state at one step, answered by STATE.
 *           count 0: as it is now; count = workers: once the server has applied the
 *           count u64 pushes per worker that follow (a worker that has reached its
 *           count waits for its answer until then), so that every server answers the
 *           same step (ps_serve.c)
 *   STATE   server -> the chief: the pushes it has applied per worker (u64 each), then
 *           each variable's value followed by its optimizer slots (in the order of
 *           tdm_optimizer_slot_names), as floats; `step` the global step
 *   RESTORE the chief -> server: the same floats as STATE and in `step` the global
 *           step to go on from; answered by VALUES */
#ifndef TDM_TRAIN_PS_PROTOCOL_H
#define TDM_TRAIN_PS_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/status.h"

enum {
    TDM_PS_HELLO = 1,
    TDM_PS_PUSH,
    TDM_PS_VALUES,
    TDM_PS_ERROR,
    TDM_PS_BYE,
    TDM_PS_SAVE,
    TDM_PS_STATE,
    TDM_PS_RESTORE
};

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
